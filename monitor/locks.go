package monitor

import (
	"slices"
	"strings"
	"time"
)

// aggregateLocks builds one LockView per resource known on any master (plus our registered ones), sorted by
// resource, carrying history and the values of cells not read this time from prev (as read, on a master whose
// reading is a delta of prev's: delta, see deltas). It returns the views, those
// of the keys kept for refresh that are not shown, the lock events, and how many of prev's locks some master that
// answered could not read (its poll ran out of time before it reached them, or the read was not current).
func aggregateLocks(prev *Snapshot, readings []Reading, delta []bool, masters []MasterStatus, own map[string]OwnLock, now time.Time, cfg Config) ([]LockView, []LockView, []Event, int) {
	n := len(readings)
	quorum := n/2 + 1
	resources, index := resourcesOf(prev, readings, own)
	cells, read := readCells(readings, index, len(resources), now, cfg.Interval)
	dup := make([]bool, n)
	for j, m := range masters {
		dup[j] = m.health.sameAs != ""
	}
	var prevLocks, prevHidden []LockView
	if prev != nil {
		prevLocks, prevHidden = prev.Locks, prev.hidden
	}
	notRead := unreadByKey(readings)
	var (
		events []Event
		views  = make([]LockView, 0, len(resources))
		hidden []LockView
		arena  []tokenSeen // backs every view's hist.tokens
		pi, hi = 0, 0
		unread int
	)
	firstSweep := prev == nil || !prev.Swept
	reuse := canReuse(prev, masters, delta)
	for i, res := range resources {
		var p *LockView
		for pi < len(prevLocks) && prevLocks[pi].Resource < res {
			pi++
		}
		if pi < len(prevLocks) && prevLocks[pi].Resource == res {
			p = &prevLocks[pi]
		}
		for hi < len(prevHidden) && prevHidden[hi].Resource < res {
			hi++
		}
		row := cells[i*n : (i+1)*n : (i+1)*n]
		if reuse && p != nil && unchanged(p, read[i*n:(i+1)*n], notRead[res], own, now) {
			var v LockView
			v, arena = sameAgain(p, row, arena)
			views = append(views, v)
			continue
		}
		cellsBefore := p
		if p == nil && hi < len(prevHidden) && prevHidden[hi].Resource == res {
			cellsBefore = &prevHidden[hi]
		}
		carry(row, read[i*n:(i+1)*n], cellsBefore, delta, notRead[res], now)
		shareTokens(row)
		if p != nil && !readByAll(read[i*n:(i+1)*n], readings, dup) {
			unread++
		}
		ownLock := own[res]
		isOwn := ownLock.Token != ""
		if !kept(row) && !isOwn {
			if p != nil {
				events = append(events, goneEvent(p, ownLock.Deleted, prev.Time, now))
			}
			continue
		}
		v := LockView{Resource: res, Masters: row}
		setLock := isSetLock(row)
		if setLock {
			arena = classifySet(&v, dup, quorum, ownLock, isOwn, masters, now, cfg, arena)
		} else {
			arena = classify(&v, dup, quorum, ownLock, isOwn, now, cfg, arena)
		}
		nameResource(&v)
		if !isOwn && !shown(&v, cfg) {
			hidden = append(hidden, LockView{Resource: res, Masters: row})
			continue
		}
		events = history(&v, p, prev != nil && !(p == nil && firstSweep), now, events)
		if setLock {
			holdersSeen(&v)
		}
		views = append(views, v)
	}
	groupMultiKeyLocks(views)
	return views, hidden, events, unread
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
	var prevLocks, prevHidden []LockView
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
func hasResource(views []LockView, res string) bool {
	_, ok := slices.BinarySearchFunc(views, res, func(v LockView, res string) int { return strings.Compare(v.Resource, res) })
	return ok
}

// smallest is the smallest of the resources at locks[li], hidden[hi] and extra[ei], where any may be past its
// end (not all).
func smallest(locks []LockView, li int, hidden []LockView, hi int, extra []string, ei int) string {
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
// without one that looks like a stuck lock (the same value on more than one master, or matched by a pattern
// the user gave).
func shown(v *LockView, cfg Config) bool {
	if v.State != StateStuck {
		return true
	}
	return v.Count > 1 || cfg.Pattern != DefaultPattern
}

// multiKeyMinToken is the shortest token taken as random enough that the same token on two keys means one
// lock over both.
const multiKeyMinToken = 16

// groupMultiKeyLocks sets Keys on locks whose leading token is also another key's: clients such as node-redlock
// and bsm/redislock take one lock over several keys by writing one random token on all of them.
func groupMultiKeyLocks(views []LockView) {
	first := make(map[string]int, len(views)) // where each token was first seen
	var groups map[string][]int               // the tokens on more than one key: almost never any
	for i := range views {
		v := &views[i]
		t := LeadToken(v)
		if len(t) < multiKeyMinToken || v.Holders != nil || slices.ContainsFunc(v.Masters, func(c MasterLock) bool { return c.Hash }) {
			continue // a hash holder names a client thread, which may hold several locks; a set's holders are many
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
