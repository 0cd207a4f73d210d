package monitor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// poll is one poll of a story: the cells of resource "r" on the five masters, which masters did not answer,
// and the token registered as ours on "r" ("" none).
type poll struct {
	cells  []cell
	silent []int
	late   []int // masters that answered only now a read sent twice its cell's age ago (out of a pause)
	own    string
}

// ours is p with tok registered as our lock on "r".
func (p poll) ours(tok string) poll { p.own = tok; return p }

// story aggregates the polls one second apart, starting at t0, and returns every snapshot.
func story(t *testing.T, cfg Config, polls ...poll) []Snapshot {
	t.Helper()
	var snaps []Snapshot
	var prev *Snapshot
	for i, p := range polls {
		now := t0.Add(time.Duration(i) * time.Second)
		locks := map[string][]cell{}
		if p.cells != nil {
			locks["r"] = p.cells
		}
		rs := fixture(now, addrs5, locks)
		for _, j := range p.silent {
			rs[j] = Reading{Addr: rs[j].Addr, Err: fmt.Errorf("no answer within 1s")}
		}
		for _, j := range p.late {
			for k := range rs[j].Keys {
				rs[j].Keys[k].ReadWithin = now.Sub(rs[j].Keys[k].ReadAt)
			}
		}
		var own map[string]OwnLock
		if p.own != "" {
			own = map[string]OwnLock{"r": {Token: p.own, AcquiredAt: t0.Add(-time.Second)}}
		}
		s := Aggregate(prev, rs, own, now, cfg)
		snaps = append(snaps, s)
		prev = &snaps[len(snaps)-1]
	}
	return snaps
}

// raised lists the kinds of the lock events s raised at its own time.
func raised(s Snapshot) []EventKind {
	var ks []EventKind
	for _, e := range s.Events {
		if e.Time.Equal(s.Time) && e.Resource != "" {
			ks = append(ks, e.Kind)
		}
	}
	return ks
}

// errorKinds lists the kinds of s's error warnings.
func errorKinds(s Snapshot) []string {
	var ks []string
	for _, w := range s.Warnings {
		if w.Severity == SeverityError {
			ks = append(ks, w.Kind)
		}
	}
	return ks
}

// at9 is a cell of token tok with 9s left, read now.
func at9(tok string) cell { return cell{tok: tok, pttl: 9 * time.Second} }

// Observation 1: a poll whose reads straddle the DELs of a release sees the holder's key gone on some masters
// and alive on others. Only the next poll can tell a release (gone everywhere) from a loss (still there).
func TestAggregateAlarmIsConfirmedByTheNextPoll(t *testing.T) {
	held := poll{cells: cells("A", 5)}
	straddled := poll{cells: []cell{{}, {}, {}, at9("A"), at9("A")}}             // DEL landed on m0-m2, not yet on m3-m4
	twoTokens := poll{cells: []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}}} // A releasing, B acquiring
	tests := []struct {
		name         string
		polls        []poll
		wantPending  []EventKind // events of the last poll but one: none, the state is unconfirmed
		wantAtLast   []EventKind
		wantLastErrs []string
	}{
		{name: "a release in flight, then gone everywhere", polls: []poll{held, straddled, {cells: make([]cell, 5)}},
			wantAtLast: []EventKind{EventLockReleased}},
		{name: "a release in flight, then a new holder", polls: []poll{held, straddled, {cells: cells("B", 5)}},
			wantAtLast: []EventKind{EventTakenOver}},
		{name: "a real loss: still on two masters at the next poll", polls: []poll{held, straddled, straddled},
			wantAtLast: []EventKind{EventQuorumLost}, wantLastErrs: []string{WarnQuorumLost}},
		{name: "two tokens for an instant", polls: []poll{held, twoTokens, {cells: cells("B", 5)}},
			wantAtLast: []EventKind{EventTakenOver}},
		{name: "a real split: the same tokens at the next poll", polls: []poll{held, twoTokens, twoTokens},
			wantAtLast: []EventKind{EventQuorumLost, EventLockSplit}, wantLastErrs: []string{WarnQuorumLost}},
		// The registration goes when the release returns, after the poll that straddles its DELs.
		{name: "our lock released while a poll reads it", polls: []poll{held.ours("A"), straddled.ours("A"), {cells: make([]cell, 5)}},
			wantAtLast: []EventKind{EventLockReleased}},
		{name: "our lock really lost", polls: []poll{held.ours("A"), straddled.ours("A"), straddled.ours("A")},
			wantAtLast: []EventKind{EventLockLost}, wantLastErrs: []string{WarnLockLost}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snaps := story(t, Config{}, tt.polls...)
			mid := snaps[1]
			if got := raised(mid); len(got) != 0 {
				t.Errorf("the poll that straddles the change raised %v: an alarm before it is confirmed", got)
			}
			if got := errorKinds(mid); len(got) != 0 {
				t.Errorf("the poll that straddles the change shows red warnings %v", got)
			}
			if l := lockOf(t, mid, "r"); l.State != StateUnconfirmed {
				t.Errorf("the straddling poll shows %s, want %s", l.State, StateUnconfirmed)
			}
			last := snaps[2]
			if got := raised(last); !slices.Equal(got, tt.wantAtLast) {
				t.Errorf("the next poll raised %v, want %v", got, tt.wantAtLast)
			}
			if got := errorKinds(last); !slices.Equal(got, tt.wantLastErrs) {
				t.Errorf("the next poll's errors are %v, want %v", got, tt.wantLastErrs)
			}
		})
	}
}

// Observation 3: a lock on exactly masters 0-2; master 0 stops answering, then comes back empty (restarted
// without persistence). While it was silent the lock was undecided; when it answers without the holder's key,
// the key it held is gone from the count, two masters are below the quorum long before the TTL: a lost
// quorum, judged against the last decided state (held on three), not against the undecided snapshot before.
func TestAggregateAMasterBackWithoutTheKeyIsALostQuorum(t *testing.T) {
	held := []cell{{tok: "A", pttl: 30 * time.Second}, {tok: "A", pttl: 30 * time.Second}, {tok: "A", pttl: 30 * time.Second}, {}, {}}
	back := []cell{{}, {tok: "A", pttl: 27 * time.Second}, {tok: "A", pttl: 27 * time.Second}, {}, {}}
	snaps := story(t, Config{},
		poll{cells: held},
		poll{cells: held, silent: []int{0}},
		poll{cells: held, silent: []int{0}},
		poll{cells: back},
		poll{cells: back},
		poll{cells: back})
	for i := 1; i <= 2; i++ {
		if l := lockOf(t, snaps[i], "r"); l.State != StateUnknown || len(raised(snaps[i])) != 0 {
			t.Errorf("poll %d, master 0 silent: %s raising %v, want unknown and no lock event", i, l.State, raised(snaps[i]))
		}
	}
	var at []int
	for i := 3; i < len(snaps); i++ {
		if slices.Contains(raised(snaps[i]), EventQuorumLost) {
			at = append(at, i)
		}
	}
	if !slices.Equal(at, []int{4}) {
		t.Fatalf("quorum-lost raised at polls %v, want once, at poll 4 (the one after master 0 came back empty, which confirms it)", at)
	}
	if l := lockOf(t, snaps[5], "r"); !l.QuorumLost || !slices.Contains(errorKinds(snaps[5]), WarnQuorumLost) {
		t.Errorf("after the loss: quorum-lost %v, errors %v; want flagged with a quorum-lost error", l.QuorumLost, errorKinds(snaps[5]))
	}

	// Its first answer back is late (a reconnection): that "no key" is not current, and must not erase what
	// master 0 was last seen holding, or the loss is never judged.
	snaps = story(t, Config{},
		poll{cells: held},
		poll{cells: held, silent: []int{0}},
		poll{cells: back, late: []int{0}},
		poll{cells: back},
		poll{cells: back})
	if l := lockOf(t, snaps[2], "r"); l.Masters[0].State != CellUnknown || l.Masters[0].Token != "A" {
		t.Errorf("a late 'no key' from master 0: cell %+v, want unknown, A last seen there", l.Masters[0])
	}
	if got := raised(snaps[4]); !slices.Equal(got, []EventKind{EventQuorumLost}) {
		t.Errorf("after a late first answer: the second current poll raised %v, want quorum-lost", got)
	}
}

// Observation 2: a cell is as old as its read. A master that resumes from a pause mid-poll answers a read it
// was sent long before, so when it read is known only within that wait (and a key whose PTTL, counted from
// its read, has run out by the snapshot's time is gone); such cells must not count as current.
func TestAggregateACellIsAsOldAsItsRead(t *testing.T) {
	const interval = 200 * time.Millisecond
	cfg := Config{Interval: interval}
	heldA := poll{cells: cells("A", 5)}
	tests := []struct {
		name      string
		cfg       Config
		now       []cell
		late      []int
		wantState LockState
		wantCells []CellState
	}{
		{name: "a token whose TTL ran out before the snapshot does not count", cfg: Config{Interval: time.Second},
			now: []cell{{tok: "A", pttl: 200 * time.Millisecond, age: 338 * time.Millisecond}, at9("B"), at9("B"), {}, {}},
			// A counted would make it split: two tokens at once, a state that never existed.
			wantState: StatePartial, wantCells: []CellState{CellAbsent, CellSeen, CellSeen, CellAbsent, CellAbsent}},
		{name: "reads made in a 676ms round trip at a 200ms poll do not decide a release", cfg: cfg, late: []int{0, 1},
			now: []cell{{tok: "A", pttl: 9 * time.Second, age: 338 * time.Millisecond}, {tok: "A", pttl: 9 * time.Second, age: 338 * time.Millisecond}, {}, {}, {}},
			// Undecided on the two late masters, but even both could not make a quorum: partial, no event.
			wantState: StatePartial, wantCells: []CellState{CellUnknown, CellUnknown, CellAbsent, CellAbsent, CellAbsent}},
		{name: "a late 'no key' is not current either", cfg: cfg, late: []int{0, 1},
			now:       []cell{{}, {}, at9("A"), at9("A"), at9("A")},
			wantState: StateHeld, wantCells: []CellState{CellUnknown, CellUnknown, CellSeen, CellSeen, CellSeen}},
		{name: "nor a split", cfg: cfg, late: []int{0, 1},
			now:       []cell{{tok: "A", pttl: 9 * time.Second, age: 338 * time.Millisecond}, {tok: "A", pttl: 9 * time.Second, age: 338 * time.Millisecond}, at9("B"), at9("B"), {}},
			wantState: StateUnknown, wantCells: []CellState{CellUnknown, CellUnknown, CellSeen, CellSeen, CellAbsent}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snaps := story(t, tt.cfg, heldA, poll{cells: tt.now, late: tt.late})
			l := lockOf(t, snaps[1], "r")
			var got, want []string
			for j, c := range l.Masters {
				got, want = append(got, c.State.String()), append(want, tt.wantCells[j].String())
			}
			if l.State != tt.wantState || !slices.Equal(got, want) {
				t.Errorf("state %s with cells %v, want %s with %v", l.State, got, tt.wantState, want)
			}
			if evs := raised(snaps[1]); len(evs) != 0 {
				t.Errorf("raised %v from reads that were not current", evs)
			}
		})
	}
}

// Observation 4: every holder is named once, when it becomes known and differs from the last one named, even
// after a first sighting without a holder; and a release names the holder only if its keys were the ones
// that went.
func TestAggregateEveryHolderIsNamedOnce(t *testing.T) {
	none := poll{cells: make([]cell, 5)}
	tests := []struct {
		name  string
		polls []poll
		want  string // the text the last poll's event must contain
		kind  EventKind
	}{
		{name: "partial, then held", polls: []poll{none, {cells: cells("A", 2)}, {cells: cells("A", 3)}},
			want: `"A"`, kind: EventLockHeld},
		{name: "split, then held", polls: []poll{none, {cells: []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}}}, {cells: cells("B", 3)}},
			want: `"B"`, kind: EventLockHeld},
		{name: "a stray token goes, not the holder's", polls: []poll{none, {cells: cells("A", 3)}, {cells: []cell{at9("Y"), {}, {}, {}, {}}},
			{cells: make([]cell, 5)}}, want: `"Y"`, kind: EventLockReleased},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snaps := story(t, Config{}, tt.polls...)
			last := snaps[len(snaps)-1]
			var found bool
			for _, e := range last.Events {
				if e.Time.Equal(last.Time) && e.Kind == tt.kind && strings.Contains(e.Text, tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("last poll's events %v: want a %s naming %s", last.Events, tt.kind, tt.want)
			}
			// Named once: the same state again raises nothing.
			again := tt.polls[len(tt.polls)-1]
			if tt.kind != EventLockReleased {
				more := story(t, Config{}, append(tt.polls, again)...)
				if evs := raised(more[len(more)-1]); len(evs) != 0 {
					t.Errorf("the same holder again: %v, want nothing", evs)
				}
			}
		})
	}
}

// Observation 7: a lock that cannot reach a quorum even if every unread master held it is decided, not
// unknown: three masters answer "no key", two are not read.
func TestAggregateDecidesWhatIsDecidable(t *testing.T) {
	snaps := story(t, Config{}, poll{cells: cells("A", 5)}, poll{cells: make([]cell, 5), silent: []int{3, 4}})
	if l := lockOf(t, snaps[1], "r"); l.State == StateUnknown {
		t.Errorf("absent on 3 of 5, 2 unread: %s; even both unread cannot make a quorum", l.State)
	}
}

// Observation 8: the restart rule weighs a master's uptime against the TTLs of the locks seen and of ours,
// never against a TTL that no lock has (the dashboard's --ttl default).
func TestAggregateRestartRuleUsesTheTTLsOfLocksSeen(t *testing.T) {
	up := Reading{Addr: "a", RunID: "x", Role: "master", Uptime: 5 * time.Second, Replicas: 0, Sweep: Sweep{Completed: 1},
		Keys: []KeyReading{{Key: "r", Value: "T", PTTL: 3 * time.Second, ReadAt: t0}}}
	if s := Aggregate(nil, []Reading{up}, nil, t0, Config{}); hasWarning(s, WarnRestart, "a") {
		t.Errorf("started 5s ago, locks of 3s, no lock of ours: a restart warning against a TTL no lock has: %v", s.Warnings)
	}
	own := map[string]OwnLock{"ours": {Token: "O", AcquiredAt: t0, TTL: 10 * time.Second}}
	if s := Aggregate(nil, []Reading{up}, own, t0, Config{}); !hasWarning(s, WarnRestart, "a") {
		t.Errorf("started 5s ago, a lock of ours of 10s: no restart warning: %v", s.Warnings)
	}
}

// Observation 7: a lock this process force-deleted is reported gone as that deletion, not as a release by its
// holder; another token's going is still a release.
func TestAggregateOurDeletionIsADeletion(t *testing.T) {
	for _, tt := range []struct {
		deleted string
		want    EventKind
	}{{"A", EventLockDeleted}, {"B", EventLockReleased}} {
		s1 := Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"r": cells("A", 5)}), nil, t0, Config{})
		own := map[string]OwnLock{"r": {Deleted: []string{tt.deleted}}}
		now := t0.Add(time.Second)
		s2 := Aggregate(&s1, fixture(now, addrs5, map[string][]cell{"r": make([]cell, 5)}), own, now, Config{})
		if got := raised(s2); !slices.Equal(got, []EventKind{tt.want}) {
			t.Errorf("A gone after we deleted %q: %v, want %s", tt.deleted, got, tt.want)
		}
		if l := s2.Locks; len(l) != 0 && (len(l) != 1 || l[0].State != StateFree || l[0].Mine) {
			t.Errorf("a deletion noted shows the lock as ours, or held: %+v", l)
		}
	}
}
