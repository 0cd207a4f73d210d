package monitor

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSeveritiesRankInfoBelowWarningBelowError: the rank, not the constants' values, orders severities, and
// each word parses back to its severity.
func TestSeveritiesRankInfoBelowWarningBelowError(t *testing.T) {
	if !(SeverityInfo.Rank() < SeverityWarning.Rank() && SeverityWarning.Rank() < SeverityError.Rank()) {
		t.Errorf("ranks info %d, warning %d, error %d; want info < warning < error",
			SeverityInfo.Rank(), SeverityWarning.Rank(), SeverityError.Rank())
	}
	if SeverityInfo.AtLeast(SeverityWarning) || !SeverityError.AtLeast(SeverityWarning) {
		t.Error("AtLeast(warning): info passes or error does not")
	}
	for _, s := range Severities {
		word, err := s.MarshalText()
		var got Severity
		if err != nil || string(word) != s.String() || got.UnmarshalText(word) != nil || got != s {
			t.Errorf("%v written as %q (%v), read back as %v; want its word, and it again", s, word, err, got)
		}
	}
	for _, word := range []string{"", "Warning", "fatal"} {
		var got Severity
		if err := got.UnmarshalText([]byte(word)); err == nil || !strings.Contains(err.Error(), strconv.Quote(word)) {
			t.Errorf("severity %q read as %v, error %v; want an error naming it", word, got, err)
		}
	}
}

// TestLockStatesListEveryStateOnceTroubleFirst: the one list of lock states has each state once, ours lost
// first and free last, and only unconfirmed is labelled otherwise than its name.
func TestLockStatesListEveryStateOnceTroubleFirst(t *testing.T) {
	all := []LockState{StateHeld, StatePartial, StateSplit, StateLost, StateStuck, StateUnknown, StateUnconfirmed, StateFree}
	if len(LockStates) != len(all) {
		t.Fatalf("LockStates has %d states, want %d: %v", len(LockStates), len(all), LockStates)
	}
	for _, st := range all {
		if LockStates[st.Rank()] != st {
			t.Errorf("%s is not in LockStates, or twice: %v", st, LockStates)
		}
		if want := map[bool]string{true: "checking", false: string(st)}[st == StateUnconfirmed]; st.Label() != want {
			t.Errorf("%s labelled %q, want %q", st, st.Label(), want)
		}
	}
	if LockStates[0] != StateLost || LockStates[len(LockStates)-1] != StateFree {
		t.Errorf("LockStates %v: want ours lost first and free last", LockStates)
	}
}

// TestMasterStateHasOneWordEach: down wins over silent, silent over a duplicate; the text adds the reason.
func TestMasterStateHasOneWordEach(t *testing.T) {
	for _, tc := range []struct {
		m    MasterStatus
		want string
	}{
		{MasterStatus{Up: true}, "up"},
		{MasterStatus{Up: true, DuplicateOf: "a:1"}, "dup: same server as a:1"},
		{MasterStatus{Err: "i/o timeout", DuplicateOf: "a:1"}, "silent: i/o timeout"},
		{MasterStatus{Down: true, Err: "refused"}, "down: refused"},
	} {
		if got := tc.m.StateText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.m, got, tc.want)
		}
	}
}

// TestHealthCountsAMissingClusterPrimaryAsNoQuorum: the header and --once's exit status read one health: a
// cluster whose primary did not answer cannot take the locks of its slots.
func TestHealthCountsAMissingClusterPrimaryAsNoQuorum(t *testing.T) {
	ok := Snapshot{Quorum: 1, UpCount: 1, Servers: 1, Masters: []MasterStatus{{Up: true,
		Cluster: &ClusterStatus{Primaries: []ClusterPrimary{{MasterStatus: MasterStatus{Up: true}}}}}}}
	if h := ok.Health(); h != HealthOK {
		t.Errorf("a cluster with every primary up: %s, want OK", h)
	}
	missing := ok
	missing.Masters = []MasterStatus{{Up: true, Cluster: &ClusterStatus{Primaries: []ClusterPrimary{
		{MasterStatus: MasterStatus{Up: true}}, {MasterStatus: MasterStatus{Err: "timeout"}}}}}}
	if h := missing.Health(); h != HealthNoQuorum {
		t.Errorf("a cluster with a primary not answering: %s, want NO QUORUM", h)
	}
	warned := ok
	warned.Warnings = []Warning{{Severity: SeverityInfo}, {Severity: SeverityError}, {Severity: SeverityWarning}}
	if h := warned.Health(); h != HealthUnsafe {
		t.Errorf("an error among the warnings: %s, want UNSAFE", h)
	}
}

// TestQualifiersAreDecidedOnce: a lock's qualifiers follow from its view and the time alone, in one order,
// and read as words in a sentence; the dashboard, the table and the report all take them from here.
func TestQualifiersAreDecidedOnce(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	held := &LockView{State: StateHeld, Mine: true, Foreign: true}
	held.SetValidity(at, 10*time.Second)
	guess := &LockView{State: StateHeld, Heuristic: true}
	guess.SetValidity(at, 10*time.Second)
	lost := &LockView{State: StatePartial, QuorumLost: true, Heuristic: true}
	for _, tt := range []struct {
		name string
		v    *LockView
		now  time.Time
		want []Qualifier
	}{
		{"held, ours, another token present", held, at, []Qualifier{QualifierMine, QualifierForeign}},
		{"the same once its validity ran out", held, at.Add(20 * time.Second), []Qualifier{QualifierMine, QualifierForeign, QualifierRunOut}},
		{"held by grouping Redisson holders", guess, at, []Qualifier{QualifierGuess}},
		{"below quorum, not held: no guess, no validity", lost, at.Add(time.Hour), []Qualifier{QualifierQuorumLost}},
	} {
		if got := tt.v.Qualifiers(tt.now); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if w := QualifierQuorumLost.Words(); w != "quorum lost" {
		t.Errorf("quorum-lost in words: %q", w)
	}
}

// TestAHolderCellIsWrittenByOneRule: a holder's member on one master reads as its time left, expired, no-ttl
// for one that never expires (not the centuries to the far date that stands for never), absent or unknown.
func TestAHolderCellIsWrittenByOneRule(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		cell HolderCell
		want string
	}{
		{HolderCell{State: CellSeen, Expires: at.Add(9 * time.Second)}, "9.0s"},
		{HolderCell{State: CellSeen, Expires: at.Add(-time.Second)}, "expired"},
		{HolderCell{State: CellSeen, Expires: never}, "no-ttl"},
		{HolderCell{State: CellAbsent}, "-"},
		{HolderCell{State: CellUnknown}, "?"},
	} {
		if got := tt.cell.Text(at); got != tt.want {
			t.Errorf("%+v at %s: %q, want %q", tt.cell, at.Format(time.TimeOnly), got, tt.want)
		}
	}
}
