package monitor

import (
	"fmt"
	"sort"
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
	// maxForeignWarnings caps the warnings naming held locks with foreign tokens; the rest are counted in one.
	maxForeignWarnings = 10
	// rttWeight is the EWMA weight of the newest RTT sample (1/8, as TCP's smoothed RTT).
	rttWeight = 8
)

// driftAllowance is the Redlock allowance for clock drift over d.
func driftAllowance(d time.Duration, factor float64) time.Duration {
	return time.Duration(float64(d)*factor) + driftFixed
}

// Aggregate computes the snapshot that follows prev (nil for the first) given one reading per master, in the
// order of the masters, the tokens registered as ours (resource to token) and the current time. It is pure: all
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
		s.Masters[i], ev = masterStatus(p, r, now, cfg.DriftFactor)
		events = append(events, ev...)
		if s.Masters[i].Up {
			s.UpCount++
		}
		s.NotLocks += r.NotLocks
		s.Truncated = s.Truncated || r.Truncated
	}

	var lockEvents []Event
	s.Locks, lockEvents = aggregateLocks(prev, readings, s.Masters, own, now, cfg)
	events = append(events, lockEvents...)
	for _, r := range readings {
		for _, k := range r.Keys {
			s.maxTTL = max(s.maxTTL, k.PTTL)
		}
	}

	var clockEvents []Event
	s.Warnings, clockEvents = warnings(&s, now, cfg)
	events = append(events, clockEvents...)
	s.Events = appendEvents(prev, events, cfg.MaxEvents)
	return s
}

// masterStatus derives one master's status from its reading and its previous status (nil when first seen),
// with the events of the transition.
func masterStatus(p *MasterStatus, r Reading, now time.Time, driftFactor float64) (MasterStatus, []Event) {
	var events []Event
	event := func(kind EventKind, text string) {
		events = append(events, Event{Time: now, Kind: kind, Master: r.Addr, Text: text})
	}
	if r.Err != nil {
		ms := MasterStatus{Addr: r.Addr, Role: "unknown", Replicas: -1, hist: masterHistory{infoUptime: UnknownUptime}}
		if p != nil {
			ms = *p
		}
		ms.Up, ms.Err, ms.Keys, ms.Uptime, ms.Warnings = false, r.Err.Error(), 0, UnknownUptime, nil
		if p == nil || p.Up {
			event(EventMasterDown, "down: "+r.Err.Error())
		}
		return ms, events
	}

	ms := MasterStatus{
		Addr:       r.Addr,
		Up:         true,
		Role:       r.Role,
		Version:    r.Version,
		RunID:      r.RunID,
		Uptime:     r.Uptime,
		Replicas:   r.Replicas,
		Keys:       len(r.Keys),
		Incomplete: r.Incomplete,
		hist:       masterHistory{infoUptime: UnknownUptime},
	}
	if ms.Role == "" {
		ms.Role = "unknown"
	}
	if p != nil {
		ms.RTTSmoothed = p.RTTSmoothed
		ms.ClockKnown, ms.ClockOffset, ms.ClockUncertainty = p.ClockKnown, p.ClockOffset, p.ClockUncertainty
		ms.DriftPPM, ms.DriftKnown = p.DriftPPM, p.DriftKnown
		ms.LastRestart = p.LastRestart
		ms.hist = p.hist
		if !p.Up {
			event(EventMasterUp, "up again")
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
		ms.LastRestart = now
		if r.Uptime >= 0 {
			ms.LastRestart = now.Add(-r.Uptime)
		}
		ms.hist.driftRefAt = time.Time{} // a new process: measure its clock afresh
		ms.DriftKnown, ms.DriftPPM = false, 0
		event(EventMasterRestarted, restartText(p, r))
	}
	if r.Uptime >= 0 {
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
			float64(h.driftRefUnc+ms.ClockUncertainty)/float64(elapsed) <= driftFactor/4 {
			ms.DriftPPM = float64(ms.ClockOffset-h.driftRef) / float64(elapsed) * 1e6
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
	return fmt.Sprintf("restarted: uptime went back from %v to %v", p.hist.infoUptime, r.Uptime)
}

// aggregateLocks builds one LockView per resource seen on any master (plus our registered ones), sorted by
// resource, carrying history from prev, with the lock events.
func aggregateLocks(prev *Snapshot, readings []Reading, masters []MasterStatus, own map[string]OwnLock, now time.Time, cfg Config) ([]LockView, []Event) {
	n := len(readings)
	quorum := n/2 + 1

	index := map[string]int{}
	var resources []string
	for _, r := range readings {
		for _, k := range r.Keys {
			if _, ok := index[k.Key]; !ok {
				index[k.Key] = 0
				resources = append(resources, k.Key)
			}
		}
	}
	for res := range own {
		if _, ok := index[res]; !ok {
			index[res] = 0
			resources = append(resources, res)
		}
	}
	sort.Strings(resources)
	for i, res := range resources {
		index[res] = i
	}

	views := make([]LockView, len(resources))
	cells := make([]MasterLock, len(resources)*n)
	// expiry is, per cell, when its key expires relative to now, as estimated from its PTTL and read time.
	expiry := make([]time.Duration, len(resources)*n)
	for j := range n {
		if !masters[j].Up {
			for i := range resources {
				cells[i*n+j].Down = true
			}
		}
	}
	for j, r := range readings {
		if r.Err != nil {
			continue
		}
		for _, k := range r.Keys {
			c := index[k.Key]*n + j
			if cells[c].Present { // SCAN may return a key twice
				continue
			}
			cells[c] = MasterLock{Present: true, Token: k.Value, PTTL: k.PTTL}
			expiry[c] = k.PTTL
			if !k.ReadAt.IsZero() {
				expiry[c] += k.ReadAt.Sub(now)
			}
		}
	}

	var events []Event
	var prevLocks []LockView
	if prev != nil {
		prevLocks = prev.Locks
	}
	var arena []tokenSeen // backs every view's hist.tokens
	pi := 0
	for i, res := range resources {
		v := &views[i]
		v.Resource = res
		v.Masters = cells[i*n : (i+1)*n : (i+1)*n]
		for pi < len(prevLocks) && prevLocks[pi].Resource < res {
			events = append(events, releasedEvent(&prevLocks[pi], now))
			pi++
		}
		var p *LockView
		if pi < len(prevLocks) && prevLocks[pi].Resource == res {
			p = &prevLocks[pi]
			pi++
		}
		ownLock, isOwn := own[res]
		arena = classify(v, expiry[i*n:(i+1)*n], quorum, ownLock.Token, isOwn, cfg, arena)
		events = history(v, p, prev != nil, now, events)
	}
	for ; pi < len(prevLocks); pi++ {
		events = append(events, releasedEvent(&prevLocks[pi], now))
	}
	return views, events
}

// releasedEvent records that a resource seen before has no key on any master any more.
func releasedEvent(p *LockView, now time.Time) Event {
	text := "released or expired"
	if p.Holder != "" {
		text = fmt.Sprintf("released or expired (was held by %q)", p.Holder)
	}
	return Event{Time: now, Kind: EventLockReleased, Resource: p.Resource, Text: text}
}

// tokenCount is how many masters hold a token for one resource.
type tokenCount struct {
	token string
	count int
}

// classify computes the state, holder, validity and flags of v from its per-master cells; expiry gives, per
// master, when its key expires relative to now. It records v's tokens in hist.tokens, taken from arena, and
// returns the arena for the next view.
func classify(v *LockView, expiry []time.Duration, quorum int, ownToken string, isOwn bool, cfg Config, arena []tokenSeen) []tokenSeen {
	var buf [8]tokenCount
	counts := buf[:0]
	for _, c := range v.Masters {
		if !c.Present {
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
	if len(arena)+len(counts) > cap(arena) {
		arena = make([]tokenSeen, 0, max(1024, 2*len(counts)))
	}
	start := len(arena)
	for _, tc := range counts {
		arena = append(arena, tokenSeen{token: tc.token})
	}
	v.hist.tokens = arena[start:len(arena):len(arena)]

	if lead < 0 {
		if isOwn {
			v.Mine, v.State = true, StateLost
		}
		return arena
	}
	v.Count = counts[lead].count

	// The lead token's expiries, longest first (insertion sort: there are at most N).
	var ebuf [8]time.Duration
	exp := ebuf[:0]
	for j, c := range v.Masters {
		if c.Present && c.Token == counts[lead].token {
			exp = append(exp, expiry[j])
			for k := len(exp) - 1; k > 0 && exp[k] > exp[k-1]; k-- {
				exp[k], exp[k-1] = exp[k-1], exp[k]
			}
		}
	}
	v.TTLSpread = exp[0] - exp[len(exp)-1]
	// Held needs a quorum of one token and validity left after the drift
	// allowance; a quorum whose keys are about to expire is not a lock.
	if v.Count >= quorum {
		remaining := exp[quorum-1]
		v.Validity = max(0, remaining-driftAllowance(remaining, cfg.DriftFactor))
	}
	switch {
	case v.Validity > 0:
		v.State, v.Holder = StateHeld, counts[lead].token
		v.Foreign = len(counts) > 1
	case len(counts) == 1:
		v.State = StatePartial
	default:
		v.State = StateSplit
	}
	if isOwn {
		v.Mine = true
		if v.Holder != ownToken {
			v.State = StateLost
		}
	}
	return arena
}

// history carries first sightings, holder changes and their time from p (nil when the resource is new) into v,
// and appends the events of the transition to events. Lock events are not raised for the first snapshot, which
// only describes what is there.
func history(v, p *LockView, hasPrev bool, now time.Time, events []Event) []Event {
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
		if t.token == v.Holder && v.Holder != "" {
			v.HeldSince = t.since
		}
	}
	event := func(kind EventKind, text string) {
		if hasPrev {
			events = append(events, Event{Time: now, Kind: kind, Resource: v.Resource, Text: text})
		}
	}
	if p == nil {
		v.hist.lastHolder = v.Holder
		switch v.State {
		case StateLost:
			event(EventLockLost, "our lock is on no quorum")
		case StateSplit:
			event(EventLockAppeared, fmt.Sprintf("appeared split, %d masters with the most common token", v.Count))
		case StateHeld:
			event(EventLockAppeared, fmt.Sprintf("appeared, held by %q", v.Holder))
		default:
			event(EventLockAppeared, fmt.Sprintf("appeared on %d masters", v.Count))
		}
		return events
	}
	v.Changes, v.LastChange, v.hist.lastHolder = p.Changes, p.LastChange, p.hist.lastHolder
	if v.Holder != "" {
		if v.hist.lastHolder != "" && v.hist.lastHolder != v.Holder {
			v.Changes++
			v.LastChange = now
			event(EventHolderChanged, fmt.Sprintf("holder changed from %q to %q", v.hist.lastHolder, v.Holder))
		}
		v.hist.lastHolder = v.Holder
	}
	if v.State == StateSplit && p.State != StateSplit {
		event(EventLockSplit, fmt.Sprintf("split: %d tokens, none on a quorum", len(v.hist.tokens)))
	}
	if v.State == StateLost && p.State != StateLost {
		event(EventLockLost, "our lock is on no quorum")
	}
	return events
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
		add(SeverityError, WarnQuorumDown, "", fmt.Sprintf("only %d of %d masters up, quorum is %d: no lock can be acquired", s.UpCount, n, s.Quorum))
	}
	if n < 3 || n%2 == 0 {
		add(SeverityWarning, WarnMasterCount, "", fmt.Sprintf("%d masters: use an odd number, at least 3", n))
	}
	byRunID := map[string]int{}
	for i, m := range s.Masters {
		if !m.Up || m.RunID == "" {
			continue
		}
		if first, ok := byRunID[m.RunID]; ok {
			add(SeverityError, WarnDuplicate, m.Addr, fmt.Sprintf("same server as %s (run_id %s): the quorum is miscounted", s.Masters[first].Addr, m.RunID))
			continue
		}
		byRunID[m.RunID] = i
	}
	if s.Truncated {
		add(SeverityWarning, WarnTruncated, "", "more lock keys than tracked: some locks are not shown")
	}
	foreign := 0
	for _, l := range s.Locks {
		if l.State == StateLost {
			add(SeverityError, WarnLockLost, "", fmt.Sprintf("our lock on %q has no quorum", l.Resource))
		}
		if !l.Foreign {
			continue
		}
		if foreign++; foreign <= maxForeignWarnings {
			var others []string
			for j, c := range l.Masters {
				if c.Present && c.Token != l.Holder {
					others = append(others, s.Masters[j].Addr)
				}
			}
			add(SeverityWarning, WarnForeignTokens, "", fmt.Sprintf("lock %q is held but another token is on %s", l.Resource, strings.Join(others, ", ")))
		}
	}
	if foreign > maxForeignWarnings {
		add(SeverityWarning, WarnForeignTokens, "", fmt.Sprintf("and %d more held locks with another token on some master", foreign-maxForeignWarnings))
	}

	allowance := driftAllowance(s.maxTTL, cfg.DriftFactor)
	for i := range s.Masters {
		m := &s.Masters[i]
		if !m.Up {
			add(SeverityWarning, WarnMasterDown, m.Addr, "down: "+m.Err)
			continue
		}
		if m.Incomplete {
			add(SeverityWarning, WarnIncomplete, m.Addr, fmt.Sprintf("scan stopped at the %v timeout after %d lock keys: the rest are not shown", cfg.Timeout, m.Keys))
		}
		if m.Role == "slave" {
			add(SeverityError, WarnReplica, m.Addr, "is a replica: Redlock needs independent masters")
		}
		if m.Replicas > 0 {
			add(SeverityWarning, WarnHasReplicas, m.Addr, fmt.Sprintf("has %d replicas: a failover can break mutual exclusion", m.Replicas))
		}
		if !m.LastRestart.IsZero() && now.Sub(m.LastRestart) < s.maxTTL {
			add(SeverityError, WarnRestart, m.Addr, fmt.Sprintf("restarted %v ago, less than the longest TTL seen (%v): it may grant a lock others still hold",
				now.Sub(m.LastRestart).Round(time.Second), s.maxTTL))
		}
		clock := false
		if m.ClockKnown && s.maxTTL > 0 && abs(m.ClockOffset)-m.ClockUncertainty > allowance {
			clock = true
			add(SeverityWarning, WarnClockOffset, m.Addr, fmt.Sprintf("clock offset %v exceeds the drift allowance %v of the longest TTL", m.ClockOffset, allowance))
		}
		if m.DriftKnown && driftTooFast(m.DriftPPM, s.maxTTL, cfg.DriftFactor) {
			clock = true
			add(SeverityWarning, WarnClockDrift, m.Addr, fmt.Sprintf("clock drifts %.0f ppm, more than the drift factor %g allows", m.DriftPPM, cfg.DriftFactor))
		}
		if clock && !m.hist.clockWarned {
			events = append(events, Event{Time: now, Kind: EventClockWarning, Master: m.Addr, Text: "clock offset or drift over the drift allowance"})
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
