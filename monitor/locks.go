package monitor

import (
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// aggregateLocks builds one LockView per resource known on any master (plus our registered ones), sorted by
// resource, carrying history and the values of cells not read this time from prev (as read, on a master whose
// reading is a delta of prev's: delta, see deltas). It returns a builder holding the views, those
// of the keys kept for refresh that are not shown, the lock events, and how many of prev's locks some master
// that answered could not read (its poll ran out of time before it reached them, or the read was not
// current); and what it looked at again when it took the other locks of prev as they were (see
// aggregateChanges; nil when it built them all).
func aggregateLocks(prev *Snapshot, readings []Reading, delta []bool, masters []MasterStatus, own map[string]OwnLock, now time.Time, cfg Config) (*lockBuilder, *lockChanges) {
	b := newLockBuilder(prev, readings, delta, masters, own, now, cfg)
	if canReuse(prev, masters, delta) {
		if changes := b.aggregateChanges(); changes != nil {
			return b, changes
		}
	}
	n := len(readings)
	resources, index := resourcesOf(prev, readings, own)
	cells, read := readCells(readings, index, len(resources), now, cfg.Interval)
	var prevLocks, prevHidden []*LockView
	if prev != nil {
		prevLocks, prevHidden = prev.Locks, prev.hidden
	}
	reuse := canReuse(prev, masters, delta)
	b.views, b.slab = make([]*LockView, 0, len(resources)), make([]LockView, 0, len(resources))
	pi, hi := 0, 0
	for i, res := range resources {
		var p *LockView
		for pi < len(prevLocks) && prevLocks[pi].Resource < res {
			pi++
		}
		if pi < len(prevLocks) && prevLocks[pi].Resource == res {
			p = prevLocks[pi]
		}
		for hi < len(prevHidden) && prevHidden[hi].Resource < res {
			hi++
		}
		row, rowRead := cells[i*n:(i+1)*n:(i+1)*n], read[i*n:(i+1)*n]
		if reuse && p != nil && unchanged(p, rowRead, b.notRead[res], own, now) {
			var v LockView
			v, b.arena = sameAgain(p, row, b.arena)
			b.views = append(b.views, b.keep(v))
			continue
		}
		before := p
		if p == nil && hi < len(prevHidden) && prevHidden[hi].Resource == res {
			before = prevHidden[hi]
		}
		b.build(res, row, rowRead, p, before)
	}
	groupMultiKeyLocks(b.views)
	b.leads = leadHashes(b.views)
	return b, nil
}

// lockBuilder builds the views of one poll (aggregateLocks).
type lockBuilder struct {
	prev       *Snapshot
	readings   []Reading
	delta      []bool
	dup        []bool // the masters that are another's duplicate
	masters    []MasterStatus
	own        map[string]OwnLock
	notRead    map[string]uint64 // the keys some master could not read (unreadByKey)
	now        time.Time
	cfg        Config
	firstSweep bool // the poll is part of the first sweep: a lock seen for the first time was not acquired now

	views, hidden []*LockView
	slab          []LockView // backs the views built: as many as the resources looked at, so that it never moves
	leads         []uint64   // aligned with views: their lead tokens' hashes (leadHash)
	quietEnds     []int64    // aligned with views: those of the rows taken as they were (the others noteQuietUntil sets)
	events        []Event
	arena         []tokenSeen // backs the built views' hist.tokens
	unread        int
	seq           uint64 // the sequence number of the snapshot being built
}

// newLockBuilder returns a builder of the views of the poll that follows prev.
func newLockBuilder(prev *Snapshot, readings []Reading, delta []bool, masters []MasterStatus, own map[string]OwnLock, now time.Time, cfg Config) *lockBuilder {
	b := &lockBuilder{prev: prev, readings: readings, delta: delta, dup: make([]bool, len(readings)), masters: masters,
		own: own, notRead: unreadByKey(readings), now: now, cfg: cfg, firstSweep: prev == nil || !prev.Swept, seq: 1}
	if prev != nil {
		b.seq = prev.Seq + 1
	}
	for j, m := range masters {
		b.dup[j] = m.health.sameAs != ""
	}
	return b
}

// build classifies res from its cells (row; read: those this poll decided), its view in prev (p, nil if none)
// and the cells it had before (before: p, or prev's hidden view of it), and appends its view to the views or
// the hidden ones, or its event when it is gone.
func (b *lockBuilder) build(res string, row []MasterLock, read []bool, p, before *LockView) {
	if p != nil { // an overwrite p's poll told is told now, confirmed or not, whatever becomes of the lock
		b.events = lockMove{v: p, p: p, announce: true, masters: b.masters}.confirmOverwrite(b.events, b.now)
	}
	quorum := len(b.readings)/2 + 1
	carry(row, read, before, b.delta, b.notRead[res], b.now)
	shareTokens(row)
	if p != nil && !readByAll(read, b.readings, b.dup) {
		b.unread++
	}
	ownLock := b.own[res]
	isOwn := ownLock.Token != ""
	if !kept(row) && !isOwn {
		if p != nil && !p.hist.free {
			b.events = append(b.events, goneEvent(p, ownLock.Deleted, b.masters, b.prev.Time, b.now))
		}
		if until := b.freeUntil(res); !until.IsZero() {
			b.buildFree(res, row, p, until)
		}
		return
	}
	v := LockView{Resource: res, Masters: row}
	v.hist.builtIn = b.seq
	setLock := isSetLock(row)
	if setLock {
		b.arena = classifySet(&v, b.dup, quorum, ownLock, isOwn, b.masters, b.now, b.cfg, b.arena)
	} else {
		b.arena = classify(&v, b.dup, quorum, ownLock, isOwn, b.now, b.cfg, b.arena)
	}
	nameResource(&v)
	if !isOwn && !shown(&v, b.cfg) {
		b.hidden = append(b.hidden, &LockView{Resource: res, Masters: row})
		return
	}
	announce := b.prev != nil && !(p == nil && b.firstSweep)
	if p != nil && p.hist.free { // taken again: it appears, as a lock gone and back does, keeping its count
		b.events = history(&v, nil, announce, b.masters, b.now, b.events)
		v.Changes, v.LastChange = p.Changes, p.LastChange
		if announce {
			b.events = afterExpiry(&v, b.prev.HoldLog(res), b.masters, b.now, b.events)
		}
	} else {
		b.events = history(&v, p, announce, b.masters, b.now, b.events)
	}
	if setLock {
		holdersSeen(&v)
	}
	b.views = append(b.views, b.keep(v))
}

// freeUntil is when the hold log of res, a resource with no key left, leaves the window, after this poll
// closes its holder's interval and its trouble: the lock is listed free until then. The zero time when it has
// no log, or nothing of it is left in the window (HoldLog.IdleAt).
func (b *lockBuilder) freeUntil(res string) time.Time {
	if b.prev == nil {
		return time.Time{}
	}
	log := b.prev.HoldLog(res)
	if log == nil {
		return time.Time{}
	}
	if _, held := log.Open(); held || log.TroubleOpen() { // this poll ends them
		return b.now.Add(b.cfg.History)
	}
	if at := log.IdleAt(b.cfg.History); at.After(b.now) {
		return at
	}
	return time.Time{}
}

// buildFree appends the view of res, a lock with no key on any master that answered (row: absent there,
// unknown on the others) whose holders are still in the window until until, as free (StateFree; unknown when
// the masters not read could hold it). It keeps from p, its view before (nil: none shown), its holder
// changes, its client's family and its key convention.
func (b *lockBuilder) buildFree(res string, row []MasterLock, p *LockView, until time.Time) {
	v := LockView{Resource: res, Masters: row}
	v.hist.builtIn, v.hist.free, v.hist.freeUntil = b.seq, true, nanosOf(until)
	b.arena = classify(&v, b.dup, len(b.readings)/2+1, OwnLock{}, false, b.now, b.cfg, b.arena)
	if v.State == StatePartial { // no token read, and too few masters not read to hold it
		v.State = StateFree
	}
	if p != nil { // a convention is told by its key and token: the token gone, the name is the last one's
		v.Changes, v.LastChange, v.Family, v.Families = p.Changes, p.LastChange, p.Family, p.Families
		v.Logical, v.Convention = p.Logical, p.Convention
	}
	b.views = append(b.views, b.keep(v))
}

// keep stores v in the slab, and returns where.
func (b *lockBuilder) keep(v LockView) *LockView {
	b.slab = append(b.slab, v)
	return &b.slab[len(b.slab)-1]
}

// canReuse reports whether this poll may take some of prev's locks as they are (unchanged): every master's
// reading is a delta of prev's (delta), and the masters that are each other's duplicates are the same.
func canReuse(prev *Snapshot, masters []MasterStatus, delta []bool) bool {
	if prev == nil || len(prev.Masters) != len(masters) {
		return false
	}
	for j, m := range masters {
		if !delta[j] || m.health.sameAs != prev.Masters[j].health.sameAs {
			return false
		}
	}
	return true
}

// unchanged reports whether p, a lock of the snapshot before, stands as it was, in a poll whose readings are
// all deltas of that snapshot's (canReuse): no master read its key (read, unread), it is not ours, and nothing
// that time alone changes has come (quietEnd: a TTL counted from its read, the holder's validity; a lock whose
// state waits on a poll never stands). A quiet poll takes every lock so; a poll with changes takes so those
// the changes did not touch, and builds only the others.
func unchanged(p *LockView, read []bool, unread uint64, own map[string]OwnLock, now time.Time) bool {
	if p.Mine || own[p.Resource].Token != "" || unread != 0 || !now.Before(quietEnd(p)) {
		return false
	}
	return !slices.Contains(read, true)
}

// sameAgain returns a copy of p, an unchanged lock of the snapshot before, with its cells copied into row and its
// tokens into arena, which it returns: a view must not keep a part of an earlier poll's arrays, or the whole
// array would live as long as the lock stays unchanged; and a poll's cells in one array are read faster than
// cells spread over the heap (measured: a fifth of this process's time at 100,000 locks). Its Keys are grouped
// again with the others.
func sameAgain(p *LockView, row []MasterLock, arena []tokenSeen) (LockView, []tokenSeen) {
	v := *p
	copy(row, p.Masters)
	v.Masters, v.Keys = row, nil
	arena = roomFor(arena, len(p.hist.tokens))
	start := len(arena)
	arena = append(arena, p.hist.tokens...)
	v.hist.tokens = arena[start:len(arena):len(arena)]
	return v, arena
}

// readByAll reports whether every master that answered (and is not another's duplicate) read the key whose
// cells read marks.
func readByAll(read []bool, readings []Reading, dup []bool) bool {
	for j, r := range readings {
		if r.Err == nil && !dup[j] && !read[j] {
			return false
		}
	}
	return true
}

// resourcesOf returns, sorted, every resource read on some master, shown or kept for refresh by prev, or
// registered as ours, and where each key read is among them. prev's lists are sorted already: the others are
// merged in, so that a poll that read a few keys does not sort every lock again.
func resourcesOf(prev *Snapshot, readings []Reading, own map[string]OwnLock) ([]string, map[string]int) {
	index := map[string]int{}
	for _, r := range readings {
		for _, k := range r.Keys {
			index[k.Key] = 0
		}
	}
	var prevLocks, prevHidden []*LockView
	if prev != nil {
		prevLocks, prevHidden = prev.Locks, prev.hidden
	}
	var extra []string // the keys read or ours that neither of prev's lists has
	for res := range index {
		if !hasResource(prevLocks, res) && !hasResource(prevHidden, res) {
			extra = append(extra, res)
		}
	}
	for res := range own {
		if _, read := index[res]; !read && !hasResource(prevLocks, res) && !hasResource(prevHidden, res) {
			extra = append(extra, res)
		}
	}
	slices.Sort(extra)
	resources := make([]string, 0, len(prevLocks)+len(prevHidden)+len(extra))
	li, hi, ei := 0, 0, 0
	for li < len(prevLocks) || hi < len(prevHidden) || ei < len(extra) {
		res := smallest(prevLocks, li, prevHidden, hi, extra, ei)
		for li < len(prevLocks) && prevLocks[li].Resource == res {
			li++
		}
		for hi < len(prevHidden) && prevHidden[hi].Resource == res {
			hi++
		}
		for ei < len(extra) && extra[ei] == res {
			ei++
		}
		if _, read := index[res]; read {
			index[res] = len(resources)
		}
		resources = append(resources, res)
	}
	return resources, index
}

// hasResource reports whether views, sorted by resource, has res.
func hasResource(views []*LockView, res string) bool {
	_, ok := slices.BinarySearchFunc(views, res, func(v *LockView, res string) int { return strings.Compare(v.Resource, res) })
	return ok
}

// smallest is the smallest of the resources at locks[li], hidden[hi] and extra[ei], where any may be past its
// end (not all).
func smallest(locks []*LockView, li int, hidden []*LockView, hi int, extra []string, ei int) string {
	var out string
	first := true
	take := func(res string) {
		if first || res < out {
			out, first = res, false
		}
	}
	if li < len(locks) {
		take(locks[li].Resource)
	}
	if hi < len(hidden) {
		take(hidden[hi].Resource)
	}
	if ei < len(extra) {
		take(extra[ei])
	}
	return out
}

// shown reports whether a tracked resource is listed as a lock: it has a TTL somewhere, or it is a key
// without one that looks like a stuck lock: the same value on more than one master, a name or value that marks
// it as a lock (lockshape.MarkedAsLock) on one master as on many, or matched by a pattern the user gave.
func shown(v *LockView, cfg Config) bool {
	if v.State != StateStuck {
		return true
	}
	return v.Count > 1 || cfg.Pattern != DefaultPattern || lockshape.MarkedAsLock(v.Resource, LeadToken(v))
}

// multiKeyMinToken is the shortest token taken as random enough that the same token on two keys means one
// lock over both.
const multiKeyMinToken = 16

// groupToken is v's token as multi-key grouping takes it, and whether it takes it: a token too short to be
// random, a hash holder (it names a client thread, which may hold several locks) and a set's holders (they
// are many) are left out.
func groupToken(v *LockView) (string, bool) {
	t := LeadToken(v)
	if len(t) < multiKeyMinToken || v.Holders != nil || slices.ContainsFunc(v.Masters, func(c MasterLock) bool { return c.Hash() }) {
		return "", false
	}
	return t, true
}

// groupMultiKeyLocks sets Keys on locks whose leading token is also another key's: clients such as node-redlock
// and bsm/redislock take one lock over several keys by writing one random token on all of them.
func groupMultiKeyLocks(views []*LockView) {
	first := make(map[string]int, len(views)) // where each token was first seen
	var groups map[string][]int               // the tokens on more than one key: almost never any
	for i := range views {
		t, ok := groupToken(views[i])
		if !ok {
			continue
		}
		at, seen := first[t]
		if !seen {
			first[t] = i
			continue
		}
		if groups == nil {
			groups = map[string][]int{}
		}
		if groups[t] == nil {
			groups[t] = []int{at}
		}
		groups[t] = append(groups[t], i)
	}
	for _, idx := range groups {
		keys := make([]string, len(idx))
		for k, i := range idx {
			keys[k] = views[i].Resource
		}
		for _, i := range idx {
			views[i].Keys = keys
		}
	}
}
