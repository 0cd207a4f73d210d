package monitor

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// withCounters adds the fence counter of res to each reading: a value without a TTL, or absent for "".
func withCounters(rs []Reading, res string, values ...string) []Reading {
	for i, v := range values {
		k := KeyReading{Key: res + DefaultFenceSuffix, Value: v, PTTL: NoTTL}
		if v == "" {
			k = KeyReading{Key: res + DefaultFenceSuffix, Absent: true}
		}
		rs[i].Keys = append(rs[i].Keys, k)
	}
	return rs
}

func TestAggregateFenceCountersAreNotLocks(t *testing.T) {
	rs := withCounters(fixture(t0, addrs5, map[string][]cell{"orders": cells("tok-a", 5)}), "orders",
		"34", "34", "33", "34", "34")
	s := Aggregate(nil, rs, nil, t0, Config{Pattern: "orders*"})
	if len(s.Locks) != 1 || s.Locks[0].Resource != "orders" {
		t.Fatalf("locks %v, want only orders: a counter key is not a lock", s.Locks)
	}
	if f := s.Locks[0].Fence; f != 34 {
		t.Errorf("Fence %d, want the highest counter 34", f)
	}
	if refresh := s.keysToRefresh(nil); !slices.Contains(refresh, "orders:fence") {
		t.Errorf("next poll refreshes %v, want the lock's counter too", refresh)
	}
	if hasWarning(s, WarnFenceBackwards, "") || len(s.Warnings) > 0 && strings.Contains(s.Warnings[0].Text, "fence") {
		t.Errorf("warnings %v on the first poll", s.Warnings)
	}
}

func TestAggregateWarnsWhenAFenceCounterGoesBackwards(t *testing.T) {
	poll := func(prev *Snapshot, at time.Time, values ...string) Snapshot {
		rs := withCounters(fixture(at, addrs5, map[string][]cell{"orders": cells("tok-a", 5)}), "orders", values...)
		return Aggregate(prev, rs, nil, at, Config{})
	}
	s1 := poll(nil, t0, "34", "34", "34", "34", "34")
	s2 := poll(&s1, t0.Add(time.Second), "34", "", "34", "34", "34") // m1 restarted without persistence
	if !hasWarning(s2, WarnFenceBackwards, "m1") {
		t.Fatalf("no fence-backwards warning naming m1 after its counter vanished: %v", s2.Warnings)
	}
	if n := slices.Index(eventKinds(s2.Events), EventFenceBackwards); n < 0 {
		t.Errorf("events %v, want %s", eventKinds(s2.Events), EventFenceBackwards)
	}
	s3 := poll(&s2, t0.Add(2*time.Second), "34", "1", "34", "34", "34")
	if !hasWarning(s3, WarnFenceBackwards, "m1") {
		t.Errorf("counter 1 below the 34 it had: warning gone too early: %v", s3.Warnings)
	}
	backwards := 0
	for _, k := range eventKinds(s3.Events) {
		if k == EventFenceBackwards {
			backwards++
		}
	}
	if backwards != 1 {
		t.Errorf("%d fence-backwards events while it stays behind, want 1", backwards)
	}
	s4 := poll(&s3, t0.Add(3*time.Second), "35", "35", "35", "35", "35") // a fence round raised it
	if hasWarning(s4, WarnFenceBackwards, "m1") {
		t.Errorf("warning still there once the counter caught up: %v", s4.Warnings)
	}
	if f := lockOf(t, s4, "orders").Fence; f != 35 {
		t.Errorf("Fence %d, want 35", f)
	}
}

func TestRefreshAsksOnlyForCountersThatExist(t *testing.T) {
	rs := withCounters(fixture(t0, addrs5, map[string][]cell{"orders": cells("tok-a", 5), "jobs": cells("tok-b", 5)}),
		"orders", "34", "34", "33", "34", "34")
	s := Aggregate(nil, rs, nil, t0, Config{Pattern: "*"})
	refresh := s.keysToRefresh(map[string]OwnLock{"mine": {}})
	for _, want := range []string{"orders", "orders:fence", "jobs", "mine", "mine:fence"} {
		if !slices.Contains(refresh, want) {
			t.Errorf("next poll refreshes %v, want %q among them", refresh, want)
		}
	}
	if slices.Contains(refresh, "jobs:fence") {
		t.Errorf("next poll refreshes %v: jobs had no counter on any master", refresh)
	}
}

// TestEventSeverityIsTheMonitors: every reader takes an event's severity from the monitor; a fence counter
// gone back, which may hand one fencing token out twice, is an error, not information (issue 19); so is a
// lock key without a TTL, which no one can take again (issue 42).
func TestEventSeverityIsTheMonitors(t *testing.T) {
	for kind, want := range map[EventKind]Severity{
		EventFenceBackwards: SeverityError, EventQuorumLost: SeverityError, EventLockLost: SeverityError,
		EventLockSplit: SeverityWarning, EventMasterDown: SeverityWarning, EventLockStuck: SeverityError,
		EventLockReleased: SeverityInfo, EventLockAppeared: SeverityInfo, EventMasterUp: SeverityInfo,
	} {
		if got := kind.Severity(); got != want {
			t.Errorf("%s: severity %s, want %s", kind, got, want)
		}
	}
}
