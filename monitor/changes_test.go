package monitor

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// changeModel is what five masters hold, by resource, for TestPollsWithChangesMatchPollsThatReadEveryKey.
type changeModel struct {
	cells map[string][]modelCell
	rng   *rand.Rand
}

// modelCell is one master's key: absent when tok is "".
type modelCell struct {
	tok    string
	pttl   time.Duration
	readAt time.Time
}

// TestPollsWithChangesMatchPollsThatReadEveryKey: over 80 polls of random changes to 40 locks on five masters
// (new holders, partial and split writes, deletions, keys without a TTL, one token on several keys, short
// TTLs running out, new locks), the snapshots built from deltas (polls with changes: most locks taken as they
// were) equal those built by reading every key at every poll: the locks, their hold logs, each master's key
// count, the warnings, the time to the next change and the keys the next poll refreshes; and no poll changes
// a view of the snapshot before, which it shares.
func TestPollsWithChangesMatchPollsThatReadEveryKey(t *testing.T) {
	t.Parallel()
	m := changeModel{cells: map[string][]modelCell{}, rng: rand.New(rand.NewPCG(7, 24))}
	now := t0
	for i := range 40 {
		m.set(fmt.Sprintf("lock:%02d", i), m.token(), 5, time.Hour, now)
	}
	first := m.readings(now, nil, 1)
	cfg := Config{History: 5 * time.Second} // hold logs leave the window: some polls with changes move them all
	byDelta := Aggregate(nil, first, nil, now, cfg)
	byFull := byDelta
	tookSome, builtAll := false, false
	for step := range 80 {
		now = now.Add(500 * time.Millisecond)
		changed := m.change(now)
		seq := uint64(step + 2)
		delta := m.readings(now, changed, seq)
		for j := range delta {
			delta[j].Delta, delta[j].DeltaOf = true, seq-1
		}
		before, kept := byDelta, copyViews(byDelta)
		byDelta = Aggregate(&byDelta, delta, nil, now, cfg)
		if res := changedView(before, kept); res != "" {
			t.Fatalf("poll %d (changed %v): changed the view of %s of the snapshot before", step+2, changed, res)
		}
		if byDelta.sameKeys && !slices.Equal(byDelta.keysToRefresh(nil), before.keysToRefresh(nil)) {
			t.Fatalf("poll %d (changed %v): said to refresh the keys of the poll before, refreshes others", step+2, changed)
		}
		byFull = Aggregate(&byFull, m.readings(now, nil, seq), nil, now, cfg)
		if byDelta.shared > 0 {
			tookSome = true
		} else if step > 0 {
			builtAll = true
		}
		if diff := snapshotDiff(byDelta, byFull, now); diff != "" {
			t.Fatalf("poll %d (changed %v): by deltas and by reading every key differ: %s", step+2, changed, diff)
		}
	}
	if !tookSome || !builtAll {
		t.Errorf("polls with changes taking locks as they were: %v; polls building every lock again: %v; want both", tookSome, builtAll)
	}
}

// TestAPollWithChangesCountsWaitersAndFencesOnCopies: a poll with changes that counts the waiters of a lock
// it took as it was, and reads a higher fence counter for another, shows both, and leaves the views of the
// snapshot before, which it shares, as they were.
func TestAPollWithChangesCountsWaitersAndFencesOnCopies(t *testing.T) {
	first := fixture(t0, addrs5, map[string][]cell{"lock:a": cells("A", 5), "lock:b": cells("B", 5), "lock:c": cells("C", 5)})
	for i := range first {
		first[i].Seq = 1
	}
	s1 := Aggregate(nil, first, nil, t0, Config{})
	kept := copyViews(s1)
	at := t0.Add(time.Millisecond)
	delta := fixture(at, addrs5, map[string][]cell{"lock:b": cells("D", 5)})
	for i := range delta {
		delta[i].Seq, delta[i].Delta, delta[i].DeltaOf = 2, true, 1
		delta[i].Keys = append(delta[i].Keys, KeyReading{Key: "lock:c" + DefaultFenceSuffix, Value: "7", PTTL: NoTTL, ReadAt: at})
	}
	delta[1].Waiters = map[string]int{"lock:a": 3}
	s2 := Aggregate(&s1, delta, nil, at, Config{})
	if s2.shared == 0 {
		t.Fatal("the poll built every lock: it took none as it was")
	}
	if a := lockOf(t, s2, "lock:a"); a.Waiters != 3 || !a.WaitersKnown {
		t.Errorf("lock:a: %d waiters (known %v), want 3", a.Waiters, a.WaitersKnown)
	}
	if c := lockOf(t, s2, "lock:c"); c.Fence != 7 {
		t.Errorf("lock:c: fence %d, want 7", c.Fence)
	}
	if res := changedView(s1, kept); res != "" {
		t.Errorf("the poll changed the view of %s of the snapshot before", res)
	}
	if a := lockOf(t, s1, "lock:a"); a.WaitersKnown || a.Fence != 0 {
		t.Errorf("the snapshot before shows lock:a with waiters known %v, fence %d", a.WaitersKnown, a.Fence)
	}
}

// copyViews returns a copy of each view of s, with its own cells, keys and tokens.
func copyViews(s Snapshot) []LockView {
	out := make([]LockView, len(s.Locks))
	for i, l := range s.Locks {
		out[i] = *l
		out[i].Masters, out[i].Keys = slices.Clone(l.Masters), slices.Clone(l.Keys)
		out[i].hist.tokens = slices.Clone(l.hist.tokens)
	}
	return out
}

// changedView returns the resource of the first view of s that differs from its copy (copyViews); "" when none.
func changedView(s Snapshot, copies []LockView) string {
	for i, l := range s.Locks {
		if !reflect.DeepEqual(*l, copies[i]) {
			return l.Resource
		}
	}
	return ""
}

// token returns a random token, long enough to group keys by.
func (m *changeModel) token() string { return fmt.Sprintf("tok-%016x", m.rng.Uint64()) }

// set writes tok on the first n masters of res, with pttl, and deletes it from the others.
func (m *changeModel) set(res, tok string, n int, pttl time.Duration, now time.Time) {
	cs := make([]modelCell, 5)
	for j := range n {
		cs[j] = modelCell{tok: tok, pttl: pttl, readAt: now}
	}
	m.cells[res] = cs
}

// change makes one to four random changes, lets the keys whose TTL ran out expire, and returns the
// resources changed, sorted.
func (m *changeModel) change(now time.Time) []string {
	var changed []string
	for res, cs := range m.cells {
		for j, c := range cs {
			if c.tok != "" && c.pttl != NoTTL && !c.readAt.Add(c.pttl).After(now) {
				cs[j] = modelCell{}
				changed = append(changed, res)
			}
		}
	}
	names := make([]string, 0, len(m.cells))
	for res := range m.cells {
		names = append(names, res)
	}
	slices.Sort(names)
	for range 1 + m.rng.IntN(4) {
		res := names[m.rng.IntN(len(names))]
		switch m.rng.IntN(8) {
		case 0:
			m.set(res, m.token(), 5, time.Hour, now)
		case 1:
			m.set(res, m.token(), 2, time.Hour, now)
		case 2:
			m.set(res, "", 0, 0, now)
		case 3: // one token on two keys
			other := names[m.rng.IntN(len(names))]
			tok := m.token()
			m.set(res, tok, 5, time.Hour, now)
			m.set(other, tok, 5, time.Hour, now)
			changed = append(changed, other)
		case 4:
			m.set(res, m.token(), 3, NoTTL, now)
		case 5:
			m.set(res, m.token(), 5, 2*time.Second, now)
		case 6: // split
			m.set(res, m.token(), 2, time.Hour, now)
			tok := m.token()
			m.cells[res][2], m.cells[res][3] = modelCell{tok: tok, pttl: time.Hour, readAt: now}, modelCell{tok: tok, pttl: time.Hour, readAt: now}
		default:
			res = fmt.Sprintf("lock:new:%d", len(names))
			names = append(names, res)
			m.set(res, m.token(), 5, time.Hour, now)
		}
		changed = append(changed, res)
	}
	slices.Sort(changed)
	return slices.Compact(changed)
}

// readings returns what each master reads of keys (every key when nil) at now, as tracked reading seq: the
// value with the TTL left and the time it was written, or absent.
func (m *changeModel) readings(now time.Time, keys []string, seq uint64) []Reading {
	rs := fixture(now, addrs5, nil)
	if keys == nil {
		for res := range m.cells {
			keys = append(keys, res)
		}
	}
	for j := range rs {
		rs[j].Seq = seq
		for _, res := range keys {
			c := m.cells[res][j]
			if c.tok == "" {
				rs[j].Keys = append(rs[j].Keys, KeyReading{Key: res, Absent: true})
				continue
			}
			rs[j].Keys = append(rs[j].Keys, KeyReading{Key: res, Value: c.tok, PTTL: c.pttl, ReadAt: c.readAt})
		}
	}
	return rs
}

// snapshotDiff describes how a differs from b in what a poll with changes must keep equal; "" when it does not.
func snapshotDiff(a, b Snapshot, now time.Time) string {
	if len(a.Locks) != len(b.Locks) {
		return fmt.Sprintf("%d locks against %d", len(a.Locks), len(b.Locks))
	}
	for i := range a.Locks {
		if d := lockDiff(a.Locks[i], b.Locks[i], now); d != "" {
			return d
		}
	}
	for j := range a.Masters {
		if a.Masters[j].Keys != b.Masters[j].Keys {
			return fmt.Sprintf("master %d: %d keys against %d", j, a.Masters[j].Keys, b.Masters[j].Keys)
		}
	}
	if !reflect.DeepEqual(a.Warnings, b.Warnings) {
		return fmt.Sprintf("warnings %v against %v", a.Warnings, b.Warnings)
	}
	if !a.quietUntil.Equal(b.quietUntil) {
		return fmt.Sprintf("quiet until %v against %v", a.quietUntil, b.quietUntil)
	}
	if ka, kb := a.keysToRefresh(nil), b.keysToRefresh(nil); !slices.Equal(ka, kb) {
		return fmt.Sprintf("keys to refresh %v against %v", ka, kb)
	}
	if len(a.holdLogs) != len(b.holdLogs) {
		return fmt.Sprintf("%d hold logs against %d", len(a.holdLogs), len(b.holdLogs))
	}
	for i := range a.holdLogs {
		la, lb := a.holdLogs[i], b.holdLogs[i]
		if la.Resource != lb.Resource || !reflect.DeepEqual(la.Intervals(t0), lb.Intervals(t0)) || !reflect.DeepEqual(la.Troubles(t0), lb.Troubles(t0)) {
			return fmt.Sprintf("hold log of %s: %+v against %+v", la.Resource, la.Intervals(t0), lb.Intervals(t0))
		}
	}
	return ""
}

// lockDiff describes how lock a differs from b; "" when it does not.
func lockDiff(a, b *LockView, now time.Time) string {
	type shown struct {
		Resource, Holder          string
		State                     LockState
		Count, Unknown, Changes   int
		Foreign, QuorumLost, Mine bool
		Keys                      []string
		Masters                   []MasterLock
		FirstSeen, LastChange     time.Time
		Validity                  time.Duration
		Intervals                 []Interval
	}
	of := func(l *LockView) shown {
		keys := slices.Clone(l.Keys)
		slices.Sort(keys)
		return shown{l.Resource, l.Holder, l.State, l.Count, l.Unknown, l.Changes, l.Foreign, l.QuorumLost, l.Mine,
			keys, l.Masters, l.FirstSeen, l.LastChange, l.ValidityAt(now), l.History.Intervals(t0)}
	}
	if sa, sb := of(a), of(b); !reflect.DeepEqual(sa, sb) {
		return fmt.Sprintf("\n%+v\nagainst\n%+v", sa, sb)
	}
	return ""
}
