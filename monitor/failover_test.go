package monitor

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// primaryReading is an up reading of master a: run_id, uptime, replication IDs and the primary its Sentinels
// name ("" for a master given by address), holding lock "r" with a 30s TTL when locked.
func primaryReading(now time.Time, runID, replID, replID2, primary string, locked bool) Reading {
	var locks map[string][]cell
	if locked {
		locks = map[string][]cell{"r": {{"A", 30 * time.Second, 0}}}
	}
	r := fixture(now, []string{"a"}, locks)[0]
	r.RunID, r.Uptime, r.Role, r.Replicas = runID, time.Hour, "master", 1
	r.ReplID, r.ReplID2, r.Primary = replID, replID2, primary
	return r
}

func TestAFailoverIsAnEventNotARestart(t *testing.T) {
	tests := []struct {
		name   string
		before Reading
		after  Reading
		want   []EventKind
		text   string
	}{
		{"the Sentinels name another primary",
			primaryReading(t0, "x", "r1", "", "10.0.0.1:6379", true), primaryReading(t0, "y", "r2", "r1", "10.0.0.2:6379", true),
			[]EventKind{EventMasterFailover}, "failover: primary 10.0.0.1:6379 -> 10.0.0.2:6379"},
		{"a promoted replica behind one address",
			primaryReading(t0, "x", "r1", "", "", true), primaryReading(t0, "y", "r2", "r1", "", true),
			[]EventKind{EventMasterFailover}, "failover: run_id x -> y, a replica of the former primary took over"},
		{"a new process with a history of its own is a restart",
			primaryReading(t0, "x", "r1", "", "", true), primaryReading(t0, "y", "r3", "", "", true),
			[]EventKind{EventMasterRestarted}, "restarted: run_id x -> y"},
		{"the same primary restarted behind its Sentinels",
			primaryReading(t0, "x", "r1", "", "10.0.0.1:6379", true), primaryReading(t0, "y", "r3", "", "10.0.0.1:6379", true),
			[]EventKind{EventMasterRestarted}, "restarted"},
		{"the same primary", primaryReading(t0, "x", "r1", "", "10.0.0.1:6379", true),
			primaryReading(t0, "x", "r1", "", "10.0.0.1:6379", true), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s1 := Aggregate(nil, []Reading{tc.before}, nil, t0, Config{})
			now := t0.Add(time.Second)
			tc.after.Sent, tc.after.Received = now.Add(-time.Millisecond), now
			s2 := Aggregate(&s1, []Reading{tc.after}, nil, now, Config{})
			fresh := s2.EventsSince(&s1)
			if got := eventKinds(fresh); !slices.Equal(got, tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			if len(fresh) > 0 && !strings.HasPrefix(fresh[0].Text, tc.text) {
				t.Errorf("event text %q, want it to start %q", fresh[0].Text, tc.text)
			}
			if len(fresh) > 0 && fresh[0].Kind == EventMasterFailover && fresh[0].Kind.Severity() != SeverityWarning {
				t.Errorf("a failover's severity is %v, want warning", fresh[0].Kind.Severity())
			}
			failedOver := slices.Equal(tc.want, []EventKind{EventMasterFailover})
			if m := s2.Masters[0]; m.LastFailover.IsZero() == failedOver || m.Primary != tc.after.Primary {
				t.Errorf("LastFailover %v, primary %q; want a failover time only after a failover, and %q", m.LastFailover, m.Primary, tc.after.Primary)
			}
			if hasWarning(s2, WarnFailover, "a") != failedOver || (s2.Unsafe > 0) != failedOver {
				t.Errorf("failover warning %v, Unsafe %d; want both only after a failover: %v", hasWarning(s2, WarnFailover, "a"), s2.Unsafe, s2.Warnings)
			}
		})
	}
}

func TestTheFailoverWarningLastsTheLongestTTL(t *testing.T) {
	s1 := Aggregate(nil, []Reading{primaryReading(t0, "x", "r1", "", "p1:6379", true)}, nil, t0, Config{})
	var prev = &s1
	at := func(d time.Duration, locked bool) Snapshot {
		now := t0.Add(d)
		s := Aggregate(prev, []Reading{primaryReading(now, "y", "r2", "r1", "p2:6379", locked)}, nil, now, Config{})
		prev = &s
		return s
	}
	s := at(time.Second, false) // the failover lost the lock: the new primary does not have it
	i := slices.IndexFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnFailover })
	if i < 0 {
		t.Fatalf("no failover warning after a failover with 30s TTLs seen: %v", s.Warnings)
	}
	w := s.Warnings[i]
	want := "failover: locks not yet replicated to the new primary may be lost (the algorithm page's replication race): " +
		"primary p1:6379 -> p2:6379 0ms ago, less than the longest TTL (30s)"
	if w.Severity != SeverityError || w.Master != "a" || w.Text != want {
		t.Errorf("warning %+v; want an error about a: %q", w, want)
	}
	if s.Unsafe != 1 || s.Masters[0].FormerPrimary != "p1:6379" {
		t.Errorf("Unsafe %d, former primary %q; want 1 and p1:6379", s.Unsafe, s.Masters[0].FormerPrimary)
	}
	if s = at(29*time.Second, false); !hasWarning(s, WarnFailover, "a") || s.Unsafe != 1 {
		t.Errorf("28s after the failover, within the 30s TTL: warning %v, Unsafe %d; want both", hasWarning(s, WarnFailover, "a"), s.Unsafe)
	}
	if s = at(32*time.Second, false); hasWarning(s, WarnFailover, "") || s.Unsafe != 0 {
		t.Errorf("31s after the failover: warnings %v, Unsafe %d; want the race over", s.Warnings, s.Unsafe)
	}
	if got := eventKinds(s.Events); !slices.Equal(got, []EventKind{EventMasterFailover}) {
		t.Errorf("events over the whole run %v, want the one failover", got)
	}
}

func TestAReplicaIsNamedWithItsPrimaryAndIsNotOK(t *testing.T) {
	r := primaryReading(t0, "x", "r1", "", "", false)
	r.Role, r.ReplicaOf = "slave", "10.0.0.9:6379"
	s := Aggregate(nil, []Reading{r}, nil, t0, Config{})
	i := slices.IndexFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnReplica })
	if i < 0 || s.Warnings[i].Text != "is a replica of 10.0.0.9:6379: Redlock needs independent masters" {
		t.Errorf("warnings %v; want the replica named with its primary", s.Warnings)
	}
	if s.Unsafe != 1 {
		t.Errorf("Unsafe = %d with a replica among the masters, want 1", s.Unsafe)
	}
}

func TestTheTableNamesTheServerBehindARole(t *testing.T) {
	tests := []struct {
		m    MasterStatus
		want string
	}{
		{MasterStatus{Role: "master", Primary: "10.0.0.2:6379"}, "master at 10.0.0.2:6379"},
		{MasterStatus{Role: "slave", ReplicaOf: "10.0.0.2:6379"}, "slave of 10.0.0.2:6379"},
		{MasterStatus{Role: "master"}, "master"},
		{MasterStatus{Role: "unknown"}, "unknown"},
	}
	for _, tc := range tests {
		if got := tc.m.RoleText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.m, got, tc.want)
		}
	}
}
