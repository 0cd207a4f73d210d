package monitor

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// addrs5 are the display names of the five masters most tests use.
var addrs5 = []string{"m0", "m1", "m2", "m3", "m4"}

// cell is one resource's key on one master in a fixture: token, PTTL and how long ago it was read; the zero
// cell means absent.
type cell struct {
	tok  string
	pttl time.Duration
	age  time.Duration // how long before "now" the key was read
}

// fixture builds one up reading per address, each master holding, per resource, the cell at its index (read
// and absent when the cell is zero).
func fixture(now time.Time, addrs []string, locks map[string][]cell) []Reading {
	rs := make([]Reading, len(addrs))
	for i, a := range addrs {
		rs[i] = Reading{Addr: a, Sent: now.Add(-time.Millisecond), Received: now, Uptime: UnknownUptime, Replicas: -1,
			Sweep: Sweep{Completed: 1, Total: -1}}
	}
	for res, cells := range locks {
		for i, c := range cells {
			if c.tok == "" {
				rs[i].Keys = append(rs[i].Keys, KeyReading{Key: res, Absent: true})
				continue
			}
			rs[i].Keys = append(rs[i].Keys, KeyReading{Key: res, Value: c.tok, PTTL: c.pttl, ReadAt: now.Add(-c.age)})
		}
	}
	return rs
}

// cells returns n cells with token tok and a 10s PTTL, padded with absent cells to five.
func cells(tok string, n int) []cell {
	cs := make([]cell, 5)
	for i := range n {
		cs[i] = cell{tok: tok, pttl: 10 * time.Second}
	}
	return cs
}

// lockOf returns the view of resource in s, failing the test when there is none.
func lockOf(t *testing.T, s Snapshot, resource string) LockView {
	t.Helper()
	for _, l := range s.Locks {
		if l.Resource == resource {
			return *l
		}
	}
	t.Fatalf("no lock %q in snapshot; locks: %v", resource, s.Locks)
	return LockView{}
}

func TestAggregateClassifiesLocks(t *testing.T) {
	tests := []struct {
		name        string
		cells       []cell
		down        []int
		own         string
		wantState   LockState
		wantHolder  string
		wantCount   int
		wantForeign bool
		wantMine    bool
	}{
		{name: "all five hold one token", cells: cells("A", 5), wantState: StateHeld, wantHolder: "A", wantCount: 5},
		{name: "exactly a quorum", cells: cells("A", 3), wantState: StateHeld, wantHolder: "A", wantCount: 3},
		{name: "quorum plus a foreign token", cells: []cell{{"A", time.Second, 0}, {"A", time.Second, 0}, {"A", time.Second, 0}, {"B", time.Second, 0}, {}},
			wantState: StateHeld, wantHolder: "A", wantCount: 3, wantForeign: true},
		{name: "two of five is partial", cells: cells("A", 2), wantState: StatePartial, wantCount: 2},
		{name: "one of five is partial", cells: cells("A", 1), wantState: StatePartial, wantCount: 1},
		{name: "2/2/1 is split", cells: []cell{{"A", time.Second, 0}, {"A", time.Second, 0}, {"B", time.Second, 0}, {"B", time.Second, 0}, {"C", time.Second, 0}},
			wantState: StateSplit, wantCount: 2},
		{name: "held with two masters down", cells: cells("A", 3), down: []int{3, 4}, wantState: StateHeld, wantHolder: "A", wantCount: 3},
		{name: "our token held", cells: cells("A", 4), own: "A", wantState: StateHeld, wantHolder: "A", wantCount: 4, wantMine: true},
		{name: "our token below quorum is lost", cells: cells("A", 2), own: "A", wantState: StateLost, wantCount: 2, wantMine: true},
		{name: "our resource held by another token is lost", cells: cells("B", 3), own: "A", wantState: StateLost, wantHolder: "B", wantCount: 3, wantMine: true},
		{name: "our resource absent everywhere is lost", cells: make([]cell, 5), own: "A", wantState: StateLost, wantMine: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := fixture(t0, addrs5, map[string][]cell{"res": tt.cells})
			for _, i := range tt.down {
				rs[i] = Reading{Addr: rs[i].Addr, Err: errors.New("connection refused")}
			}
			own := map[string]OwnLock{}
			if tt.own != "" {
				own["res"] = OwnLock{Token: tt.own}
			}
			s := Aggregate(nil, rs, own, t0, Config{})
			l := lockOf(t, s, "res")
			if l.State != tt.wantState || l.Holder != tt.wantHolder || l.Count != tt.wantCount || l.Foreign != tt.wantForeign || l.Mine != tt.wantMine {
				t.Errorf("got state=%s holder=%q count=%d foreign=%v mine=%v; want %s %q %d %v %v",
					l.State, l.Holder, l.Count, l.Foreign, l.Mine, tt.wantState, tt.wantHolder, tt.wantCount, tt.wantForeign, tt.wantMine)
			}
			for _, i := range tt.down {
				if l.Masters[i].State != CellUnknown {
					t.Errorf("master %d is down but its cell is %+v", i, l.Masters[i])
				}
			}
			for i, c := range tt.cells {
				if slices.Contains(tt.down, i) {
					continue
				}
				if got := l.Masters[i]; got.Present() != (c.tok != "") || got.Token != c.tok || (c.tok != "" && got.PTTL != c.pttl) {
					t.Errorf("master %d cell = %+v, want token %q pttl %v", i, got, c.tok, c.pttl)
				}
			}
		})
	}
}

func TestAggregateValidityIsQuorumThLongestLessDrift(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		want  time.Duration
	}{
		{
			name:  "third longest of five, read now",
			cells: []cell{{"A", 10 * time.Second, 0}, {"A", 9 * time.Second, 0}, {"A", 8 * time.Second, 0}, {"A", 7 * time.Second, 0}, {"A", 6 * time.Second, 0}},
			want:  8*time.Second - (80*time.Millisecond + 2*time.Millisecond),
		},
		{
			name: "read times are subtracted",
			cells: []cell{{"A", 10 * time.Second, 3 * time.Second}, {"A", 10 * time.Second, 2 * time.Second}, {"A", 10 * time.Second, 1 * time.Second},
				{"A", 10 * time.Second, 500 * time.Millisecond}, {"B", 20 * time.Second, 0}},
			want: 8*time.Second - (80*time.Millisecond + 2*time.Millisecond), // expiries now+7, 8, 9, 9.5s
		},
		{
			name:  "only the holder's keys count",
			cells: []cell{{"A", 1 * time.Second, 0}, {"A", 2 * time.Second, 0}, {"A", 3 * time.Second, 0}, {"B", 50 * time.Second, 0}, {"B", 50 * time.Second, 0}},
			want:  1*time.Second - (10*time.Millisecond + 2*time.Millisecond),
		},
		{
			name:  "inside the drift allowance is zero, never negative",
			cells: []cell{{"A", time.Second, 999 * time.Millisecond}, {"A", time.Second, 999 * time.Millisecond}, {"A", time.Second, 999 * time.Millisecond}, {}, {}},
			want:  0,
		},
		{
			name:  "partial has no validity",
			cells: cells("A", 2),
			want:  0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": tt.cells}), nil, t0, Config{})
			l := lockOf(t, s, "r")
			if got := l.ValidityAt(s.Time); got != tt.want {
				t.Errorf("validity = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAggregateTTLSpreadCorrectsForReadTime(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		want  time.Duration
	}{
		{name: "same expiry read at different times", want: 0,
			cells: []cell{{"A", 10 * time.Second, 100 * time.Millisecond}, {"A", 9950 * time.Millisecond, 50 * time.Millisecond}, {"A", 9900 * time.Millisecond, 0}, {}, {}}},
		{name: "acquisition took 40ms", want: 40 * time.Millisecond,
			cells: []cell{{"A", 9960 * time.Millisecond, 0}, {"A", 9980 * time.Millisecond, 0}, {"A", 10 * time.Second, 0}, {}, {}}},
		{name: "same PTTL read 30ms apart", want: 30 * time.Millisecond,
			cells: []cell{{"A", 5 * time.Second, 30 * time.Millisecond}, {"A", 5 * time.Second, 0}, {"A", 5 * time.Second, 0}, {"B", time.Minute, 0}, {}}},
		{name: "partial spreads its token", want: 20 * time.Millisecond,
			cells: []cell{{"A", 5 * time.Second, 0}, {"A", 5020 * time.Millisecond, 0}, {}, {}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": tt.cells}), nil, t0, Config{})
			if got := lockOf(t, s, "r").TTLSpread; got != tt.want {
				t.Errorf("spread = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAggregateLocksSortedAndDeduplicated(t *testing.T) {
	rs := fixture(t0, addrs5, map[string][]cell{"b": cells("B", 3), "a": cells("A", 3), "c": cells("C", 1)})
	rs[0].Keys = append(rs[0].Keys, rs[0].Keys...) // SCAN may return a key twice
	s := Aggregate(nil, rs, nil, t0, Config{})
	var names []string
	for _, l := range s.Locks {
		names = append(names, l.Resource)
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Errorf("locks = %v, want sorted a b c", names)
	}
	if got := lockOf(t, s, "a").Count; got != 3 {
		t.Errorf("duplicate SCAN entry counted: count = %d, want 3", got)
	}
}

// step is one poll of a history test: the cells of resource "r" (nil: no key anywhere) and the events expected.
type step struct {
	cells      []cell
	wantEvents []EventKind
}

func TestAggregateHistory(t *testing.T) {
	steps := []step{
		{cells: nil, wantEvents: nil},
		{cells: cells("A", 2), wantEvents: []EventKind{EventLockAppeared}},
		{cells: cells("A", 3), wantEvents: []EventKind{EventLockHeld}}, // first seen partial: the holder is named now
		{cells: cells("A", 5), wantEvents: nil},
		{cells: cells("B", 3), wantEvents: []EventKind{EventTakenOver}},
		// B's key on m2 is replaced while it had 9s left: B lost its quorum, and no token has one. One poll
		// cannot tell this from a release in flight; the next, which sees the same, confirms it.
		{cells: []cell{{"B", time.Second, 0}, {"B", time.Second, 0}, {"C", time.Second, 0}, {"C", time.Second, 0}, {}}, wantEvents: nil},
		{cells: []cell{{"B", time.Second, 0}, {"B", time.Second, 0}, {"C", time.Second, 0}, {"C", time.Second, 0}, {}}, wantEvents: []EventKind{EventQuorumLost, EventLockSplit}},
		// B's keys, read with 1s left a second ago, have expired: C took the lock after B's expiry.
		{cells: cells("C", 3), wantEvents: []EventKind{EventTakenAfterExpiry}},
		{cells: make([]cell, 5), wantEvents: []EventKind{EventLockReleased}}, // 10s PTTLs read 1s ago: released before its TTL
	}
	var prev *Snapshot
	var snaps []Snapshot
	for i, st := range steps {
		now := t0.Add(time.Duration(i) * time.Second)
		locks := map[string][]cell{}
		if st.cells != nil {
			locks["r"] = st.cells
		}
		s := Aggregate(prev, fixture(now, addrs5, locks), nil, now, Config{})
		var got []EventKind
		for _, e := range s.Events {
			if e.Time.Equal(now) {
				got = append(got, e.Kind)
				if e.Resource != "r" {
					t.Errorf("step %d: event %v about %q, want r", i, e.Kind, e.Resource)
				}
			}
		}
		if !slices.Equal(got, st.wantEvents) {
			t.Errorf("step %d: events %v, want %v", i, got, st.wantEvents)
		}
		snaps = append(snaps, s)
		prev = &snaps[len(snaps)-1]
	}
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	checks := []struct {
		step       int
		heldSince  time.Time
		changes    int
		lastChange time.Time
	}{
		{2, at(1), 0, time.Time{}}, // A first seen in step 1 while partial
		{3, at(1), 0, time.Time{}},
		{4, at(4), 1, at(4)},
		{5, at(4), 1, at(4)}, // unconfirmed split: B, the leading token (2-2, first by name), first seen in step 4
		{6, at(4), 1, at(4)}, // split confirmed
		{7, at(5), 2, at(7)}, // C was first seen in step 5
	}
	for _, c := range checks {
		l := lockOf(t, snaps[c.step], "r")
		if !l.FirstSeen.Equal(c.heldSince) || l.Changes != c.changes || !l.LastChange.Equal(c.lastChange) {
			t.Errorf("step %d: heldSince=%v changes=%d lastChange=%v; want %v %d %v",
				c.step, l.FirstSeen, l.Changes, l.LastChange, c.heldSince, c.changes, c.lastChange)
		}
	}
	if l := snaps[len(snaps)-1].Locks; len(l) != 1 || l[0].State != StateFree || l[0].Holder != "" || l[0].Changes != 2 {
		t.Errorf("released lock: %+v; want it listed free, with nobody holding it and its 2 changes kept", l)
	}
	if s := snaps[len(snaps)-1]; s.Seq != uint64(len(steps)) {
		t.Errorf("seq = %d, want %d", s.Seq, len(steps))
	}
}

func TestAggregateLostEventOnce(t *testing.T) {
	own := map[string]OwnLock{"r": {Token: "A"}}
	s1 := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": cells("A", 3)}), own, t0, Config{})
	s2 := Aggregate(&s1, fixture(t0.Add(time.Second), addrs5, map[string][]cell{"r": cells("A", 2)}), own, t0.Add(time.Second), Config{})
	s3 := Aggregate(&s2, fixture(t0.Add(2*time.Second), addrs5, map[string][]cell{"r": make([]cell, 5)}), own, t0.Add(2*time.Second), Config{})
	if got := eventKinds(s3.Events); !slices.Equal(got, []EventKind{EventLockLost}) {
		t.Errorf("events = %v, want one lock-lost", got)
	}
	if l := lockOf(t, s3, "r"); l.State != StateLost || !l.Mine {
		t.Errorf("our lock absent everywhere: state %s mine %v, want lost and mine", l.State, l.Mine)
	}
	if !hasWarning(s3, WarnLockLost, "") {
		t.Errorf("no lock-lost warning: %v", s3.Warnings)
	}
}

// eventKinds lists the kinds of es in order.
func eventKinds(es []Event) []EventKind {
	var ks []EventKind
	for _, e := range es {
		ks = append(ks, e.Kind)
	}
	return ks
}

// hasWarning reports whether s has a warning of kind about master ("" matches any).
func hasWarning(s Snapshot, kind, master string) bool {
	for _, w := range s.Warnings {
		if w.Kind == kind && (master == "" || w.Master == master) {
			return true
		}
	}
	return false
}

func TestAggregateMasterEvents(t *testing.T) {
	down := func(a string) Reading {
		return Reading{Addr: a, Err: errors.New("dial tcp: connection refused"), Refused: true}
	}
	silent := func(a string) Reading { return Reading{Addr: a, Err: errors.New("i/o timeout")} }
	upWith := func(a, runID string, uptime time.Duration) Reading {
		return Reading{Addr: a, Sent: t0, Received: t0.Add(time.Millisecond), RunID: runID, Uptime: uptime, Role: "master", Replicas: 0}
	}
	tests := []struct {
		name   string
		polls  [][]Reading
		want   []EventKind
		master string
	}{
		{name: "down at the first poll", polls: [][]Reading{{down("a")}}, want: []EventKind{EventMasterDown}},
		{name: "up at the first poll is no event", polls: [][]Reading{{upWith("a", "x", time.Hour)}}, want: nil},
		{name: "goes down then up", polls: [][]Reading{{upWith("a", "x", time.Hour)}, {down("a")}, {down("a")}, {upWith("a", "x", time.Hour)}},
			want: []EventKind{EventMasterDown, EventMasterUp}},
		{name: "run_id changes", polls: [][]Reading{{upWith("a", "x", time.Hour)}, {upWith("a", "y", time.Second)}},
			want: []EventKind{EventMasterRestarted}},
		{name: "run_id changes across a down period", polls: [][]Reading{{upWith("a", "x", time.Hour)}, {down("a")}, {upWith("a", "y", time.Second)}},
			want: []EventKind{EventMasterDown, EventMasterUp, EventMasterRestarted}},
		{name: "uptime goes back without run_id", polls: [][]Reading{{upWith("a", "", time.Hour)}, {upWith("a", "", 2*time.Second)}},
			want: []EventKind{EventMasterRestarted}},
		{name: "a silent master is not answering, then down after three polls", polls: [][]Reading{{upWith("a", "x", time.Hour)}, {silent("a")}, {silent("a")}, {silent("a")}, {silent("a")}},
			want: []EventKind{EventMasterNotAnswering, EventMasterDown}},
		{name: "a silent master that answers again", polls: [][]Reading{{upWith("a", "x", time.Hour)}, {silent("a")}, {upWith("a", "x", time.Hour)}},
			want: []EventKind{EventMasterNotAnswering, EventMasterUp}},
		{name: "uptime grows", polls: [][]Reading{{upWith("a", "", time.Hour)}, {upWith("a", "", time.Hour+time.Second)}}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev *Snapshot
			for i, rs := range tt.polls {
				s := Aggregate(prev, rs, nil, t0.Add(time.Duration(i)*time.Second), Config{})
				prev = &s
			}
			if got := eventKinds(prev.Events); !slices.Equal(got, tt.want) {
				t.Errorf("events = %v, want %v", got, tt.want)
			}
			for _, e := range prev.Events {
				if e.Master != "a" {
					t.Errorf("event %v names master %q, want a", e.Kind, e.Master)
				}
			}
		})
	}
}

func TestAggregateRestartSetsLastRestartFromUptime(t *testing.T) {
	r1 := Reading{Addr: "a", RunID: "x", Uptime: time.Hour, Replicas: -1}
	r2 := Reading{Addr: "a", RunID: "y", Uptime: 3 * time.Second, Replicas: -1}
	s1 := Aggregate(nil, []Reading{r1}, nil, t0, Config{})
	s2 := Aggregate(&s1, []Reading{r2}, nil, t0.Add(10*time.Second), Config{})
	if want := t0.Add(7 * time.Second); !s2.Masters[0].LastRestart.Equal(want) {
		t.Errorf("LastRestart = %v, want now - uptime = %v", s2.Masters[0].LastRestart, want)
	}
}

func TestAggregateDownMasterKeepsLastKnownInfo(t *testing.T) {
	r1 := Reading{Addr: "a", Sent: t0, Received: t0.Add(2 * time.Millisecond), RunID: "x", Version: "7.0.15", Role: "master", Uptime: time.Hour, Replicas: 0}
	s1 := Aggregate(nil, []Reading{r1}, nil, t0, Config{})
	s2 := Aggregate(&s1, []Reading{{Addr: "a", Err: errors.New("i/o timeout")}}, nil, t0.Add(time.Second), Config{})
	m := s2.Masters[0]
	if m.Up || m.Down || m.Missed != 1 || m.Err != "i/o timeout" || m.RunID != "x" || m.Version != "7.0.15" || m.Uptime != UnknownUptime || m.RTTSmoothed != 2*time.Millisecond || !m.LastAnswer.Equal(t0) {
		t.Errorf("silent master = %+v; want not answering (not yet down) with its error, last run_id/version/RTT and answer time kept, uptime unknown", m)
	}
	for i := 2; i <= DefaultDownAfter; i++ {
		s2 = Aggregate(&s2, []Reading{{Addr: "a", Err: errors.New("i/o timeout")}}, nil, t0.Add(time.Duration(i)*time.Second), Config{})
	}
	if m := s2.Masters[0]; !m.Down || m.Missed != DefaultDownAfter || m.RunID != "x" {
		t.Errorf("after %d missed polls: %+v; want down, last run_id kept", DefaultDownAfter, m)
	}
	if s2.UpCount != 0 {
		t.Errorf("UpCount = %d, want 0", s2.UpCount)
	}
}

func TestAggregateRTTAndClock(t *testing.T) {
	// The master's clock is 250ms ahead and gains 1ms per second (1000 ppm).
	var prev *Snapshot
	var s Snapshot
	rtts := []time.Duration{400 * time.Microsecond, 200 * time.Microsecond, 200 * time.Microsecond, 200 * time.Microsecond}
	for i, rtt := range rtts {
		sent := t0.Add(time.Duration(i) * time.Second)
		mid := sent.Add(rtt / 2)
		offset := 250*time.Millisecond + time.Duration(i)*time.Millisecond
		r := Reading{Addr: "a", Sent: sent, Received: sent.Add(rtt), ServerTime: mid.Add(offset), Uptime: time.Hour, Replicas: -1}
		s = Aggregate(prev, []Reading{r}, nil, sent.Add(rtt), Config{})
		prev = &s
		m := s.Masters[0]
		if m.RTT != rtt || m.ClockOffset != offset || m.ClockUncertainty != rtt/2 || !m.ClockKnown {
			t.Fatalf("poll %d: rtt %v offset %v ± %v, want %v %v ± %v", i, m.RTT, m.ClockOffset, m.ClockUncertainty, rtt, offset, rtt/2)
		}
		// The window starts at poll 0's midpoint; poll 2's is 100µs short of 2s, as its RTT is shorter.
		if wantKnown := i >= 3; m.DriftKnown != wantKnown {
			t.Errorf("poll %d: DriftKnown = %v, want %v", i, m.DriftKnown, wantKnown)
		}
	}
	m := s.Masters[0]
	if m.DriftPPM < 999 || m.DriftPPM > 1001 {
		t.Errorf("drift = %.1f ppm, want 1000", m.DriftPPM)
	}
	// The window runs from poll 0 (±200µs) to poll 3 (±100µs), 3 seconds less 100µs: ±100 ppm.
	if m.DriftUncertPPM < 99 || m.DriftUncertPPM > 101 {
		t.Errorf("drift uncertainty = %.1f ppm, want 100", m.DriftUncertPPM)
	}
	// EWMA with weight 1/8: 400µs, then 400 + (200-400)/8 = 375, 353.125, 333.984375µs.
	if want := time.Duration(333984); m.RTTSmoothed < want-time.Microsecond || m.RTTSmoothed > want+time.Microsecond {
		t.Errorf("smoothed RTT = %v, want about %v", m.RTTSmoothed, want)
	}
}

func TestAggregateDriftIgnoresSlowRoundTrips(t *testing.T) {
	// A steady clock, but one poll's reply was delayed 100ms on the way back: its offset estimate is 50ms off,
	// within its uncertainty. Over 3s that would read as 16000 ppm; the error bound rules it out.
	rtts := []time.Duration{200 * time.Microsecond, 200 * time.Microsecond, 200 * time.Microsecond, 100 * time.Millisecond}
	var prev *Snapshot
	for i, rtt := range rtts {
		sent := t0.Add(time.Duration(i) * time.Second)
		r := Reading{Addr: "a", Sent: sent, Received: sent.Add(rtt), ServerTime: sent.Add(100 * time.Microsecond), Uptime: time.Hour, Replicas: -1}
		s := Aggregate(prev, []Reading{r}, nil, sent.Add(rtt), Config{})
		prev = &s
	}
	if m := prev.Masters[0]; m.DriftKnown && abs(time.Duration(m.DriftPPM)) > 100 {
		t.Errorf("drift %.0f ppm from one slow round trip; want it ignored", m.DriftPPM)
	}
}

// mst is a master in a warning fixture.
type mst struct {
	down     bool
	role     string
	runID    string
	replicas int
	offset   time.Duration
	sweeping bool
}

func TestAggregateWarnings(t *testing.T) {
	ok := mst{role: "master", replicas: 0}
	tests := []struct {
		name     string
		masters  []mst
		ttl      time.Duration // PTTL of a lock on every master; 0 none
		trunc    bool
		wantKind string
		wantSev  Severity
		wantAddr string // "" for a warning about the whole set
		absent   bool   // the warning must not be raised
	}{
		{name: "fewer than quorum up", masters: []mst{ok, ok, {down: true}, {down: true}, {down: true}}, wantKind: WarnQuorumDown, wantSev: SeverityError},
		{name: "quorum up is fine", masters: []mst{ok, ok, ok, {down: true}, {down: true}}, wantKind: WarnQuorumDown, absent: true},
		{name: "a down master", masters: []mst{ok, ok, {down: true}}, wantKind: WarnMasterDown, wantSev: SeverityWarning, wantAddr: "m2"},
		{name: "two masters", masters: []mst{ok, ok}, wantKind: WarnMasterCount, wantSev: SeverityWarning},
		{name: "four masters", masters: []mst{ok, ok, ok, ok}, wantKind: WarnMasterCount, wantSev: SeverityWarning},
		{name: "three masters are fine", masters: []mst{ok, ok, ok}, wantKind: WarnMasterCount, absent: true},
		{name: "same run_id twice", masters: []mst{{role: "master", runID: "r1"}, {role: "master", runID: "r2"}, {role: "master", runID: "r1"}},
			wantKind: WarnDuplicate, wantSev: SeverityError, wantAddr: "m2"},
		{name: "a replica", masters: []mst{ok, {role: "slave"}, ok}, wantKind: WarnReplica, wantSev: SeverityError, wantAddr: "m1"},
		{name: "a master with replicas", masters: []mst{ok, ok, {role: "master", replicas: 2}}, wantKind: WarnHasReplicas, wantSev: SeverityWarning, wantAddr: "m2"},
		{name: "clock offset beyond the allowance", masters: []mst{ok, {role: "master", offset: 500 * time.Millisecond}, ok}, ttl: 10 * time.Second,
			wantKind: WarnClockOffset, wantSev: SeverityWarning, wantAddr: "m1"},
		{name: "clock offset within the allowance", masters: []mst{ok, {role: "master", offset: 50 * time.Millisecond}, ok}, ttl: 10 * time.Second,
			wantKind: WarnClockOffset, absent: true},
		{name: "clock offset with no TTL in use", masters: []mst{ok, {role: "master", offset: 500 * time.Millisecond}, ok},
			wantKind: WarnClockOffset, absent: true},
		{name: "truncated", masters: []mst{ok, ok, ok}, trunc: true, wantKind: WarnTruncated, wantSev: SeverityWarning},
		{name: "first sweep not finished", masters: []mst{ok, {role: "master", sweeping: true}, ok}, wantKind: WarnSweeping, wantSev: SeverityWarning, wantAddr: "m1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addrs := make([]string, len(tt.masters))
			for i := range addrs {
				addrs[i] = fmt.Sprintf("m%d", i)
			}
			locks := map[string][]cell{}
			if tt.ttl > 0 {
				cs := make([]cell, len(addrs))
				for i := range cs {
					cs[i] = cell{tok: "T", pttl: tt.ttl}
				}
				locks["r"] = cs
			}
			rs := fixture(t0, addrs, locks)
			for i, m := range tt.masters {
				if m.down {
					rs[i] = Reading{Addr: addrs[i], Err: errors.New("refused")}
					continue
				}
				rs[i].Role, rs[i].RunID, rs[i].Replicas = m.role, m.runID, m.replicas
				rs[i].ServerTime = t0.Add(-500 * time.Microsecond).Add(m.offset)
				if tt.trunc && i == 0 {
					rs[i].Untracked = 3
				}
				if m.sweeping {
					rs[i].Sweep = Sweep{Scanned: 500, Total: 1000}
				}
			}
			s := Aggregate(nil, rs, nil, t0, Config{})
			var found *Warning
			for i, w := range s.Warnings {
				if w.Kind == tt.wantKind {
					found = &s.Warnings[i]
				}
			}
			if tt.absent {
				if found != nil {
					t.Fatalf("unexpected %s warning: %v", tt.wantKind, *found)
				}
				return
			}
			if found == nil {
				t.Fatalf("no %s warning; got %v", tt.wantKind, s.Warnings)
			}
			if found.Severity != tt.wantSev || found.Master != tt.wantAddr || found.Text == "" {
				t.Errorf("warning = %+v, want severity %v master %q", *found, tt.wantSev, tt.wantAddr)
			}
			if tt.wantAddr != "" {
				i := slices.Index(addrs, tt.wantAddr)
				if !slices.Contains(s.Masters[i].Warnings, found.Text) {
					t.Errorf("master %s warnings %v lack %q", tt.wantAddr, s.Masters[i].Warnings, found.Text)
				}
			}
		})
	}
}

func TestAggregateForeignTokenWarningsAreCapped(t *testing.T) {
	locks := map[string][]cell{}
	for i := range maxLockWarnings + 3 {
		locks[fmt.Sprintf("r%02d", i)] = []cell{{"A", time.Second, 0}, {"A", time.Second, 0}, {"A", time.Second, 0}, {"B", time.Second, 0}, {}}
	}
	locks["clean"] = cells("C", 5)
	s := Aggregate(nil, fixture(t0, addrs5, locks), nil, t0, Config{})
	var texts []string
	for _, w := range s.Warnings {
		if w.Kind == WarnForeignTokens {
			texts = append(texts, w.Text)
		}
	}
	if len(texts) != maxLockWarnings+1 {
		t.Fatalf("%d foreign-token warnings, want %d named and one summary: %q", len(texts), maxLockWarnings, texts)
	}
	if want := `lock "r00" is held but another token is on m3`; texts[0] != want {
		t.Errorf("first warning %q, want %q", texts[0], want)
	}
	if !strings.Contains(texts[len(texts)-1], "3 more") {
		t.Errorf("summary %q does not count the 3 others", texts[len(texts)-1])
	}
}

func TestAggregateRestartWarningLastsLongestTTL(t *testing.T) {
	addrs := []string{"m0", "m1", "m2"}
	up := func(now time.Time, runID string, uptime time.Duration, locks map[string][]cell) []Reading {
		rs := fixture(now, addrs, locks)
		for i := range rs {
			rs[i].RunID, rs[i].Uptime, rs[i].Role = fmt.Sprintf("%s-%d", runID, i), uptime, "master"
		}
		return rs
	}
	lock := map[string][]cell{"r": {{"A", 30 * time.Second, 0}, {"A", 30 * time.Second, 0}, {"A", 30 * time.Second, 0}}}
	s1 := Aggregate(nil, up(t0, "old", time.Hour, lock), nil, t0, Config{})
	// All three restart; the lock is gone, but a 30s TTL was seen.
	now := t0.Add(5 * time.Second)
	s2 := Aggregate(&s1, up(now, "new", 2*time.Second, nil), nil, now, Config{})
	for _, a := range addrs {
		if !hasWarning(s2, WarnRestart, a) {
			t.Errorf("no restart warning for %s 2s after a restart with 30s TTLs seen: %v", a, s2.Warnings)
		}
	}
	if w := s2.Warnings[slices.IndexFunc(s2.Warnings, func(w Warning) bool { return w.Kind == WarnRestart })]; w.Severity != SeverityError {
		t.Errorf("restart warning severity = %v, want error", w.Severity)
	}
	later := t0.Add(40 * time.Second)
	s3 := Aggregate(&s2, up(later, "new", 37*time.Second, nil), nil, later, Config{})
	if hasWarning(s3, WarnRestart, "") {
		t.Errorf("restart warning still raised 37s after restart with 30s TTLs: %v", s3.Warnings)
	}
}

func TestAggregateClockDriftWarningAndEvent(t *testing.T) {
	// A clock gaining 2% (20000 ppm) against a drift factor of 1%.
	var prev *Snapshot
	var clockEvents int
	for i := range 6 {
		sent := t0.Add(time.Duration(i) * time.Second)
		r := fixture(sent, []string{"a", "b", "c"}, map[string][]cell{"r": {{"A", 5 * time.Second, 0}, {"A", 5 * time.Second, 0}, {"A", 5 * time.Second, 0}}})
		for j := range r {
			r[j].Sent, r[j].Received = sent, sent
			r[j].ServerTime = sent
		}
		r[1].ServerTime = sent.Add(time.Duration(i) * 20 * time.Millisecond)
		s := Aggregate(prev, r, nil, sent, Config{})
		prev = &s
		for _, e := range s.Events {
			if e.Kind == EventClockWarning && e.Time.Equal(sent) {
				clockEvents++
				if e.Master != "b" {
					t.Errorf("clock event for %q, want b", e.Master)
				}
			}
		}
		if i >= 2 && !hasWarning(s, WarnClockDrift, "b") {
			t.Errorf("poll %d: no drift warning for b (drift %.0f ppm known=%v)", i, s.Masters[1].DriftPPM, s.Masters[1].DriftKnown)
		}
		if hasWarning(s, WarnClockDrift, "a") || hasWarning(s, WarnClockDrift, "c") {
			t.Errorf("poll %d: drift warning for a master with a steady clock", i)
		}
	}
	if clockEvents != 1 {
		t.Errorf("%d clock-warning events, want 1 (raised when the condition starts)", clockEvents)
	}
}

func TestDriftTooFast(t *testing.T) {
	tests := []struct {
		ppm  float64
		ttl  time.Duration
		want bool
	}{
		{ppm: 20000, ttl: 10 * time.Second, want: true},
		{ppm: -20000, ttl: 10 * time.Second, want: true},
		{ppm: 5000, ttl: 10 * time.Second, want: false},
		{ppm: 10100, ttl: time.Second, want: false}, // 10.1ms drift vs 12ms allowance
		{ppm: 20000, ttl: 0, want: true},
		{ppm: 500, ttl: 0, want: false},
	}
	for _, tt := range tests {
		if got := driftTooFast(tt.ppm, tt.ttl, 0.01); got != tt.want {
			t.Errorf("driftTooFast(%v ppm, %v) = %v, want %v", tt.ppm, tt.ttl, got, tt.want)
		}
	}
}

func TestAggregateKeepsMaxEventsMostRecent(t *testing.T) {
	var prev *Snapshot
	for i := range 10 {
		now := t0.Add(time.Duration(i) * time.Second)
		rs := []Reading{{Addr: "a", Err: errors.New("down")}}
		if i%2 == 1 {
			rs = []Reading{{Addr: "a", Uptime: time.Hour, Replicas: -1}}
		}
		s := Aggregate(prev, rs, nil, now, Config{MaxEvents: 3})
		prev = &s
	}
	if len(prev.Events) != 3 {
		t.Fatalf("%d events kept, want 3", len(prev.Events))
	}
	for i, e := range prev.Events {
		if want := t0.Add(time.Duration(7+i) * time.Second); !e.Time.Equal(want) {
			t.Errorf("event %d at %v, want %v (the most recent, oldest first)", i, e.Time, want)
		}
	}
}

func TestAggregateDoesNotModifyPrev(t *testing.T) {
	own := map[string]OwnLock{"r": {Token: "A"}}
	s1 := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": cells("A", 3), "q": cells("Q", 2)}), own, t0, Config{})
	before := deepCopy(s1)
	rs := fixture(t0.Add(time.Second), addrs5, map[string][]cell{"r": cells("B", 4)})
	rs[4] = Reading{Addr: "m4", Err: errors.New("down")}
	s2 := Aggregate(&s1, rs, own, t0.Add(time.Second), Config{})
	if !reflect.DeepEqual(before, s1) {
		t.Errorf("Aggregate modified the previous snapshot")
	}
	if len(s2.Events) == 0 {
		t.Errorf("no events for a changed snapshot")
	}
}

// deepCopy copies every slice a Snapshot shares with the one it was built from.
func deepCopy(s Snapshot) Snapshot {
	c := s
	c.Masters = slices.Clone(s.Masters)
	for i := range c.Masters {
		c.Masters[i].Warnings = slices.Clone(s.Masters[i].Warnings)
	}
	c.Locks = slices.Clone(s.Locks)
	for i := range c.Locks {
		c.Locks[i].Masters = slices.Clone(s.Locks[i].Masters)
		c.Locks[i].hist.tokens = slices.Clone(s.Locks[i].hist.tokens)
	}
	c.Warnings = slices.Clone(s.Warnings)
	c.Events = slices.Clone(s.Events)
	return c
}

// TestEventTextsQuoteTokens: an event's sentence quotes a token as it is (vocab.Quote), not escaped: every
// output escapes the whole sentence once (untrusted.Escape), and a token escaped here too would show its
// escapes doubled ("\\x1b[2J" beside the \x1b[2J of the lock's own row).
func TestEventTextsQuoteTokens(t *testing.T) {
	s1 := Aggregate(nil, fixture(t0, addrs5, nil), nil, t0, Config{})
	s2 := Aggregate(&s1, fixture(t0, addrs5, map[string][]cell{"r": cells("\x1b[2J", 3)}), nil, t0, Config{})
	found := false
	for _, e := range s2.Events {
		if e.Kind == EventLockAppeared {
			found = true
			if want := "appeared, held by \"\x1b[2J\""; e.Text != want {
				t.Errorf("event text %q, want %q: the token quoted as it is", e.Text, want)
			}
		}
	}
	if !found {
		t.Errorf("no lock-appeared event among %+v", s2.Events)
	}
}

func TestAggregateQuorumWithoutValidityIsNotHeld(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		want  LockState
	}{
		{"quorum inside the drift allowance", []cell{{"A", time.Millisecond, 0}, {"A", time.Millisecond, 0}, {"A", time.Millisecond, 0}, {}, {}}, StatePartial},
		// A's keys expired before the snapshot: gone, not a second token beside B's.
		{"quorum already expired by read time", []cell{{"A", time.Second, 2 * time.Second}, {"A", time.Second, 2 * time.Second}, {"A", time.Second, 2 * time.Second}, {"B", time.Second, 0}, {}}, StatePartial},
		{"quorum with validity", []cell{{"A", time.Second, 0}, {"A", time.Second, 0}, {"A", time.Second, 0}, {}, {}}, StateHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": tt.cells}), nil, t0, Config{})
			l := lockOf(t, s, "r")
			if l.State != tt.want {
				t.Fatalf("state %s, want %s (validity %s)", l.State, tt.want, l.ValidityAt(s.Time))
			}
			if l.State != StateHeld && (l.Holder != "" || l.ValidityAt(s.Time) != 0) {
				t.Fatalf("a lock that is not held reports holder %q validity %s", l.Holder, l.ValidityAt(s.Time))
			}
		})
	}
}

func TestAggregateUnknownCellsNeverDecideAgainstALock(t *testing.T) {
	silent := func(rs []Reading, i ...int) []Reading {
		for _, j := range i {
			rs[j] = Reading{Addr: rs[j].Addr, Err: errors.New("i/o timeout")}
		}
		return rs
	}
	tests := []struct {
		name   string
		cells  []cell
		silent []int
		own    string
		want   LockState
	}{
		{name: "3 seen of 5: held whatever the others", cells: cells("A", 3), silent: []int{3, 4}, want: StateHeld},
		{name: "2 seen, 1 not read: could be held", cells: cells("A", 3), silent: []int{2}, want: StateUnknown},
		{name: "1 seen, 3 absent, 1 not read: cannot be held", cells: cells("A", 1), silent: []int{4}, want: StatePartial},
		{name: "1 seen, 3 not read", cells: cells("A", 4), silent: []int{1, 2, 3}, want: StateUnknown},
		{name: "ours, 2 seen, 1 not read: not lost", cells: cells("A", 3), silent: []int{2}, own: "A", want: StateUnknown},
		{name: "ours, 1 seen, 1 not read: lost", cells: cells("A", 1), silent: []int{4}, own: "A", want: StateLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			own := map[string]OwnLock{}
			if tt.own != "" {
				own["r"] = OwnLock{Token: tt.own, AcquiredAt: t0.Add(-time.Minute)}
			}
			s := Aggregate(nil, silent(fixture(t0, addrs5, map[string][]cell{"r": tt.cells}), tt.silent...), own, t0, Config{})
			l := lockOf(t, s, "r")
			if l.State != tt.want || l.Unknown != len(tt.silent) {
				t.Errorf("state %s with %d unknown, want %s with %d", l.State, l.Unknown, tt.want, len(tt.silent))
			}
			if tt.own != "" && !l.AcquiredAt.Equal(t0.Add(-time.Minute)) {
				t.Errorf("our lock's AcquiredAt = %v, want the acquisition time registered", l.AcquiredAt)
			}
		})
	}
}

func TestAggregateMissedPollKeepsFirstSeenAndRaisesNoLockEvent(t *testing.T) {
	s1 := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": cells("A", 5)}), nil, t0, Config{})
	rs := fixture(t0.Add(time.Second), addrs5, nil) // no master read "r" this time: it is unknown everywhere
	for i := range rs {
		rs[i] = Reading{Addr: rs[i].Addr, Err: errors.New("i/o timeout")}
	}
	s2 := Aggregate(&s1, rs, nil, t0.Add(time.Second), Config{})
	s3 := Aggregate(&s2, fixture(t0.Add(2*time.Second), addrs5, map[string][]cell{"r": cells("A", 5)}), nil, t0.Add(2*time.Second), Config{})
	if l := lockOf(t, s2, "r"); l.State != StateUnknown || l.Masters[0].Token != "A" {
		t.Errorf("nothing answered: %s with cell %+v, want unknown keeping the token last seen", l.State, l.Masters[0])
	}
	if l := lockOf(t, s3, "r"); l.State != StateHeld || !l.FirstSeen.Equal(t0) {
		t.Errorf("answered again: %s first seen %v, want held, first seen still %v", l.State, l.FirstSeen, t0)
	}
	for _, e := range s3.Events {
		if e.Resource != "" {
			t.Errorf("lock event across a missed poll: %v", e)
		}
	}
}

func TestAggregateRestartIsFlaggedAtFirstSight(t *testing.T) {
	up := func(uptime time.Duration, keys ...KeyReading) Reading {
		return Reading{Addr: "a", RunID: "x", Role: "master", Uptime: uptime, Replicas: 0, Keys: keys, Sweep: Sweep{Completed: 1}}
	}
	lock := KeyReading{Key: "r", Value: "T", PTTL: 10 * time.Minute, ReadAt: t0}
	tests := []struct {
		name string
		r    Reading
		ttl  time.Duration // of a lock of ours, registered but not read yet
		want bool
	}{
		{"started 30s ago, a 10-minute lock", up(30*time.Second, lock), 0, true},
		{"started an hour ago, a 10-minute lock", up(time.Hour, lock), 0, false},
		{"started 30s ago, no lock read, ours of 1m", up(30 * time.Second), time.Minute, true},
		{"started 30s ago, no lock, no TTL known", up(30 * time.Second), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var own map[string]OwnLock
			if tt.ttl > 0 {
				own = map[string]OwnLock{"ours": {Token: "O", AcquiredAt: t0, TTL: tt.ttl}}
			}
			s := Aggregate(nil, []Reading{tt.r}, own, t0, Config{})
			if got := hasWarning(s, WarnRestart, "a"); got != tt.want {
				t.Errorf("restart warning %v, want %v: %v", got, tt.want, s.Warnings)
			}
		})
	}
}

// TestLocksAMasterCouldNotReadAreCountedAndWarned: a master that answered but ran out of time before it
// re-read a known lock leaves that lock unread: the snapshot counts it and warns, and once every master reads
// it again the count and the warning go (issue 25).
func TestLocksAMasterCouldNotReadAreCountedAndWarned(t *testing.T) {
	cfg := Config{}
	first := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"a": cells("tA", 5), "b": cells("tB", 5)}), nil, t0, cfg)
	if first.Unread != 0 || hasWarning(first, WarnUnread, "") {
		t.Fatalf("first snapshot: unread %d, warnings %v; want none", first.Unread, first.Warnings)
	}
	now := t0.Add(time.Second)
	rs := fixture(now, addrs5, map[string][]cell{"a": cells("tA", 5), "b": cells("tB", 5)})
	rs[3].Keys = slices.DeleteFunc(rs[3].Keys, func(k KeyReading) bool { return k.Key == "b" }) // m3 ran out of time
	rs[4] = Reading{Addr: "m4", Err: errors.New("timeout")}                                     // down: not counted
	second := Aggregate(&first, rs, nil, now, cfg)
	if second.Unread != 1 || !hasWarning(second, WarnUnread, "") {
		t.Fatalf("m3 did not read b: unread %d, warnings %v; want 1 with a warning", second.Unread, second.Warnings)
	}
	if l := lockOf(t, second, "b"); l.State != StateHeld {
		t.Errorf("b, not read on m3 but held on the others: %s, want held", l.State)
	}
	later := t0.Add(2 * time.Second)
	third := Aggregate(&second, fixture(later, addrs5, map[string][]cell{"a": cells("tA", 5), "b": cells("tB", 5)}), nil, later, cfg)
	if third.Unread != 0 || hasWarning(third, WarnUnread, "") {
		t.Errorf("every master read again: unread %d, warnings %v; want none", third.Unread, third.Warnings)
	}
}

// TestADeltaShowsAKeyNotReadAsLastReadAndUnknownOnceItsTTLRanOut: a tracked master's reading that does not
// read a key says it did not change: its cell is as the last read saw it, while its TTL, counted from that
// read, runs; once it has run out the cell is unknown (the master's clock may be slower than ours, and the key
// still there), never absent.
func TestADeltaShowsAKeyNotReadAsLastReadAndUnknownOnceItsTTLRanOut(t *testing.T) {
	held := make([]cell, 5)
	for i := range held {
		held[i] = cell{tok: "A", pttl: time.Second}
	}
	first := fixture(t0, addrs5, map[string][]cell{"lock:a": held})
	for i := range first {
		first[i].Seq = 1
	}
	s1 := Aggregate(nil, first, nil, t0, Config{})
	// The next readings read nothing: deltas of the first.
	next := func(at time.Time) Snapshot {
		rs := fixture(at, addrs5, nil)
		for i := range rs {
			rs[i].Seq, rs[i].Delta, rs[i].DeltaOf = 2, true, 1
		}
		return Aggregate(&s1, rs, nil, at, Config{})
	}
	l := lockOf(t, next(t0.Add(500*time.Millisecond)), "lock:a")
	if l.State != StateHeld || l.Unknown != 0 || l.Masters[0].State != CellSeen || l.Masters[0].Token != "A" {
		t.Errorf("within the TTL: %s, %d unknown, first cell %+v; want held on five, as last read", l.State, l.Unknown, l.Masters[0])
	}
	l = lockOf(t, next(t0.Add(1500*time.Millisecond)), "lock:a")
	for j, c := range l.Masters {
		if c.State != CellUnknown || c.Token != "A" {
			t.Errorf("master %d after the TTL ran out, not read: %+v, want unknown with the token last seen", j, c)
		}
	}
	if l.Holder != "" && l.ValidityAt(t0.Add(1500*time.Millisecond)) > 0 {
		t.Errorf("after the TTL ran out: held by %q with validity left", l.Holder)
	}
}

// TestAPollWithChangesTakesTheOtherLocksAsTheyWere: a poll whose readings are all deltas, with one lock changed,
// shows the others as a poll reading every key would (same state, holder, cells, validity, sightings), taking
// their rows as they were (their cells in the earlier poll's array: it costs what changed); and the arrays so
// kept alive are bounded: once the polls with changes have built sharedBound locks, a poll builds every lock
// in new arrays.
func TestAPollWithChangesTakesTheOtherLocksAsTheyWere(t *testing.T) {
	first := fixture(t0, addrs5, map[string][]cell{"lock:a": cells("A", 5), "lock:b": cells("B", 5), "lock:c": cells("C", 3)})
	for i := range first {
		first[i].Seq = 1
	}
	s1 := Aggregate(nil, first, nil, t0, Config{})
	at := t0.Add(time.Second)
	// lock:b is taken by D, read now; the others were last read at t0.
	delta := fixture(at, addrs5, map[string][]cell{"lock:b": cells("D", 5)})
	full := fixture(at, addrs5, map[string][]cell{"lock:b": cells("D", 5)})
	for res, cs := range map[string][]cell{"lock:a": cells("A", 5), "lock:c": cells("C", 3)} {
		for j, c := range cs {
			if c.tok == "" {
				full[j].Keys = append(full[j].Keys, KeyReading{Key: res, Absent: true})
				continue
			}
			full[j].Keys = append(full[j].Keys, KeyReading{Key: res, Value: c.tok, PTTL: c.pttl, ReadAt: t0})
		}
	}
	for i := range delta {
		delta[i].Seq, delta[i].Delta, delta[i].DeltaOf = 2, true, 1
		full[i].Seq = 2
	}
	byDelta, byFull := Aggregate(&s1, delta, nil, at, Config{}), Aggregate(&s1, full, nil, at, Config{})
	for _, res := range []string{"lock:a", "lock:b", "lock:c"} {
		d, f := lockOf(t, byDelta, res), lockOf(t, byFull, res)
		if d.State != f.State || d.Holder != f.Holder || d.Count != f.Count || d.Unknown != f.Unknown ||
			!reflect.DeepEqual(d.Masters, f.Masters) || d.ValidityAt(at) != f.ValidityAt(at) ||
			!d.FirstSeen.Equal(f.FirstSeen) || d.Changes != f.Changes {
			t.Errorf("%s by deltas: %s %q on %d, validity %v, first seen %v, %d changes, cells %+v;\nread in full: %s %q on %d, validity %v, first seen %v, %d changes, cells %+v",
				res, d.State, d.Holder, d.Count, d.ValidityAt(at), d.FirstSeen, d.Changes, d.Masters,
				f.State, f.Holder, f.Count, f.ValidityAt(at), f.FirstSeen, f.Changes, f.Masters)
		}
		if shared := &lockOf(t, s1, res).Masters[0] == &d.Masters[0]; shared != (res != "lock:b") {
			t.Errorf("%s: cells in the previous snapshot's array: %v, want %v", res, shared, res != "lock:b")
		}
	}
	if l := lockOf(t, byDelta, "lock:b"); l.Holder != "D" {
		t.Errorf("the changed lock: held by %q, want D", l.Holder)
	}
	// lock:b changes at every poll; lock:a never. Each poll builds one lock.
	bound := sharedBound(3)
	prev, polls := byDelta, 1
	for ; &lockOf(t, prev, "lock:a").Masters[0] == &lockOf(t, s1, "lock:a").Masters[0]; polls++ {
		if polls > bound {
			t.Fatalf("after %d polls with changes of one lock, lock:a's cells are still the first poll's array", polls)
		}
		at = at.Add(time.Millisecond) // lock:a's TTL, 10s, lasts
		rs := fixture(at, addrs5, map[string][]cell{"lock:b": cells(fmt.Sprint("E", polls), 5)})
		for i := range rs {
			rs[i].Seq, rs[i].Delta, rs[i].DeltaOf = prev.Masters[i].readSeq+1, true, prev.Masters[i].readSeq
		}
		prev = Aggregate(&prev, rs, nil, at, Config{})
		if a := lockOf(t, prev, "lock:a"); a.State != StateHeld || a.Holder != "A" {
			t.Fatalf("poll %d: lock:a %s by %q, want held by A", polls+1, a.State, a.Holder)
		}
	}
	if polls != bound+1 {
		t.Errorf("lock:a's cells were built again by poll %d, want %d: the first after %d polls had each built one lock", polls, bound+1, bound)
	}
}
