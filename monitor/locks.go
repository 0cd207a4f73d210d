package monitor

import (
	"slices"
	"sort"
	"time"
)

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
		dup[j] = m.health.sameAs != ""
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
