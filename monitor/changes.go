package monitor

import (
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"time"
)

// A poll with changes: every master's reading is a delta of the snapshot before (canReuse), and a few keys
// were read. Such a poll looks again only at the resources it must (changedResources): the keys read, those
// some master could not read, ours, the hidden ones, and the locks whose time to change with nothing read
// has come (Snapshot.quietEnds). Every other lock is the snapshot before's row as it was, and the passes
// after (hold logs, counts, multi-key groups, the time to the next change) touch only what was looked at, so
// that the poll costs what changed, not the number of locks. The rows so taken keep their cells and tokens
// in the arrays of the poll that built them; Snapshot.shared bounds what those arrays keep alive, and past
// it a poll builds every lock in new arrays.

// lockChanges is what a poll with changes looked at again.
type lockChanges struct {
	resources []string // sorted
	built     []int    // where the views it built are in its locks, in order
}

// aggregateChanges builds the views of a poll with changes (see above), and returns what it looked at; nil,
// having built nothing, when prev lacks what it needs (its rows' lead tokens and quiet ends, which a
// snapshot not made by Aggregate lacks), or when the arrays the rows taken as they were keep alive would
// grow past sharedBound: then every lock is built again, in new arrays, which frees the old ones.
func (b *lockBuilder) aggregateChanges() *lockChanges {
	prev := b.prev
	if len(prev.leads) != len(prev.Locks) || len(prev.quietEnds) != len(prev.Locks) {
		return nil
	}
	resources := changedResources(prev, b.readings, b.own, b.now)
	if prev.shared+len(resources) > sharedBound(len(prev.Locks)) {
		return nil
	}
	n := len(b.readings)
	index := make(map[string]int, len(resources))
	for i, res := range resources {
		index[res] = i
	}
	cells, read := readCells(b.readings, index, len(resources), b.now, b.cfg.Interval)
	size := len(prev.Locks) + len(resources)
	b.views, b.leads, b.quietEnds = make([]*LockView, 0, size), make([]uint64, 0, size), make([]int64, 0, size)
	b.slab = make([]LockView, 0, len(resources))
	changes := &lockChanges{resources: resources}
	var regroup []uint64 // the lead tokens of the multi-key locks built again, as they were
	at, hi := 0, 0
	for i, res := range resources {
		pos, found := seek(len(prev.Locks), at, res, func(k int) string { return prev.Locks[k].Resource })
		b.takeAsTheyWere(at, pos)
		at = pos
		var p *LockView
		if found {
			p, at = prev.Locks[pos], pos+1
		}
		for hi < len(prev.hidden) && prev.hidden[hi].Resource < res {
			hi++
		}
		row, rowRead := cells[i*n:(i+1)*n:(i+1)*n], read[i*n:(i+1)*n]
		if p != nil && unchanged(p, rowRead, b.notRead[res], b.own, b.now) {
			b.takeAsTheyWere(pos, pos+1)
			continue
		}
		if p != nil && p.Keys != nil {
			regroup = append(regroup, prev.leads[pos])
		}
		before := p
		if p == nil && hi < len(prev.hidden) && prev.hidden[hi].Resource == res {
			before = prev.hidden[hi]
		}
		count := len(b.views)
		if b.build(res, row, rowRead, p, before); len(b.views) > count {
			changes.built = append(changes.built, count)
			b.leads, b.quietEnds = append(b.leads, leadHash(b.views[count])), append(b.quietEnds, 0)
			regroup = append(regroup, b.leads[count])
		}
	}
	b.takeAsTheyWere(at, len(prev.Locks))
	regroupMultiKeyLocks(b.views, b.leads, regroup)
	return changes
}

// takeAsTheyWere appends prev's locks from..to, as they were, to the views, with their lead tokens and quiet ends.
func (b *lockBuilder) takeAsTheyWere(from, to int) {
	b.views = append(b.views, b.prev.Locks[from:to]...)
	b.leads = append(b.leads, b.prev.leads[from:to]...)
	b.quietEnds = append(b.quietEnds, b.prev.quietEnds[from:to]...)
}

// sharedBound is how many locks the polls with changes since the last that built every lock may have built,
// for a snapshot of locks locks: a quarter of them, so that the arrays the rows taken as they were keep alive
// hold at most a quarter more cells than the locks have; and at least 64, where building every lock is cheap.
func sharedBound(locks int) int {
	return max(locks/4, 64)
}

// changedResources returns, sorted, the resources a poll with changes after prev looks at again: the keys
// read and those some master could not read, ours now and in prev, prev's hidden ones, and prev's locks
// whose state could change with nothing read by now.
func changedResources(prev *Snapshot, readings []Reading, own map[string]OwnLock, now time.Time) []string {
	set := map[string]struct{}{}
	for _, r := range readings {
		for _, k := range r.Keys {
			set[k.Key] = struct{}{}
		}
		for _, k := range r.Unread {
			set[k] = struct{}{}
		}
	}
	for res := range own {
		set[res] = struct{}{}
	}
	for res := range prev.own {
		set[res] = struct{}{}
	}
	for _, h := range prev.hidden {
		set[h.Resource] = struct{}{}
	}
	due := nanosOf(now)
	for i, end := range prev.quietEnds {
		if end <= due {
			set[prev.Locks[i].Resource] = struct{}{}
		}
	}
	out := make([]string, 0, len(set))
	for res := range set {
		out = append(out, res)
	}
	slices.Sort(out)
	return out
}

// seek returns where res is, or would be, in a sorted list of n resources (resourceAt gives the i-th), looking
// from from on (res is not before it), and whether it is there. It gallops: a few steps when res is near.
func seek(n, from int, res string, resourceAt func(int) string) (int, bool) {
	lo, hi, step := from, from, 1
	for hi < n && resourceAt(hi) < res {
		lo, hi, step = hi+1, hi+step, step*2
	}
	hi = min(hi, n)
	i := lo + sort.Search(hi-lo, func(k int) bool { return resourceAt(lo+k) >= res })
	return i, i < n && resourceAt(i) == res
}

// leadSeed seeds the hashes of lead tokens (leadHash).
var leadSeed = maphash.MakeSeed()

// leadHash is the hash of v's token as multi-key grouping takes it (groupToken); 0 for a lock it leaves out.
func leadHash(v *LockView) uint64 {
	t, ok := groupToken(v)
	if !ok {
		return 0
	}
	return max(maphash.String(leadSeed, t), 1)
}

// leadHashes returns the lead token hash of each of views.
func leadHashes(views []*LockView) []uint64 {
	out := make([]uint64, len(views))
	for i, v := range views {
		out[i] = leadHash(v)
	}
	return out
}

// regroupMultiKeyLocks sets Keys again on the views whose lead token's hash (leads, aligned with views) is
// one of hashes: those of the locks a poll with changes built, and of the groups they were in. The other
// groups did not change. A view whose Keys change is replaced by a copy: it may be an earlier snapshot's.
func regroupMultiKeyLocks(views []*LockView, leads []uint64, hashes []uint64) {
	wanted := map[uint64]bool{}
	for _, h := range hashes {
		if h != 0 {
			wanted[h] = true
		}
	}
	if len(wanted) == 0 {
		return
	}
	byToken := map[string][]int{}
	for i, h := range leads {
		if wanted[h] {
			t, _ := groupToken(views[i])
			byToken[t] = append(byToken[t], i)
		}
	}
	for _, idx := range byToken {
		var keys []string
		if len(idx) > 1 {
			keys = make([]string, len(idx))
			for k, i := range idx {
				keys[k] = views[i].Resource
			}
		}
		for _, i := range idx {
			if !slices.Equal(views[i].Keys, keys) {
				v := *views[i]
				v.Keys = keys
				views[i] = &v
			}
		}
	}
}

// trackChangedHolders is trackHolders for a poll with changes: it moves the hold logs of the resources the
// poll looked at again, and takes the others as they were (their locks did not change, and no log leaves
// the window before prev.logsIdleAt, which the poll is before).
func (s *Snapshot) trackChangedHolders(prev *Snapshot, changes *lockChanges, gone map[string]EndKind, cfg Config) {
	logs := prev.holdLogs
	out := make([]*HoldLog, 0, len(logs)+len(changes.resources))
	s.logsIdleAt = prev.logsIdleAt
	li, pi, vi := 0, 0, 0
	for _, res := range changes.resources {
		st := holderStep{prevAt: prev.Time, prevSeq: prev.Seq, now: s.Time, since: s.Time.Add(-cfg.History), limit: cfg.MaxIntervals}
		pos, found := seek(len(logs), li, res, func(k int) string { return logs[k].Resource })
		out, li = append(out, logs[li:pos]...), pos
		if found {
			st.log, li = logs[pos], pos+1
		}
		st.p, pi = seekView(prev.Locks, pi, res)
		st.v, vi = seekView(s.Locks, vi, res)
		st.newLock = st.p == nil && st.log == nil && !prev.Swept
		if log := s.stepHolder(st, vi-1, gone); log != nil {
			out = append(out, log)
			s.logsIdleAt = earlier(s.logsIdleAt, log.IdleAt(cfg.History))
		}
	}
	s.holdLogs = append(out, logs[li:]...)
}

// seekView returns res's view in views (sorted, res not before from), or nil, and where to look from next.
func seekView(views []*LockView, from int, res string) (*LockView, int) {
	pos, found := seek(len(views), from, res, func(k int) string { return views[k].Resource })
	if !found {
		return nil, pos
	}
	return views[pos], pos + 1
}

// countChangedKeys is countKeys for a poll with changes: prev's counts, less the keys (and free locks) of the
// locks it looked at again as they were, plus theirs now.
func (s *Snapshot) countChangedKeys(prev *Snapshot, changes *lockChanges) {
	for j := range s.Masters {
		s.Masters[j].Keys = prev.Masters[j].Keys
	}
	s.freeLocks = prev.freeLocks
	pi, vi := 0, 0
	for _, res := range changes.resources {
		var p, v *LockView
		p, pi = seekView(prev.Locks, pi, res)
		v, vi = seekView(s.Locks, vi, res)
		if p != nil && p.hist.free {
			s.freeLocks--
		}
		if v != nil && v.hist.free {
			s.freeLocks++
		}
		for j := range s.Masters {
			if p != nil && p.Masters[j].Present() {
				s.Masters[j].Keys--
			}
			if v != nil && v.Masters[j].Present() {
				s.Masters[j].Keys++
			}
		}
	}
}

// keysUnchanged reports whether the poll with changes that made s refreshes the same keys as prev
// (keysToRefresh): each resource it looked at is a lock or a hidden key in both or in neither, with a fence
// counter in both or in neither.
func keysUnchanged(prev, s *Snapshot, changes *lockChanges) bool {
	if prev.fenceSuffix != s.fenceSuffix {
		return false
	}
	for _, res := range changes.resources {
		if refreshedKeys(prev, res) != refreshedKeys(s, res) {
			return false
		}
	}
	return true
}

// refreshedKeys is how many of res's keys the poll after s reads (keysToRefresh, our locks aside): none, its
// key, or its key and its fence counter.
func refreshedKeys(s *Snapshot, res string) int {
	if l := s.Lock(res); l != nil {
		if l.Fence > 0 {
			return 2
		}
		return 1
	}
	if hasResource(s.hidden, res) {
		return 1
	}
	return 0
}

// nanosOf is t in nanoseconds since 1970, for Snapshot.quietEnds: the lowest value for the zero time, the
// highest for a time past what an int64 holds (farFuture).
func nanosOf(t time.Time) int64 {
	switch {
	case t.IsZero():
		return math.MinInt64
	case t.Year() >= 2262:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// timeOf is the time nanosOf gave end for.
func timeOf(end int64) time.Time {
	switch end {
	case math.MinInt64:
		return time.Time{}
	case math.MaxInt64:
		return farFuture
	}
	return time.Unix(0, end)
}
