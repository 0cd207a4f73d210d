package monitor

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// clusterPrimaries are the primaries of the fixture cluster, with their slots.
var clusterPrimaries = []struct {
	addr  string
	slots SlotRange
}{{"p0:7000", SlotRange{Start: 0, End: 5460}}, {"p1:7001", SlotRange{Start: 5461, End: 10922}}, {"p2:7002", SlotRange{Start: 10923, End: 16383}}}

// clusterKey is a key on a fixture primary: its name, the primary that answered, its token and PTTL.
type clusterKey struct {
	key, node, tok string
	pttl           time.Duration
}

// clusterReading builds the reading of the fixture cluster at now: every primary up except those in down,
// with keys, each read on its node at now.
func clusterReading(now time.Time, keys []clusterKey, down ...string) Reading {
	r := Reading{Addr: "cluster p0:7000", Role: "master", Uptime: UnknownUptime, Replicas: -1,
		Sent: now.Add(-time.Millisecond), Received: now, Sweep: Sweep{Completed: 1, Total: -1}, Cluster: &ClusterReading{}}
	isDown := map[string]bool{}
	for _, d := range down {
		isDown[d] = true
	}
	for _, p := range clusterPrimaries {
		pr := PrimaryReading{Reading: Reading{Addr: p.addr, Role: "master", Uptime: time.Hour, Replicas: 0,
			Sent: now.Add(-time.Millisecond), Received: now, ServerTime: now, Sweep: Sweep{Completed: 1, Total: 10}},
			ID: "id-" + p.addr, Slots: []SlotRange{p.slots}}
		if isDown[p.addr] {
			pr.Reading = Reading{Addr: p.addr, Err: errors.New("connection refused"), Refused: true}
		}
		r.Cluster.Primaries = append(r.Cluster.Primaries, pr)
	}
	for _, k := range keys {
		if isDown[k.node] {
			continue
		}
		r.Keys = append(r.Keys, KeyReading{Key: k.key, Node: k.node, Value: k.tok, PTTL: k.pttl, ReadAt: now})
	}
	return r
}

var clusterKeys = []clusterKey{
	{"lock:a", "p0:7000", "tokA", 10 * time.Second},
	{"lock:b", "p1:7001", "tokB", 10 * time.Second},
	{"lock:c", "p2:7002", "tokC", 10 * time.Second},
}

// TestClusterIsOneLockServiceOfQuorumOne checks that a cluster's locks are held on the word of the one
// primary that owns each key, each cell naming that primary, with the primaries' own statuses and key
// counts, and without the warning about the number of masters.
func TestClusterIsOneLockServiceOfQuorumOne(t *testing.T) {
	s := Aggregate(nil, []Reading{clusterReading(t0, clusterKeys)}, nil, t0, Config{})
	if s.Quorum != 1 || s.UpCount != 1 || s.Servers != 1 {
		t.Fatalf("quorum %d, up %d, servers %d; want 1, 1, 1", s.Quorum, s.UpCount, s.Servers)
	}
	for _, k := range clusterKeys {
		l := lockOf(t, s, k.key)
		if l.State != StateHeld || l.Holder != k.tok || l.Count != 1 || l.ValidityAt(s.Time) <= 0 {
			t.Errorf("%s: state %s, holder %q, count %d, validity %s; want held by %s on 1", k.key, l.State, l.Holder, l.Count, l.ValidityAt(s.Time), k.tok)
		}
		if l.Masters[0].Node() != k.node {
			t.Errorf("%s: owner %q, want %q", k.key, l.Masters[0].Node(), k.node)
		}
	}
	c := s.Masters[0].Cluster
	if c == nil || len(c.Primaries) != 3 {
		t.Fatalf("cluster status %+v, want 3 primaries", c)
	}
	for i, p := range c.Primaries {
		if !p.Up || p.Keys != 1 || p.Addr != clusterPrimaries[i].addr || !p.ClockKnown {
			t.Errorf("primary %d: up %v, keys %d, addr %s, clock known %v; want up with 1 key and its clock", i, p.Up, p.Keys, p.Addr, p.ClockKnown)
		}
	}
	if hasWarning(s, WarnMasterCount, "") {
		t.Errorf("a cluster is one lock service: no warning about the number of masters; got %v", s.Warnings)
	}
}

// TestClusterPrimaryDownLeavesItsLocksUnknown checks that the locks of a primary that does not answer are
// unknown, not absent, while the others' are held, and that the warning names the primary and its slots.
func TestClusterPrimaryDownLeavesItsLocksUnknown(t *testing.T) {
	prev := Aggregate(nil, []Reading{clusterReading(t0, clusterKeys)}, nil, t0, Config{})
	now := t0.Add(500 * time.Millisecond)
	s := Aggregate(&prev, []Reading{clusterReading(now, clusterKeys, "p2:7002")}, nil, now, Config{})
	if l := lockOf(t, s, "lock:c"); l.State != StateUnknown || l.Masters[0].State != CellUnknown || l.Masters[0].Token != "tokC" {
		t.Errorf("lock on the primary down: %s, cell %+v; want unknown, keeping the token last seen", l.State, l.Masters[0])
	}
	for _, key := range []string{"lock:a", "lock:b"} {
		if l := lockOf(t, s, key); l.State != StateHeld {
			t.Errorf("%s on a primary up: %s, want held", key, l.State)
		}
	}
	found := false
	for _, w := range s.Warnings {
		if w.Master == "p2:7002" && w.Kind == WarnMasterDown {
			found = strings.Contains(w.Text, "slots 10923-16383")
		}
	}
	if !found {
		t.Errorf("no warning about the primary down naming its slots: %v", s.Warnings)
	}
	if !slicesContainPrefix(s.Masters[0].Warnings, "p2:7002: ") {
		t.Errorf("the cluster's own warnings do not name its primary down: %v", s.Masters[0].Warnings)
	}
	if p := s.Masters[0].Cluster.Primaries[2]; p.Up || p.Missed != 1 {
		t.Errorf("primary down: up %v, missed %d", p.Up, p.Missed)
	}
}

// slicesContainPrefix reports whether some text of ts starts with prefix.
func slicesContainPrefix(ts []string, prefix string) bool {
	for _, t := range ts {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// TestClusterSlotMovesAreEvents checks that slots moved between primaries are a resharding, and to a node
// that was not a primary a failover, with the slots and both addresses.
func TestClusterSlotMovesAreEvents(t *testing.T) {
	prev := Aggregate(nil, []Reading{clusterReading(t0, nil)}, nil, t0, Config{})
	now := t0.Add(time.Second)
	r := clusterReading(now, nil)
	r.Cluster.Primaries[0].Slots = []SlotRange{{Start: 0, End: 99}, {Start: 101, End: 5460}}
	r.Cluster.Primaries[1].Slots = []SlotRange{{Start: 100, End: 100}, {Start: 5461, End: 10922}}
	r.Cluster.Primaries[2].Addr = "p3:7003" // p2 failed over to its replica
	s := Aggregate(&prev, []Reading{r}, nil, now, Config{})
	var texts []string
	kinds := map[EventKind]string{}
	for _, e := range s.EventsSince(&prev) {
		texts = append(texts, e.Text)
		kinds[e.Kind] = e.Text
	}
	if !strings.Contains(kinds[EventClusterResharded], "slots 100 moved from p0:7000 to p1:7001") {
		t.Errorf("no resharding event for slot 100: %q", texts)
	}
	if !strings.Contains(kinds[EventClusterFailover], "slots 10923-16383 moved from p2:7002 to p3:7003") {
		t.Errorf("no failover event: %q", texts)
	}
	if EventClusterFailover.Severity() != SeverityWarning || EventClusterResharded.Severity() != SeverityInfo {
		t.Errorf("severities: failover %s, resharding %s", EventClusterFailover.Severity(), EventClusterResharded.Severity())
	}
}

// TestClusterNotReadKeepsItsPrimariesAsNotAnswering checks that a cluster none of whose nodes answered is a
// master not answering, its locks unknown, and that its primaries are kept, each not answering.
func TestClusterNotReadKeepsItsPrimariesAsNotAnswering(t *testing.T) {
	prev := Aggregate(nil, []Reading{clusterReading(t0, clusterKeys)}, nil, t0, Config{})
	now := t0.Add(500 * time.Millisecond)
	r := Reading{Addr: "cluster p0:7000", Err: errors.New("no node told the cluster's slots"), Cluster: &ClusterReading{}}
	s := Aggregate(&prev, []Reading{r}, nil, now, Config{})
	if m := s.Masters[0]; m.Up || m.Cluster == nil || len(m.Cluster.Primaries) != 3 || m.Cluster.Primaries[0].Up {
		t.Fatalf("cluster not read: %+v", m)
	}
	if l := lockOf(t, s, "lock:a"); l.State != StateUnknown {
		t.Errorf("lock of a cluster not read: %s, want unknown", l.State)
	}
}
