package monitor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Drift measurement: the rate is reported once the offset has been followed for driftMinWindow, and only when
// the two samples' uncertainties bound its error to a quarter of the rate the drift factor allows (a slow round
// trip is not taken for drift); the window restarts after driftMaxWindow so the figure follows the current rate.
const (
	driftMinWindow = 2 * time.Second
	driftMaxWindow = time.Minute
	// driftFixed is the constant term of the Redlock drift allowance, as in the client: ttl*factor + 2ms.
	driftFixed = 2 * time.Millisecond
	// maxLockWarnings caps the warnings of one kind naming locks; the rest are counted in one.
	maxLockWarnings = 10
	// rttWeight is the EWMA weight of the newest RTT sample (1/8, as TCP's smoothed RTT).
	rttWeight = 8
	// staleRatio is how many times longer than the other reads of its key a read must have waited to be taken
	// as not current (see aggregateLocks).
	staleRatio = 4
	// expiryTolerance is how early before its TTL a key may vanish and still count as expired rather than
	// released: read times are estimates, and Redis expires keys within a millisecond or so.
	expiryTolerance = 10 * time.Millisecond
)

// driftAllowance is the Redlock allowance for clock drift over d.
func driftAllowance(d time.Duration, factor float64) time.Duration {
	return time.Duration(float64(d)*factor) + driftFixed
}

// Aggregate computes the snapshot that follows prev (nil for the first) given one reading per master, in the
// order of the masters, the locks registered as ours (by resource) and the current time. It is pure: all
// history it needs comes from prev, which it does not modify.
func Aggregate(prev *Snapshot, readings []Reading, own map[string]OwnLock, now time.Time, cfg Config) Snapshot {
	cfg = cfg.WithDefaults()
	s := Snapshot{Seq: 1, Time: now, Quorum: len(readings)/2 + 1}
	var events []Event
	if prev != nil {
		s.Seq = prev.Seq + 1
		s.maxTTL = prev.maxTTL
	}

	s.Masters = make([]MasterStatus, len(readings))
	for i, r := range readings {
		var p *MasterStatus
		if prev != nil && i < len(prev.Masters) && prev.Masters[i].Addr == r.Addr {
			p = &prev.Masters[i]
		}
		var ev []Event
		s.Masters[i], ev = masterStatus(p, r, now, cfg)
		events = append(events, ev...)
		s.Truncated = s.Truncated || r.Truncated
	}
	markDuplicates(s.Masters)
	s.Swept = true
	for _, m := range s.Masters {
		if m.DuplicateOf != "" {
			continue
		}
		s.Servers++
		if m.Up {
			s.UpCount++
			s.Swept = s.Swept && m.Sweep.Completed > 0
		}
	}

	var lockEvents []Event
	readings, fences := splitFences(prev, readings, cfg.FenceSuffix)
	s.Locks, s.tracked, lockEvents = aggregateLocks(prev, readings, s.Masters, own, now, cfg)
	events = append(events, lockEvents...)
	s.fenceSuffix = cfg.FenceSuffix
	fenceWarnings, fenceEvents := s.applyFences(prev, fences, now)
	events = append(events, fenceEvents...)
	for _, l := range s.Locks {
		for j, c := range l.Masters {
			if c.Present() {
				s.Masters[j].Keys++
			}
		}
	}
	for _, r := range readings {
		for _, k := range r.Keys {
			s.maxTTL = max(s.maxTTL, k.PTTL)
		}
	}
	for _, o := range own {
		s.maxTTL = max(s.maxTTL, o.TTL)
	}

	var clockEvents []Event
	s.Warnings, clockEvents = warnings(&s, now, cfg)
	s.Warnings = append(s.Warnings, fenceWarnings...)
	s.Warnings = append(s.Warnings, deploymentWarnings(&s, readings, cfg)...)
	events = append(events, clockEvents...)
	s.Events = appendEvents(prev, events, cfg.MaxEvents)
	return s
}

// keysToRefresh returns, sorted, every key the poll after s must re-read on every master: its locks, the fence
// counters of those that have one and of ours, the candidates it keeps out of sight, and our registered locks.
// A lock's counter is read in the snapshot that finds the lock (see readAll); a lock that had none then is not
// asked for one again (with 100,000 unfenced locks that read doubled the keys of every poll), until it is found
// anew or the sweep comes across its counter.
func (s *Snapshot) keysToRefresh(own map[string]OwnLock) []string {
	var keys []string
	if s != nil {
		keys = make([]string, 0, len(s.Locks)+len(s.tracked)+2*len(own))
		for _, l := range s.Locks {
			keys = append(keys, l.Resource)
			if l.Fence > 0 {
				keys = append(keys, l.Resource+s.fenceSuffix)
			}
		}
		keys = append(keys, s.tracked...)
	}
	for res := range own {
		keys = append(keys, res)
		if s != nil {
			keys = append(keys, res+s.fenceSuffix)
		}
	}
	sort.Strings(keys)
	out := keys[:0]
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			out = append(out, k)
		}
	}
	return out
}

// markDuplicates sets DuplicateOf on every master whose run_id an earlier master already has: two addresses of
// one server, which must count once.
func markDuplicates(masters []MasterStatus) {
	byRunID := map[string]string{}
	for i := range masters {
		m := &masters[i]
		if m.RunID == "" {
			continue
		}
		if first, ok := byRunID[m.RunID]; ok {
			m.DuplicateOf = first
			continue
		}
		byRunID[m.RunID] = m.Addr
	}
}

// masterStatus derives one master's status from its reading and its previous status (nil when first seen),
// with the events of the transition. A master that misses a poll keeps its last values and is "not
// answering"; it is declared down after Config.DownAfter misses in a row, or at once when it refused us.
func masterStatus(p *MasterStatus, r Reading, now time.Time, cfg Config) (MasterStatus, []Event) {
	var events []Event
	event := func(kind EventKind, text string) {
		events = append(events, Event{Time: now, Kind: kind, Master: r.Addr, Text: text})
	}
	if r.Err != nil {
		ms := MasterStatus{Addr: r.Addr, Role: "unknown", Replicas: -1, Uptime: UnknownUptime, hist: masterHistory{infoUptime: UnknownUptime}}
		if p != nil {
			ms = *p
		}
		wasDown := p != nil && p.Down
		ms.Up, ms.Err, ms.Warnings, ms.Uptime = false, r.Err.Error(), nil, UnknownUptime
		ms.Missed++
		ms.Down = r.Refused || ms.Missed >= cfg.DownAfter
		switch {
		case ms.Down && !wasDown:
			event(EventMasterDown, "down: "+r.Err.Error())
		case !ms.Down && ms.Missed == 1:
			event(EventMasterNotAnswering, "not answering: "+r.Err.Error())
		}
		return ms, events
	}

	ms := MasterStatus{
		Addr:       r.Addr,
		Up:         true,
		LastAnswer: now,
		Role:       r.Role,
		Version:    r.Version,
		RunID:      r.RunID,
		Uptime:     r.Uptime,
		Replicas:   r.Replicas,
		Sweep:      r.Sweep,
		hist:       masterHistory{infoUptime: UnknownUptime},
	}
	if ms.Role == "" {
		ms.Role = "unknown"
	}
	if p != nil {
		ms.RTTSmoothed = p.RTTSmoothed
		ms.ClockKnown, ms.ClockOffset, ms.ClockUncertainty = p.ClockKnown, p.ClockOffset, p.ClockUncertainty
		ms.DriftPPM, ms.DriftUncertPPM, ms.DriftKnown = p.DriftPPM, p.DriftUncertPPM, p.DriftKnown
		ms.LastRestart = p.LastRestart
		ms.hist = p.hist
		switch {
		case p.Down:
			event(EventMasterUp, "up again")
		case !p.Up:
			event(EventMasterUp, fmt.Sprintf("answering again after %d missed polls", p.Missed))
		}
	}

	if !r.Sent.IsZero() && !r.Received.IsZero() {
		ms.RTT = r.Received.Sub(r.Sent)
		if ms.RTTSmoothed == 0 {
			ms.RTTSmoothed = ms.RTT
		} else {
			ms.RTTSmoothed += (ms.RTT - ms.RTTSmoothed) / rttWeight
		}
	}

	if p != nil && restarted(p, r) {
		ms.hist.driftRefAt = time.Time{} // a new process: measure its clock afresh
		ms.DriftKnown, ms.DriftPPM, ms.DriftUncertPPM = false, 0, 0
		event(EventMasterRestarted, restartText(p, r))
	}
	if r.Uptime >= 0 {
		// The process start, from its uptime: known from the first poll, whether or not we saw it restart.
		ms.LastRestart = now.Add(-r.Uptime)
		ms.hist.infoUptime = r.Uptime
	}

	if !r.ServerTime.IsZero() {
		mid := r.Sent.Add(ms.RTT / 2)
		ms.ClockKnown = true
		ms.ClockOffset = r.ServerTime.Sub(mid)
		ms.ClockUncertainty = ms.RTT / 2
		h := &ms.hist
		elapsed := mid.Sub(h.driftRefAt)
		if h.driftRefAt.IsZero() || elapsed < driftMinWindow && ms.ClockUncertainty < h.driftRefUnc/2 {
			// Start the window, or restart it from a much better sample (the first one includes a dial).
			h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
		} else if elapsed >= driftMinWindow &&
			float64(h.driftRefUnc+ms.ClockUncertainty)/float64(elapsed) <= cfg.DriftFactor/4 {
			ms.DriftPPM = float64(ms.ClockOffset-h.driftRef) / float64(elapsed) * 1e6
			ms.DriftUncertPPM = float64(h.driftRefUnc+ms.ClockUncertainty) / float64(elapsed) * 1e6
			ms.DriftKnown = true
			if elapsed >= driftMaxWindow {
				h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
			}
		}
	}
	return ms, events
}

// restarted reports whether the master behind r is a new process since p: its run_id changed or, when run_id
// is unknown, its uptime went back.
func restarted(p *MasterStatus, r Reading) bool {
	if p.RunID != "" && r.RunID != "" {
		return p.RunID != r.RunID
	}
	return p.hist.infoUptime >= 0 && r.Uptime >= 0 && r.Uptime < p.hist.infoUptime
}

// restartText describes a restart for its event.
func restartText(p *MasterStatus, r Reading) string {
	if p.RunID != "" && r.RunID != "" {
		return fmt.Sprintf("restarted: run_id %s -> %s", p.RunID, r.RunID)
	}
	return fmt.Sprintf("restarted: uptime went back from %s to %s", ShortDuration(p.hist.infoUptime), ShortDuration(r.Uptime))
}

// aggregateLocks builds one LockView per resource known on any master (plus our registered ones), sorted by
// resource, carrying history and the values of cells not read this time from prev. It returns the views, the
// keys kept for refresh that are not shown, and the lock events.
func aggregateLocks(prev *Snapshot, readings []Reading, masters []MasterStatus, own map[string]OwnLock, now time.Time, cfg Config) ([]LockView, []string, []Event) {
	n := len(readings)
	quorum := n/2 + 1
	var prevLocks []LockView
	var prevTracked []string
	if prev != nil {
		prevLocks, prevTracked = prev.Locks, prev.tracked
	}

	index := map[string]int{}
	var resources []string
	addResource := func(res string) {
		if _, ok := index[res]; !ok {
			index[res] = 0
			resources = append(resources, res)
		}
	}
	for _, r := range readings {
		for _, k := range r.Keys {
			addResource(k.Key)
		}
	}
	for _, l := range prevLocks {
		addResource(l.Resource)
	}
	for _, res := range prevTracked {
		addResource(res)
	}
	for res := range own {
		addResource(res)
	}
	sort.Strings(resources)
	for i, res := range resources {
		index[res] = i
	}

	// A cell is as old as its read. A read that waited (a master answering late, out of a pause) is known only
	// to within half its round trip: one uncertain by more than half an interval, and by more than staleRatio
	// times what the other reads of its key were (on a slow machine all of them wait alike, and agree), is not
	// current: the cell is unknown, with what that read saw as its last known value. A key whose PTTL, counted
	// from its read, has run out by now is gone.
	readAtOf := func(k KeyReading) time.Time {
		if k.ReadAt.IsZero() {
			return now
		}
		return k.ReadAt
	}
	within := make([]time.Duration, len(resources)*n) // each master's read of each key: how far off its time may be
	for i := range within {
		within[i] = -1 // not read
	}
	for j, r := range readings {
		if r.Err != nil {
			continue
		}
		for _, k := range r.Keys {
			within[index[k.Key]*n+j] = max(within[index[k.Key]*n+j], k.ReadWithin)
		}
	}
	usual := make([]time.Duration, len(resources)) // the median of those, per key
	for i := range resources {
		usual[i] = medianDuration(within[i*n : (i+1)*n])
	}
	maxSpread := cfg.Interval / 2
	cells := make([]MasterLock, len(resources)*n)
	read := make([]bool, len(cells)) // decided by a read of this poll: not to be filled from prev
	for j, r := range readings {
		if r.Err != nil {
			continue
		}
		for _, k := range r.Keys {
			i := index[k.Key]*n + j
			c, readAt := &cells[i], readAtOf(k)
			stale := k.ReadWithin > maxSpread && k.ReadWithin > staleRatio*usual[index[k.Key]]
			expired := !k.Absent && k.PTTL != NoTTL && !readAt.Add(k.PTTL).After(now)
			state := CellSeen
			switch {
			case stale && (k.Absent || c.State != CellUnknown):
				// Not current. A late "no key" leaves the value last seen there (carried from prev), as a
				// master that did not answer would; a current read of the key on this master wins.
				continue
			case stale:
				state = CellUnknown
			case k.Absent || expired:
				if c.Token == "" { // a read that saw the key (a later discovery) wins over one that did not
					*c = MasterLock{State: CellAbsent}
				}
				read[i] = true
				continue
			}
			*c = MasterLock{State: state, Token: k.Value, PTTL: k.PTTL, ReadAt: readAt}
			read[i] = true
			if k.Fields != nil {
				c.Hash = true
				c.Token, c.Reentrancy, c.Mode = hashHolder(k.Fields)
			}
		}
	}
	dup := make([]bool, n)
	for j, m := range masters {
		dup[j] = m.DuplicateOf != ""
	}

	var (
		events  []Event
		views   = make([]LockView, 0, len(resources))
		tracked []string
		arena   []tokenSeen // backs every view's hist.tokens
		pi      = 0
	)
	firstSweep := prev == nil || !prev.Swept
	for i, res := range resources {
		row := cells[i*n : (i+1)*n : (i+1)*n]
		var p *LockView
		for pi < len(prevLocks) && prevLocks[pi].Resource < res {
			pi++
		}
		if pi < len(prevLocks) && prevLocks[pi].Resource == res {
			p = &prevLocks[pi]
		}
		carry(row, read[i*n:(i+1)*n], p)
		ownLock := own[res]
		isOwn := ownLock.Token != ""
		if !kept(row) && !isOwn {
			if p != nil {
				events = append(events, goneEvent(p, ownLock.Deleted, prev.Time, now))
			}
			continue
		}
		v := LockView{Resource: res, Masters: row}
		arena = classify(&v, dup, quorum, ownLock, isOwn, now, cfg, arena)
		if !isOwn && !shown(&v, cfg) {
			tracked = append(tracked, res)
			continue
		}
		events = history(&v, p, prev != nil && !(p == nil && firstSweep), now, events)
		views = append(views, v)
	}
	groupMultiKeyLocks(views)
	return views, tracked, events
}

// multiKeyMinToken is the shortest token taken as random enough that the same token on two keys means one
// lock over both.
const multiKeyMinToken = 16

// groupMultiKeyLocks sets Keys on locks whose leading token is also another key's: clients such as node-redlock
// and bsm/redislock take one lock over several keys by writing one random token on all of them.
func groupMultiKeyLocks(views []LockView) {
	byToken := map[string][]int{}
	for i := range views {
		v := &views[i]
		t := v.Holder
		if t == "" {
			t = leadToken(v)
		}
		if len(t) < multiKeyMinToken || slices.ContainsFunc(v.Masters, func(c MasterLock) bool { return c.Hash }) {
			continue // a hash holder names a client thread, which may hold several locks
		}
		byToken[t] = append(byToken[t], i)
	}
	for _, idx := range byToken {
		if len(idx) < 2 {
			continue
		}
		keys := make([]string, len(idx))
		for k, i := range idx {
			keys[k] = views[i].Resource
		}
		for _, i := range idx {
			views[i].Keys = keys
		}
	}
}

// redissonThreadQuorum returns the thread id that a quorum of masters' hash locks share, with their count, or
// "", 0 when the cells are not all single-holder hash locks with a client id of their own (one client holding
// two masters is not a RedLock across clients), or no thread id reaches a quorum.
func redissonThreadQuorum(cells []MasterLock, dup []bool, quorum int) (string, int) {
	byThread := map[string]int{}
	holders := map[string]bool{}
	for j, c := range cells {
		if dup[j] || c.State != CellSeen {
			continue
		}
		if !c.Hash || strings.Contains(c.Token, ",") || holders[c.Token] {
			return "", 0
		}
		holders[c.Token] = true
		byThread[threadOf(c.Token)]++
	}
	for t, n := range byThread {
		if n >= quorum {
			return t, n
		}
	}
	return "", 0
}

// threadOf is the thread id of a hash lock's holder field "<client-id>:<thread-id>".
func threadOf(holder string) string { return holder[strings.LastIndexByte(holder, ':')+1:] }

// hashHolder reads a hash lock's fields and values: its holders ("<client-uuid>:<thread-id>" fields, sorted,
// joined by commas), the first holder's hold count, and the mode field of a read-write lock.
func hashHolder(fields []string) (holder string, count int, mode string) {
	var holders []string
	for i := 0; i+1 < len(fields); i += 2 {
		f, v := fields[i], fields[i+1]
		switch {
		case f == "mode":
			mode = v
		case isHolderField(f):
			holders = append(holders, f)
		}
	}
	sort.Strings(holders)
	for i := 0; i+1 < len(fields) && len(holders) > 0; i += 2 {
		if fields[i] == holders[0] {
			count, _ = strconv.Atoi(fields[i+1])
		}
	}
	return strings.Join(holders, ","), count, mode
}

// isHolderField reports whether a hash field names a holder: "<client-id>:<thread-id>".
func isHolderField(f string) bool {
	i := strings.LastIndexByte(f, ':')
	if i <= 0 || i == len(f)-1 {
		return false
	}
	for _, c := range f[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// carry fills the cells of row that were not read (read[j] false) with the values last seen there, from p
// (nil: nothing seen before).
func carry(row []MasterLock, read []bool, p *LockView) {
	if p == nil {
		return
	}
	for j := range row {
		if !read[j] && j < len(p.Masters) && p.Masters[j].State != CellAbsent {
			row[j] = p.Masters[j]
			row[j].State = CellUnknown
		}
	}
}

// kept reports whether a resource is still tracked: some master has its key, or may have it (not read, with
// a value last seen there).
func kept(row []MasterLock) bool {
	for _, c := range row {
		if c.State == CellSeen || c.State == CellUnknown && c.Token != "" {
			return true
		}
	}
	return false
}

// shown reports whether a tracked resource is listed as a lock: it has a TTL somewhere, or it is a key
// without one that looks like a stuck lock (the same value on more than one master, or matched by a pattern
// the user gave).
func shown(v *LockView, cfg Config) bool {
	if v.State != StateStuck {
		return true
	}
	return v.Count > 1 || cfg.Pattern != DefaultPattern
}

// goneEvent records that a lock seen before has no key on any master any more: deleted when its keys were
// tokens this process force-deleted (deleted), expired when its last known expiry has passed, released when it
// vanished before.
func goneEvent(p *LockView, deleted []string, prevTime, now time.Time) Event {
	var ours []string
	for _, c := range p.Masters {
		if c.State != CellAbsent && slices.Contains(deleted, c.Token) && !slices.Contains(ours, c.Token) {
			ours = append(ours, c.Token)
		}
	}
	if len(ours) > 0 {
		return Event{Time: now, Kind: EventLockDeleted, Resource: p.Resource,
			Text: fmt.Sprintf("force-deleted from here: token %s", strings.Join(quoteAll(ours), ", "))}
	}
	var expires time.Time
	noTTL := false
	for _, c := range p.Masters {
		if c.Token == "" {
			continue
		}
		if c.PTTL == NoTTL {
			noTTL = true
			continue
		}
		readAt := c.ReadAt
		if readAt.IsZero() {
			readAt = prevTime
		}
		expires = maxTime(expires, readAt.Add(c.PTTL))
	}
	// Name the holder only if its keys are the ones that went.
	who := ""
	last := p.hist.lastHolder
	switch {
	case p.Holder != "":
		who = fmt.Sprintf(" (was held by %q)", p.Holder)
	case last != "" && slices.ContainsFunc(p.Masters, func(c MasterLock) bool { return c.State != CellAbsent && c.Token == last }):
		who = fmt.Sprintf(" (last held by %q)", last)
	case leadToken(p) != "":
		who = fmt.Sprintf(" (token %q, which held no quorum)", leadToken(p))
	}
	if !noTTL && !expires.IsZero() && !now.Before(expires.Add(-expiryTolerance)) {
		return Event{Time: now, Kind: EventLockExpired, Resource: p.Resource, Text: "expired at its TTL" + who}
	}
	text := "released"
	if !noTTL && !expires.IsZero() {
		text = fmt.Sprintf("released %s before its TTL", ShortDuration(expires.Sub(now)))
	}
	return Event{Time: now, Kind: EventLockReleased, Resource: p.Resource, Text: text + who}
}

// medianDuration returns the median of the durations of ds that are not negative (the upper one of the middle
// two), 0 when there are none. It sorts ds.
func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	first := 0
	for first < len(ds) && ds[first] < 0 {
		first++
	}
	if first == len(ds) {
		return 0
	}
	return ds[first+(len(ds)-first)/2]
}

// quoteAll quotes every string of ss.
func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// tokenCount is how many distinct masters hold a token for one resource.
type tokenCount struct {
	token string
	count int
}

// classify computes the state, holder, validity and flags of v from its per-master cells, leaving out masters
// that duplicate another (dup). Unknown cells never count for or against a token: when they could decide the
// outcome the state is unknown. It records v's tokens in hist.tokens, taken from arena, and returns the arena
// for the next view.
func classify(v *LockView, dup []bool, quorum int, own OwnLock, isOwn bool, now time.Time, cfg Config, arena []tokenSeen) []tokenSeen {
	var buf [8]tokenCount
	counts := buf[:0]
	count := func(token string) int {
		for _, tc := range counts {
			if tc.token == token {
				return tc.count
			}
		}
		return 0
	}
	var carried []string // tokens last seen on masters not read this time
	for j, c := range v.Masters {
		if dup[j] {
			continue
		}
		switch c.State {
		case CellUnknown:
			v.Unknown++
			if c.Token != "" {
				carried = append(carried, c.Token)
			}
			continue
		case CellAbsent:
			continue
		}
		found := false
		for k := range counts {
			if counts[k].token == c.Token {
				counts[k].count++
				found = true
				break
			}
		}
		if !found {
			counts = append(counts, tokenCount{c.Token, 1})
		}
	}
	lead := -1
	for k, tc := range counts {
		if lead < 0 || tc.count > counts[lead].count || tc.count == counts[lead].count && tc.token < counts[lead].token {
			lead = k
		}
	}
	if len(arena)+len(counts)+len(carried) > cap(arena) {
		arena = make([]tokenSeen, 0, max(1024, 2*(len(counts)+len(carried))))
	}
	start := len(arena)
	for _, tc := range counts {
		arena = append(arena, tokenSeen{token: tc.token})
	}
	for _, t := range carried {
		if count(t) == 0 {
			arena = append(arena, tokenSeen{token: t})
		}
	}
	v.hist.tokens = arena[start:len(arena):len(arena)]
	v.Mine = isOwn

	if lead < 0 { // nothing read: every master that answered has no key, the others were not read
		switch {
		case v.Unknown >= quorum:
			v.State = StateUnknown // the masters not read could make it held
		case isOwn:
			v.State = StateLost
		default:
			v.State = StatePartial // even if every master not read held it, it could not have a quorum
		}
		return arena
	}
	leadToken := counts[lead].token
	v.Count = counts[lead].count
	sameHolder := func(c MasterLock) bool { return c.Holds(leadToken) }
	if thread, n := redissonThreadQuorum(v.Masters, dup, quorum); v.Count < quorum && n > 0 {
		// Redisson's RedLock takes each master's lock through another client, so each has its own client id:
		// only the thread id is common. Grouping on it is a guess, and marked as one.
		v.Heuristic, v.Count = true, n
		sameHolder = func(c MasterLock) bool { return c.State == CellSeen && c.Hash && threadOf(c.Token) == thread }
	}

	// The lead token's expiries, longest first (insertion sort: there are at most N).
	var ebuf [8]time.Duration
	exp := ebuf[:0]
	stuck := false
	for j, c := range v.Masters {
		if dup[j] || !sameHolder(c) {
			continue
		}
		if c.PTTL == NoTTL {
			stuck = true
			continue
		}
		e := c.PTTL + c.ReadAt.Sub(now)
		exp = append(exp, e)
		for k := len(exp) - 1; k > 0 && exp[k] > exp[k-1]; k-- {
			exp[k], exp[k-1] = exp[k-1], exp[k]
		}
	}
	if len(exp) > 0 {
		v.TTLSpread = exp[0] - exp[len(exp)-1]
	}
	// Held needs a quorum of one token and validity left after the drift allowance; a quorum whose keys are
	// about to expire is not a lock.
	if !stuck && v.Count >= quorum {
		remaining := exp[quorum-1]
		v.Validity = max(0, remaining-driftAllowance(remaining, cfg.DriftFactor))
	}
	switch {
	case stuck:
		v.State = StateStuck
		if v.Count >= quorum {
			v.Holder = leadToken
		}
	case v.Validity > 0:
		v.State, v.Holder = StateHeld, leadToken
		v.Foreign = len(counts) > 1
	case v.Count < quorum && v.Count+v.Unknown >= quorum:
		v.State = StateUnknown // the masters not read could make it held
	case len(counts) == 1:
		v.State = StatePartial
	default:
		v.State = StateSplit
	}
	if isOwn && v.Holder != own.Token && v.State != StateStuck {
		v.State = StateLost
		if count(own.Token)+v.Unknown >= quorum {
			v.State = StateUnknown
		}
	}
	if isOwn && count(own.Token) > 0 {
		v.AcquiredAt = own.AcquiredAt
	}
	for _, c := range v.Masters {
		if c.Holds(leadToken) {
			v.Family = familyHint(v.Resource, leadToken, c.Hash, c.Mode)
			break
		}
	}
	return arena
}

// history carries first sightings, holder changes and their time from p (nil when the resource is new) into v,
// and appends the events of the transition to events. Lock events are not raised when announce is false: the
// first snapshot, and locks found by the first sweep, only describe what is there.
func history(v, p *LockView, announce bool, now time.Time, events []Event) []Event {
	lead := v.Holder
	if lead == "" && v.State != StateUnknown {
		lead = leadToken(v)
	}
	for k := range v.hist.tokens {
		t := &v.hist.tokens[k]
		t.since = now
		if p != nil {
			for _, pt := range p.hist.tokens {
				if pt.token == t.token {
					t.since = pt.since
					break
				}
			}
		}
		if t.token == lead && lead != "" {
			v.FirstSeen = t.since
		}
	}
	if v.FirstSeen.IsZero() && p != nil {
		v.FirstSeen = p.FirstSeen
	}
	event := func(kind EventKind, text string) {
		if announce || p != nil {
			events = append(events, Event{Time: now, Kind: kind, Resource: v.Resource, Text: text})
		}
	}
	if p == nil {
		v.hist.lastHolder, v.hist.heldBy = v.Holder, v.Holder
		switch v.State {
		case StateLost:
			v.hist.standing = alarmLost
			event(EventLockLost, "our lock is on no quorum")
		case StateStuck:
			event(EventLockStuck, fmt.Sprintf("appeared without a TTL on %d masters: it never expires", v.Count))
		case StateSplit:
			v.hist.standing = alarmSplit
			event(EventLockAppeared, fmt.Sprintf("appeared split, %d masters with the most common token", v.Count))
		case StateHeld:
			event(EventLockAppeared, fmt.Sprintf("appeared, held by %q", v.Holder))
		case StateUnknown:
		default:
			event(EventLockAppeared, fmt.Sprintf("appeared on %d masters", v.Count))
		}
		return events
	}
	v.Changes, v.LastChange, v.hist.lastHolder = p.Changes, p.LastChange, p.hist.lastHolder
	if v.State == StateUnknown {
		// Undecided: keep what was known, raise nothing; an alarm awaiting confirmation is not confirmed.
		v.QuorumLost, v.hist.standing, v.hist.heldBy = p.QuorumLost, p.hist.standing, p.hist.heldBy
		return events
	}
	v.hist.heldBy = v.Holder
	// An alarm is raised when two polls in a row show it (see confirmWindow in the package documentation):
	// the first marks it pending and shows the lock unconfirmed, the second confirms it if it still holds.
	var pending alarm
	confirm := func(a alarm, same bool, kind EventKind, text func() string) {
		switch {
		case p.hist.standing&a != 0:
			v.hist.standing |= a
		case p.hist.pending&a != 0 && same:
			v.hist.standing |= a
			event(kind, text())
		default:
			pending |= a
		}
	}
	if v.Holder != "" {
		// Every holder is named once, when it becomes known.
		switch last := v.hist.lastHolder; {
		case last == "":
			event(EventLockHeld, fmt.Sprintf("held by %q", v.Holder))
		case last != v.Holder:
			v.Changes++
			v.LastChange = now
			event(EventTakenOver, fmt.Sprintf("taken over: holder %q replaced by %q", last, v.Holder))
		}
		v.hist.lastHolder = v.Holder
	} else if last := v.hist.lastHolder; !v.Mine && last != "" && liveOn(v, last, now) > 0 && ((p.hist.standing|p.hist.pending)&alarmQuorumLost != 0 || p.hist.heldBy == last && vanishedEarly(p, v, last, now)) {
		// The last holder's key lives on, but on fewer than a quorum, because some of its keys went before
		// their TTL: its holder may still believe it holds the lock while another client can take it. It is
		// judged against the last decided state: after polls that could not decide (a master not answering),
		// a master back without the key it held takes that key from the count.
		confirm(alarmQuorumLost, true, EventQuorumLost, func() string {
			return fmt.Sprintf("holder %q lost its quorum: its key lives on %d masters", last, liveOn(v, last, now))
		})
		v.QuorumLost = v.hist.standing&alarmQuorumLost != 0
	}
	if v.State == StateSplit {
		// Confirmed only by tokens both polls saw: contention shows a new pair at each attempt.
		confirm(alarmSplit, sharedTokens(p, v) >= 2, EventLockSplit, func() string {
			return fmt.Sprintf("split: %d tokens, none on a quorum", len(v.hist.tokens))
		})
	}
	if v.State == StateLost {
		confirm(alarmLost, true, EventLockLost, func() string { return "our lock is on no quorum" })
	}
	if v.State == StateStuck && p.State != StateStuck {
		event(EventLockStuck, fmt.Sprintf("has no TTL on %d masters: it never expires", v.Count))
	}
	if pending != 0 {
		v.hist.pending = pending
		v.State = StateUnconfirmed
	}
	return events
}

// sharedTokens counts the tokens that both p and v saw.
func sharedTokens(p, v *LockView) int {
	n := 0
	for _, t := range v.hist.tokens {
		for _, pt := range p.hist.tokens {
			if pt.token == t.token {
				n++
				break
			}
		}
	}
	return n
}

// leadToken is the most common token seen for v, "" when none was seen.
func leadToken(v *LockView) string {
	best, bestN := "", 0
	for _, c := range v.Masters {
		if c.State != CellSeen {
			continue
		}
		n := 0
		for _, o := range v.Masters {
			if o.Holds(c.Token) {
				n++
			}
		}
		if n > bestN || n == bestN && c.Token < best {
			best, bestN = c.Token, n
		}
	}
	return best
}

// vanishedEarly reports whether token, seen on some master in p (or last seen there, when p could not read
// it), is now read there as gone or replaced while its TTL had time left.
func vanishedEarly(p, v *LockView, token string, now time.Time) bool {
	for j, pc := range p.Masters {
		if j >= len(v.Masters) || pc.State == CellAbsent || pc.Token != token || pc.PTTL == NoTTL {
			continue
		}
		c := v.Masters[j]
		if c.State != CellUnknown && !c.Holds(token) && pc.ReadAt.Add(pc.PTTL).After(now.Add(expiryTolerance)) {
			return true
		}
	}
	return false
}

// liveOn counts the masters where token was seen in this poll with time left.
func liveOn(v *LockView, token string, now time.Time) int {
	n := 0
	for _, c := range v.Masters {
		if c.Holds(token) && (c.PTTL == NoTTL || c.PTTL+c.ReadAt.Sub(now) > 0) {
			n++
		}
	}
	return n
}

// warnings computes the current warnings of s (whose masters and locks are set), adds the per-master ones to
// its masters, and returns the clock-warning events of masters that were not warned about before.
func warnings(s *Snapshot, now time.Time, cfg Config) ([]Warning, []Event) {
	var ws []Warning
	var events []Event
	add := func(sev Severity, kind, master, text string) {
		ws = append(ws, Warning{Severity: sev, Kind: kind, Master: master, Text: text})
	}
	n := len(s.Masters)
	if s.UpCount < s.Quorum {
		add(SeverityError, WarnQuorumDown, "", fmt.Sprintf("only %d of %d masters answered, quorum is %d: no lock can be acquired", s.UpCount, n, s.Quorum))
	}
	if n < 3 || n%2 == 0 {
		add(SeverityWarning, WarnMasterCount, "", fmt.Sprintf("%s: use an odd number, at least 3", plural(n, "master")))
	}
	for _, m := range s.Masters {
		if m.DuplicateOf != "" {
			add(SeverityError, WarnDuplicate, m.Addr, fmt.Sprintf("same server as %s (run_id %s): counted once", m.DuplicateOf, m.RunID))
		}
	}
	if s.Truncated {
		add(SeverityWarning, WarnTruncated, "", fmt.Sprintf("more than %d lock keys: the rest are not tracked", cfg.MaxKeys))
	}
	lockWarning := func(counter *int, sev Severity, kind, resource, text string) {
		if *counter++; *counter <= maxLockWarnings {
			ws = append(ws, Warning{Severity: sev, Kind: kind, Resource: resource, Text: text})
		}
	}
	var foreign, lost, quorumLost, stuck int
	for _, l := range s.Locks {
		switch {
		case l.State == StateLost:
			lockWarning(&lost, SeverityError, WarnLockLost, l.Resource, fmt.Sprintf("our lock on %q has no quorum", l.Resource))
		case l.QuorumLost:
			lockWarning(&quorumLost, SeverityError, WarnQuorumLost, l.Resource, fmt.Sprintf("lock %q lost its quorum: its holder may still believe it holds it while another client can take it", l.Resource))
		case l.State == StateStuck:
			lockWarning(&stuck, SeverityWarning, WarnStuck, l.Resource, fmt.Sprintf("lock %q has no TTL on %s: it is never released by expiry", l.Resource, plural(l.Count, "master")))
		case l.Foreign:
			var others []string
			for j, c := range l.Masters {
				if c.Present() && c.Token != l.Holder {
					others = append(others, s.Masters[j].Addr)
				}
			}
			lockWarning(&foreign, SeverityWarning, WarnForeignTokens, l.Resource, fmt.Sprintf("lock %q is held but another token is on %s", l.Resource, strings.Join(others, ", ")))
		}
	}
	for _, more := range []struct {
		n    int
		sev  Severity
		kind string
		what string
	}{
		{lost, SeverityError, WarnLockLost, "of our locks with no quorum"},
		{quorumLost, SeverityError, WarnQuorumLost, "locks that lost their quorum"},
		{stuck, SeverityWarning, WarnStuck, "locks without a TTL"},
		{foreign, SeverityWarning, WarnForeignTokens, "held locks with another token on some master"},
	} {
		if more.n > maxLockWarnings {
			add(more.sev, more.kind, "", fmt.Sprintf("and %d more %s", more.n-maxLockWarnings, more.what))
		}
	}

	allowance := driftAllowance(s.maxTTL, cfg.DriftFactor)
	longest := s.maxTTL
	for i := range s.Masters {
		m := &s.Masters[i]
		if !m.Up {
			switch {
			case m.Down:
				add(SeverityWarning, WarnMasterDown, m.Addr, "down: "+m.Err)
			default:
				add(SeverityWarning, WarnMasterDown, m.Addr, fmt.Sprintf("not answering (%s missed): %s", plural(m.Missed, "poll"), m.Err))
			}
			continue
		}
		if m.Sweep.Completed == 0 {
			add(SeverityWarning, WarnSweeping, m.Addr, "first scan in progress ("+m.Sweep.Progress()+"): locks it has not reached are not shown yet")
		}
		if m.Role == "slave" {
			add(SeverityError, WarnReplica, m.Addr, "is a replica: Redlock needs independent masters")
		}
		if m.Replicas > 0 {
			add(SeverityWarning, WarnHasReplicas, m.Addr, fmt.Sprintf("has %d replicas: a failover can break mutual exclusion", m.Replicas))
		}
		if !m.LastRestart.IsZero() && now.Sub(m.LastRestart) < longest {
			add(SeverityError, WarnRestart, m.Addr, fmt.Sprintf("started %s ago, less than the longest TTL (%s): it may grant a lock others still hold",
				ShortDuration(now.Sub(m.LastRestart)), ShortDuration(longest)))
		}
	}
	// Clocks. Redlock needs the masters' clocks to tick at the same rate as the clients' (drift), not to agree
	// (offset): an offset alone is harmless, and is only told because a clock set by hand may also jump. When
	// every master is off, or drifts, the same way, the clock at fault is ours: one warning says so instead of
	// one per master.
	offset := func(m *MasterStatus) bool {
		return m.Up && m.ClockKnown && s.maxTTL > 0 && abs(m.ClockOffset)-m.ClockUncertainty > allowance
	}
	drifting := func(m *MasterStatus) bool {
		return m.Up && m.DriftKnown && driftTooFast(m.DriftPPM, s.maxTTL, cfg.DriftFactor)
	}
	offsetOurs, offsetSign := sameWay(s.Masters, offset, func(m *MasterStatus) float64 { return float64(m.ClockOffset) })
	driftOurs, driftSign := sameWay(s.Masters, drifting, func(m *MasterStatus) float64 { return m.DriftPPM })
	if offsetOurs {
		add(SeverityWarning, WarnClockOffset, "", fmt.Sprintf("our clock is %s every master's: the offset is this machine's; "+
			"harmless alone (Redlock needs clocks to tick at the same rate, not to agree)", aheadOrBehind(-offsetSign)))
	}
	if driftOurs {
		add(SeverityWarning, WarnClockDrift, "", fmt.Sprintf("our clock runs %s than every master's: the drift is this "+
			"machine's, and it shortens or stretches the validity this program computes", fasterOrSlower(-driftSign)))
	}
	for i := range s.Masters {
		m := &s.Masters[i]
		var why []string
		if offset(m) && !offsetOurs {
			why = append(why, "offset")
			add(SeverityWarning, WarnClockOffset, m.Addr, fmt.Sprintf("clock %s %s ours: harmless alone (Redlock needs "+
				"clocks to tick at the same rate, not to agree), but a clock set by hand may jump", ShortDuration(abs(m.ClockOffset)),
				aheadOrBehind(sign(float64(m.ClockOffset)))))
		}
		if drifting(m) && !driftOurs {
			why = append(why, "drift")
			add(SeverityWarning, WarnClockDrift, m.Addr, fmt.Sprintf("clock runs %s than ours by %s: more than the drift "+
				"factor %g allows; its keys expire early or late", fasterOrSlower(sign(m.DriftPPM)), ppm(m.DriftPPM), cfg.DriftFactor))
		}
		clock := len(why) > 0
		if clock && !m.hist.clockWarned {
			events = append(events, Event{Time: now, Kind: EventClockWarning, Master: m.Addr,
				Text: "clock " + strings.Join(why, " and ") + " beyond the allowance"})
		}
		m.hist.clockWarned = clock
	}
	for i := range s.Masters {
		m := &s.Masters[i]
		for _, w := range ws {
			if w.Master == m.Addr {
				m.Warnings = append(m.Warnings, w.Text)
			}
		}
	}
	return ws, events
}

// sameWay reports whether every master that answers with a known value (two at least) is flagged by bad, in
// the same direction of value; it returns that direction's sign.
func sameWay(ms []MasterStatus, bad func(*MasterStatus) bool, value func(*MasterStatus) float64) (bool, float64) {
	n, dir := 0, 0.0
	for i := range ms {
		m := &ms[i]
		if !m.Up || !m.ClockKnown {
			continue
		}
		if !bad(m) {
			return false, 0
		}
		sg := sign(value(m))
		if n > 0 && sg != dir {
			return false, 0
		}
		n, dir = n+1, sg
	}
	return n >= 2, dir
}

// sign is -1, 0 or 1.
func sign(x float64) float64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// aheadOrBehind names the direction of a clock offset's sign.
func aheadOrBehind(sg float64) string {
	if sg < 0 {
		return "behind"
	}
	return "ahead of"
}

// fasterOrSlower names the direction of a drift's sign.
func fasterOrSlower(sg float64) string {
	if sg < 0 {
		return "slower"
	}
	return "faster"
}

// ppm writes a clock rate compactly: "350 ppm", or "27.8%" for a clock far off.
func ppm(p float64) string {
	p = math.Abs(p)
	if p >= 10000 {
		return fmt.Sprintf("%.1f%%", p/1e4)
	}
	return fmt.Sprintf("%.0f ppm", p)
}

// ShortDuration writes a duration rounded to what matters, for sentences and table cells: 850ms, 8.2s, 42s,
// 12m05s, 3h04m, 5d.
func ShortDuration(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	switch {
	case d < time.Second:
		return neg + strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < 10*time.Second:
		return neg + fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return neg + fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return neg + fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 100*time.Hour:
		return neg + fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return neg + fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Progress describes the sweep in a few words: "41% of 1,000,000 keys" or "12,000 keys".
func (w Sweep) Progress() string {
	if w.Total > 0 {
		return fmt.Sprintf("%d%% of %s keys", min(100, w.Scanned*100/w.Total), thousands(w.Total))
	}
	return thousands(w.Scanned) + " keys"
}

// thousands formats n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural returns "1 poll", "2 polls".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// driftTooFast reports whether a clock drifting ppm would, over ttl, drift more than the allowance for ttl
// (with no TTL seen: whether it is faster than the drift factor).
func driftTooFast(ppm float64, ttl time.Duration, factor float64) bool {
	rate := ppm / 1e6
	if rate < 0 {
		rate = -rate
	}
	if ttl <= 0 {
		return rate > factor
	}
	return time.Duration(rate*float64(ttl)) > driftAllowance(ttl, factor)
}

// abs returns |d|.
func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// appendEvents returns prev's events followed by the new ones, keeping the last maxEvents, in a new slice.
func appendEvents(prev *Snapshot, events []Event, maxEvents int) []Event {
	var old []Event
	if prev != nil {
		old = prev.Events
	}
	total := len(old) + len(events)
	if total > maxEvents {
		drop := total - maxEvents
		if drop >= len(old) {
			events = events[drop-len(old):]
			old = nil
		} else {
			old = old[drop:]
		}
	}
	out := make([]Event, 0, len(old)+len(events))
	return append(append(out, old...), events...)
}
