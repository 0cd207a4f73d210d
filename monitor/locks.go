package monitor

import (
	"slices"
	"sort"
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
		row := cells[i*n : (i+1)*n : (i+1)*n]
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
// array would live as long as the lock stays unchanged. Its Keys are grouped again with the others.
func sameAgain(p *LockView, row []MasterLock, arena []tokenSeen) (LockView, []tokenSeen) {
	v := *p
	copy(row, p.Masters)
	v.Masters, v.Keys = row, nil
	if len(arena)+len(p.hist.tokens) > cap(arena) {
		arena = make([]tokenSeen, 0, max(1024, 2*len(p.hist.tokens)))
	}
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
// registered as ours, with the index of each.
func resourcesOf(prev *Snapshot, readings []Reading, own map[string]OwnLock) ([]string, map[string]int) {
	index := map[string]int{}
	var resources []string
	add := func(res string) {
		if _, ok := index[res]; !ok {
			index[res] = 0
			resources = append(resources, res)
		}
	}
	for _, r := range readings {
		for _, k := range r.Keys {
			add(k.Key)
		}
	}
	if prev != nil {
		for _, l := range prev.Locks {
			add(l.Resource)
		}
		for _, h := range prev.hidden {
			add(h.Resource)
		}
	}
	for res := range own {
		add(res)
	}
	sort.Strings(resources)
	for i, res := range resources {
		index[res] = i
	}
	return resources, index
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
	byToken := map[string][]int{}
	for i := range views {
		v := &views[i]
		t := LeadToken(v)
		if len(t) < multiKeyMinToken || v.Holders != nil || slices.ContainsFunc(v.Masters, func(c MasterLock) bool { return c.Hash }) {
			continue // a hash holder names a client thread, which may hold several locks; a set's holders are many
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
