package monitor

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// noKey reports whether s shows no key of res on any master: it lists no such lock, or lists it free, for
// its holders in the window.
func noKey(s Snapshot, res string) bool {
	l := s.Lock(res)
	return l == nil || l.State == StateFree
}

// freeStory is a lock on five masters that two holders take in turn, then nobody: it polls once a second with
// A holding from 1s to 3s and B from 5s to 6s, then every 5s with no key, over a window of one minute. It
// returns every snapshot, by the second it was made at.
func freeStory(t *testing.T) map[int]Snapshot {
	t.Helper()
	cfg := Config{History: time.Minute}
	holder := func(sec int) string {
		switch {
		case sec >= 1 && sec <= 3:
			return "tokA0123456789abcdef"
		case sec >= 5 && sec <= 6:
			return "tokB0123456789abcdef"
		}
		return ""
	}
	out := map[int]Snapshot{}
	var prev *Snapshot
	for sec := 0; sec <= 80; {
		at := t0.Add(time.Duration(sec) * time.Second)
		locks := map[string][]cell{"other": cells("X0123456789abcdef", 5)}
		if tok := holder(sec); tok != "" {
			locks["o1:hot"] = cells(tok, 5)
		} else if prev != nil && prev.Lock("o1:hot") != nil {
			locks["o1:hot"] = make([]cell, 5) // a known key is read, absent
		}
		s := Aggregate(prev, fixture(at, addrs5, locks), nil, at, cfg)
		out[sec] = s
		prev = &s
		if sec < 10 {
			sec++
		} else {
			sec += 5
		}
	}
	return out
}

// TestAFreeLockKeepsItsHoldersUntilTheyLeaveTheWindow: a lock nobody holds any more stays listed, free, with
// its hold log and its figures, until its last interval leaves the window; it raises no event of its own, is
// no lock key on any master and warns of nothing; taken again, it appears as a lock gone and back always did.
func TestAFreeLockKeepsItsHoldersUntilTheyLeaveTheWindow(t *testing.T) {
	snaps := freeStory(t)
	window := time.Minute
	for _, sec := range []int{4, 7, 8, 30, 65} {
		s := snaps[sec]
		l := s.Lock("o1:hot")
		if l == nil {
			t.Fatalf("%ds: o1:hot is not listed, %s after its last holder", sec, time.Duration(sec-6)*time.Second)
		}
		if l.State != StateFree || !l.Free() || l.Holder != "" || l.Count != 0 || l.Unknown != 0 {
			t.Errorf("%ds: %s (free %v), held by %q on %d (%d unknown); want free, held by nobody", sec, l.State, l.Free(), l.Holder, l.Count, l.Unknown)
		}
		for j, c := range l.Masters {
			if c.State != CellAbsent {
				t.Errorf("%ds: master %d's cell %+v, want absent: every master answered without the key", sec, j, c)
			}
		}
		if l.History == nil || l.History != s.HoldLog("o1:hot") {
			t.Errorf("%ds: its History is %p, the snapshot's hold log %p", sec, l.History, s.HoldLog("o1:hot"))
		}
		for _, w := range s.Warnings {
			if w.Resource == "o1:hot" {
				t.Errorf("%ds: a warning about the free lock: %v", sec, w)
			}
		}
		if s.Masters[0].Keys != 1 {
			t.Errorf("%ds: master 0 counts %d lock keys, want 1 (other): a free lock has none", sec, s.Masters[0].Keys)
		}
	}
	at30, at70 := snaps[30], snaps[70]
	ivs := at30.HoldLog("o1:hot").Intervals(at30.Time.Add(-window))
	if len(ivs) != 2 || ivs[0].Ended != EndReleased || ivs[1].Ended != EndReleased || !ivs[1].StartKnown {
		t.Errorf("at 30s the hold log has %+v; want A's and B's tenures, both released", ivs)
	}
	if n := at30.HoldLog("o1:hot").AcquiredSince(at30.Time.Add(-window)); n != 2 {
		t.Errorf("at 30s %d acquisitions seen beginning in the window, want 2", n)
	}
	if c := at30.Contention(at30.Lock("o1:hot").History, window); c.Holds != 2 || c.Gaps != 1 {
		t.Errorf("at 30s the figures count %d holds and %d gaps, want 2 and 1", c.Holds, c.Gaps)
	}
	// Events: released twice, appeared once (B), and nothing while it is free.
	var kinds []EventKind
	for _, e := range snaps[80].Events {
		if e.Resource == "o1:hot" {
			kinds = append(kinds, e.Kind)
		}
	}
	if want := []EventKind{EventLockAppeared, EventLockReleased, EventLockAppeared, EventLockReleased}; !slices.Equal(kinds, want) {
		t.Errorf("events of o1:hot: %v, want %v", kinds, want)
	}
	at5 := snaps[5]
	if l := at5.Lock("o1:hot"); l == nil || l.State != StateHeld || l.Holder != "tokB0123456789abcdef" {
		t.Errorf("at 5s B holds it; the view is %+v", l)
	}
	// B's interval ended at 7s: the window of a minute lets it go at 67s, and the lock with it.
	if l := at70.Lock("o1:hot"); l != nil || at70.HoldLog("o1:hot") != nil {
		t.Errorf("at 70s, 63s after its last holder: still listed %+v, hold log %p; want gone, with its log", l, at70.HoldLog("o1:hot"))
	}
	if n := len(snaps[70].Locks); n != 1 {
		t.Errorf("at 70s %d locks, want 1 (other)", n)
	}
}

// TestAFreeLockIsNeverFreeWhereItWasNotRead: a master that did not answer keeps a free lock's cell unknown,
// never absent; with too many such masters to rule out a holder the lock is unknown, still a free lock's view,
// and nothing is said of it. When they answer again it is free.
func TestAFreeLockIsNeverFreeWhereItWasNotRead(t *testing.T) {
	cfg := Config{History: time.Minute}
	s := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": cells("A0123456789abcdef", 5)}), nil, t0, cfg)
	poll := func(sec int, down ...int) Snapshot {
		at := t0.Add(time.Duration(sec) * time.Second)
		rs := fixture(at, addrs5, map[string][]cell{"r": make([]cell, 5)})
		for _, i := range down {
			rs[i] = Reading{Addr: rs[i].Addr, Err: errors.New("i/o timeout")}
		}
		s = Aggregate(&s, rs, nil, at, cfg)
		return s
	}
	if l := lockOf(t, poll(1), "r"); l.State != StateFree {
		t.Fatalf("released: %s, want free", l.State)
	}
	before := len(s.Events)
	l := lockOf(t, poll(2, 0), "r")
	if l.State != StateFree || l.Masters[0].State != CellUnknown || l.Unknown != 1 {
		t.Errorf("master 0 silent: %s with %d unknown, its cell %+v; want free, its cell unknown", l.State, l.Unknown, l.Masters[0])
	}
	l = lockOf(t, poll(3, 0, 1, 2), "r")
	if l.State != StateUnknown || !l.Free() || l.Unknown != 3 {
		t.Errorf("three of five silent: %s (free %v) with %d unknown; want unknown: they could hold it", l.State, l.Free(), l.Unknown)
	}
	for j, c := range l.Masters[:3] {
		if c.State != CellUnknown {
			t.Errorf("silent master %d: cell %+v, want unknown", j, c)
		}
	}
	if l = lockOf(t, poll(4), "r"); l.State != StateFree || l.Unknown != 0 {
		t.Errorf("every master back: %s with %d unknown, want free", l.State, l.Unknown)
	}
	for _, e := range s.Events[before:] {
		if e.Resource == "r" {
			t.Errorf("an event of the free lock while masters came and went: %v", e)
		}
	}
}

// TestAFreeLockIsSharedByTrackedPolls: polls whose readings are deltas take a free lock as it was, the same
// view, as they take any lock that did not change; and the poll at which its last interval leaves the
// window lets it go.
func TestAFreeLockIsSharedByTrackedPolls(t *testing.T) {
	cfg := Config{History: time.Minute}
	seq := uint64(1)
	poll := func(prev *Snapshot, at time.Time, delta bool, locks map[string][]cell) Snapshot {
		rs := fixture(at, addrs5, locks)
		for i := range rs {
			rs[i].Seq = seq
			if delta {
				rs[i].Delta, rs[i].DeltaOf = true, seq-1
			}
		}
		seq++
		return Aggregate(prev, rs, nil, at, cfg)
	}
	long := func(tok string) []cell {
		cs := cells(tok, 5)
		for i := range cs {
			cs[i].pttl = time.Hour
		}
		return cs
	}
	s1 := poll(nil, t0, false, map[string][]cell{"r": long("A0123456789abcdef"), "other": long("X0123456789abcdef")})
	s2 := poll(&s1, t0.Add(time.Second), true, map[string][]cell{"r": make([]cell, 5)}) // r released: read absent
	free := s2.Lock("r")
	if free == nil || free.State != StateFree {
		t.Fatalf("released: %+v, want free", free)
	}
	s3 := poll(&s2, t0.Add(2*time.Second), true, nil) // nothing changed
	if !s3.quiet || s3.Lock("r") != free {
		t.Errorf("a poll told of no change: quiet %v, the free view shared %v; want both", s3.quiet, s3.Lock("r") == free)
	}
	s4 := poll(&s3, t0.Add(3*time.Second), true, map[string][]cell{"other": long("Y0123456789abcdef")})
	if s4.quiet || s4.Lock("r") != free || s4.Lock("other").Holder != "Y0123456789abcdef" {
		t.Errorf("a poll with another lock's change: quiet %v, the free view shared %v, other held by %q; want a poll with changes sharing it",
			s4.quiet, s4.Lock("r") == free, s4.Lock("other").Holder)
	}
	// r's interval ended at 1s: a minute later it goes, with nothing read.
	s5 := poll(&s4, t0.Add(61*time.Second+time.Millisecond), true, nil)
	if l := s5.Lock("r"); l != nil || s5.HoldLog("r") != nil {
		t.Errorf("61s after its release: r listed %+v, its log %p; want both gone", l, s5.HoldLog("r"))
	}
	if l := s5.Lock("other"); l == nil || l.State != StateHeld {
		t.Errorf("other: %+v, want held", l)
	}
}

// TestContentionOutlivesItsHolders hands a lock from client to client on real masters, as three `run --wait`
// loops do, then stops: between the holders and after the last, the lock stays listed, free, with every
// handover in its hold log, in the snapshot, the JSON and the report; a master that does not answer leaves
// its cell unknown, never free; and the lock stays, polled or tracked, until its holders leave the window.
func TestContentionOutlivesItsHolders(t *testing.T) {
	t.Parallel()
	c, servers := serverCluster(t, 3, Config{Interval: 100 * time.Millisecond})
	const res, hold, tenures = "o1:hot", 400 * time.Millisecond, 6
	var mu sync.Mutex
	held := 0 // tenures begun
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	var wg sync.WaitGroup
	for range 3 {
		rc, err := redlock.New(redlocktest.Clients(t, c.masters), redlock.WithRetries(0), redlock.WithNodeTimeout(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rc.Close)
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				done := held >= tenures
				mu.Unlock()
				if done {
					return
				}
				l, err := rc.TryAcquire(ctx, res, 10*time.Second)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				mu.Lock()
				held++
				mu.Unlock()
				time.Sleep(hold)
				_ = l.Release(context.Background())
				time.Sleep(10 * time.Millisecond) // another client's turn, most often
			}
		})
	}
	var s Snapshot
	for clientsDone := false; !clientsDone; {
		s = c.mon.Poll(ctx)
		mu.Lock()
		clientsDone = held >= tenures
		mu.Unlock()
		time.Sleep(c.mon.cfg.Interval)
	}
	wg.Wait()
	// After its holders the lock must be free, in a poll every master answered (on a loaded machine one may miss a poll,
	// leaving its cell unknown, as it should).
	s = pollUntil(t, c.mon, 30*time.Second, res+" free, read on every master", func(s Snapshot) bool {
		return s.Lock(res) != nil && s.Lock(res).State == StateFree && s.UpCount == len(s.Masters)
	})
	l := s.Lock(res)
	window := s.Window()
	ivs := l.History.Intervals(s.Time.Add(-window))
	if len(ivs) < 2 || l.Holder != "" || l.Count != 0 || l.Unknown != 0 {
		t.Fatalf("%s after its holders: %s, held by %q on %d (%d unknown), %d intervals; want free with its handovers",
			res, l.State, l.Holder, l.Count, l.Unknown, len(ivs))
	}
	for _, iv := range ivs {
		if iv.Ended == EndOpen {
			t.Errorf("an interval still open after every client released: %+v", iv)
		}
	}
	if n := l.History.AcquiredSince(s.Time.Add(-window)); n < 2 {
		t.Errorf("%d acquisitions in the window, want the handovers seen (%d intervals)", n, len(ivs))
	}
	t.Logf("%d tenures, %d intervals recorded", tenures, len(ivs))

	// A free lock in the JSON, with every interval of its window, and in the report: render's
	// TestAFreeLockIsInTheJSONAndTheReport.

	// A master that does not answer: its cell is unknown, the lock still free (two of three say so); two: unknown.
	for _, pause := range [][]int{{0}, {0, 1}} {
		for _, i := range pause {
			if err := servers[i].Pause(); err != nil {
				t.Fatal(err)
			}
		}
		s = c.mon.Poll(context.Background())
		for _, i := range pause {
			if err := servers[i].Resume(); err != nil {
				t.Fatal(err)
			}
		}
		l = s.Lock(res)
		want := StateFree
		if len(pause) > 1 {
			want = StateUnknown
		}
		if l == nil || l.State != want || !l.Free() {
			t.Fatalf("masters %v paused: %+v, want %s, a free lock's view", pause, l, want)
		}
		for _, i := range pause {
			if l.Masters[i].State != CellUnknown {
				t.Errorf("masters %v paused: master %d's cell %+v, want unknown: it was not read", pause, i, l.Masters[i])
			}
		}
		s = pollUntilAllAnswer(t, c, s)
	}
	s = pollUntil(t, c.mon, 20*time.Second, res+" free again", func(s Snapshot) bool {
		l := s.Lock(res)
		return l != nil && l.State == StateFree && l.Unknown == 0
	})
	if got := len(s.Lock(res).History.Intervals(s.Time.Add(-window))); got != len(ivs) {
		t.Errorf("after the pauses %d intervals, want the %d the holders left", got, len(ivs))
	}
}

// TestAFreeLockDoesNotKeepANewLockOutOfSight: free locks, which no master has, do not count against
// --max-keys: a new lock is listed even when the free ones fill the cap.
func TestAFreeLockDoesNotKeepANewLockOutOfSight(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, Config{MaxKeys: 2})
	ctx := context.Background()
	c.set(t, "jobs:a", "token-a-0123456789abcdef", time.Minute, 0, 1, 2)
	c.set(t, "jobs:b", "token-b-0123456789abcdef", time.Minute, 0, 1, 2)
	pollUntil(t, c.mon, 20*time.Second, "both locks held", func(s Snapshot) bool {
		a, b := s.Lock("jobs:a"), s.Lock("jobs:b")
		return s.Swept && a != nil && a.State == StateHeld && b != nil && b.State == StateHeld
	})
	for _, a := range c.admin {
		if err := a.Del(ctx, "jobs:a", "jobs:b").Err(); err != nil {
			t.Fatal(err)
		}
	}
	pollUntil(t, c.mon, 20*time.Second, "both locks free", func(s Snapshot) bool {
		a, b := s.Lock("jobs:a"), s.Lock("jobs:b")
		return a != nil && a.State == StateFree && b != nil && b.State == StateFree
	})
	c.set(t, "jobs:c", "token-c-0123456789abcdef", time.Minute, 0, 1, 2)
	s := pollUntil(t, c.mon, 20*time.Second, "the new lock listed", func(s Snapshot) bool {
		l := s.Lock("jobs:c")
		return l != nil && l.State == StateHeld
	})
	if s.Truncated {
		t.Errorf("the new lock is counted as beyond the cap (%d untracked): free locks took its place", s.Untracked)
	}
}
