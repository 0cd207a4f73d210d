package monitor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// watchRedisCluster starts a monitor of the real cluster c, given all its nodes as seeds.
func watchRedisCluster(t *testing.T, c *redlocktest.Cluster, cfg Config) *Monitor {
	t.Helper()
	seeds := make([]*redis.Client, len(c.Nodes))
	for i, n := range c.Nodes {
		seeds[i] = n.NewClient()
		t.Cleanup(func() { seeds[i].Close() })
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = testTimeout
	}
	mon, err := NewCluster(seeds, ClusterName(c.Nodes[0].Addr()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mon.Close() })
	return mon
}

// heldOn reports whether s shows resource held by token, its key on the node at addr.
func heldOn(s Snapshot, resource, token, addr string) bool {
	for _, l := range s.Locks {
		if l.Resource == resource {
			return l.State == StateHeld && l.Holder == token && l.Masters[0].Node() == addr
		}
	}
	return false
}

// TestClusterLocksOnEverySlotRangeAreHeldWithTheirPrimary writes locks of several shapes on keys of every
// primary's slots through a cluster client, as an application would, and checks that the monitor of the
// cluster shows each held (quorum 1 of one service) on the primary that owns its slot.
func TestClusterLocksOnEverySlotRangeAreHeldWithTheirPrimary(t *testing.T) {
	t.Parallel()
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	cc := c.NewClusterClient()
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	strs, hashes := c.KeysOnEachNode("lock:"), c.KeysOnEachNode("redisson:")
	for i := range c.Nodes {
		if err := cc.Set(ctx, strs[i], fmt.Sprintf("token-%d-xxxxxxxxxxxx", i), time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		field := fmt.Sprintf("8f1f5a4e-0c1b-4b6e-9d7a-2f4c1d2e3b4a:%d", i)
		if err := cc.HSet(ctx, hashes[i], field, 1).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cc.PExpire(ctx, hashes[i], time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	mon := watchRedisCluster(t, c, Config{})
	s := pollUntil(t, mon, time.Minute, "the cluster is swept with its 6 locks", func(s Snapshot) bool {
		return s.Swept && len(s.Locks) == 6
	})
	if s.Quorum != 1 || len(s.Masters) != 1 || s.Masters[0].Cluster == nil || len(s.Masters[0].Cluster.Primaries) != 3 {
		t.Fatalf("quorum %d, masters %+v; want one cluster of 3 primaries, quorum 1", s.Quorum, s.Masters)
	}
	for i, n := range c.Nodes {
		if !heldOn(s, strs[i], fmt.Sprintf("token-%d-xxxxxxxxxxxx", i), n.Addr()) {
			t.Errorf("string lock %q not held on node %d (%s): %+v", strs[i], i, n.Addr(), lockOf(t, s, strs[i]))
		}
		l := lockOf(t, s, hashes[i])
		if l.State != StateHeld || !l.Masters[0].Hash() || l.Masters[0].Node() != n.Addr() {
			t.Errorf("hash lock %q: %+v; want held, a hash, on %s", hashes[i], l, n.Addr())
		}
		if p := s.Masters[0].Cluster.Primaries[i]; p.Addr != n.Addr() || p.Keys != 2 || !p.Up || p.Sweep.Completed == 0 {
			t.Errorf("primary %d: %s, %d keys, up %v, %d sweeps; want %s with 2 keys, swept", i, p.Addr, p.Keys, p.Up, p.Sweep.Completed, n.Addr())
		}
	}
	for _, w := range s.Warnings {
		if w.Kind != WarnRestart { // the nodes were started a moment ago, less than the locks' TTL
			t.Errorf("unexpected warning on a healthy cluster: %s", w)
		}
	}
}

// TestClusterReshardingLosesNoLockFromView moves the slot of a held lock to another primary step by step,
// as redis-cli --cluster reshard does, while a monitor watches, and checks that every snapshot shows the lock
// held (or, at worst, not read: never absent, never gone), on the node that answers for it at each step: the
// former owner while the key is there, the new one once it moved (through ASK), then as owner.
func TestClusterReshardingLosesNoLockFromView(t *testing.T) {
	t.Parallel()
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	cc := c.NewClusterClient()
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const key, token = "a", "tok-resharded-xxxxxxxxxx" // slot 15495: on node 2
	if err := cc.Set(ctx, key, token, 5*time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	mon := watchRedisCluster(t, c, Config{Interval: 100 * time.Millisecond})
	pollUntil(t, mon, time.Minute, "the lock is held on node 2", func(s Snapshot) bool {
		return s.Swept && heldOn(s, key, token, c.Nodes[2].Addr())
	})

	// Watch continuously in the background while the slot moves.
	watchCtx, stopWatching := context.WithCancel(ctx)
	snaps := mon.Run(watchCtx)
	var bad []string
	seen := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range snaps {
			seen++
			i := slices.IndexFunc(s.Locks, func(l *LockView) bool { return l.Resource == key })
			switch {
			case i < 0:
				bad = append(bad, fmt.Sprintf("snapshot %d: lock gone from view", s.Seq))
			case s.Locks[i].State != StateHeld && s.Locks[i].State != StateUnknown:
				bad = append(bad, fmt.Sprintf("snapshot %d: lock %s: %+v", s.Seq, s.Locks[i].State, s.Locks[i].Masters))
			}
		}
	}()
	step := func(what string, f func() error) {
		t.Helper()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(400 * time.Millisecond) // a few background polls see this step
	}
	var m *redlocktest.Migration
	step("begin the migration", func() (err error) {
		m, err = c.BeginMigration(ctx, slots.Of(key), c.Nodes[0])
		return err
	})
	step("move the key", func() error {
		n, err := m.MoveKeys(ctx)
		if err == nil && n != 1 {
			err = fmt.Errorf("moved %d keys, want 1", n)
		}
		return err
	})
	stopWatching()
	<-done
	// Between the steps: the key is on node 0, which serves it only after ASKING.
	pollUntil(t, mon, 30*time.Second, "the lock is held on node 0 during the migration (ASK)", func(s Snapshot) bool {
		return heldOn(s, key, token, c.Nodes[0].Addr())
	})
	watchCtx, stopWatching = context.WithCancel(ctx)
	snaps = mon.Run(watchCtx)
	done = make(chan struct{})
	go func() {
		defer close(done)
		for s := range snaps {
			seen++
			i := slices.IndexFunc(s.Locks, func(l *LockView) bool { return l.Resource == key })
			if i < 0 || s.Locks[i].State != StateHeld && s.Locks[i].State != StateUnknown {
				bad = append(bad, fmt.Sprintf("snapshot %d after the keys moved: %+v", s.Seq, s.Locks))
			}
		}
	}()
	step("commit the migration", func() error { return m.Commit(ctx) })
	stopWatching()
	<-done
	if len(bad) > 0 || seen == 0 {
		t.Fatalf("%d snapshots while resharding; the lock left view or was not held in: %v", seen, bad)
	}
	// Every primary up: a poll of the watch stopped above may have been cut short, which the next poll mends.
	s := pollUntil(t, mon, 30*time.Second, "the lock is held on node 0, its new owner, every primary up", func(s Snapshot) bool {
		return heldOn(s, key, token, c.Nodes[0].Addr()) && s.Masters[0].Cluster.Primaries[0].Slots[len(s.Masters[0].Cluster.Primaries[0].Slots)-1] == SlotRange{Start: 15495, End: 15495} &&
			!slices.ContainsFunc(s.Masters[0].Cluster.Primaries, func(p ClusterPrimary) bool { return !p.Up })
	})
	if !slices.ContainsFunc(s.Events, func(e Event) bool { return e.Kind == EventClusterResharded }) {
		t.Errorf("no resharding event: %v", s.Events)
	}
}

// TestClusterPrimaryStoppedLeavesItsLocksUnknown stops one primary: its lock is not read, so it is unknown
// (never absent), the warning names the primary and its slots, and the locks of the others are never absent,
// also once the cluster says it is down (CLUSTERDOWN, which refuses no script: the scans stay scripted). Once
// the primary is back (with its keys: persistence), every lock is held again.
func TestClusterPrimaryStoppedLeavesItsLocksUnknown(t *testing.T) {
	t.Parallel()
	// A node timeout of 2s rather than the helper's 5s: the cluster says it is down sooner, and a healthy node
	// a loaded machine makes late is at worst unknown for a moment, which every check below allows.
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{Persistence: true, Args: []string{"--cluster-node-timeout", "2000"}})
	cc := c.NewClusterClient()
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys := c.KeysOnEachNode("lock:")
	for _, k := range keys {
		if err := cc.Set(ctx, k, "tok-"+k+"-xxxxxxxxxxxxxxxx", 5*time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	mon := watchRedisCluster(t, c, Config{})
	pollUntil(t, mon, time.Minute, "the 3 locks are held", func(s Snapshot) bool {
		return s.Swept && len(s.Locks) == 3 && !slices.ContainsFunc(s.Locks, func(l *LockView) bool { return l.State != StateHeld })
	})
	if err := c.Nodes[2].Stop(); err != nil {
		t.Fatal(err)
	}
	s := pollUntil(t, mon, 30*time.Second, "node 2 is not answering", func(s Snapshot) bool {
		return !s.Masters[0].Cluster.Primaries[2].Up
	})
	if l := lockOf(t, s, keys[2]); l.State != StateUnknown || l.Masters[0].State != CellUnknown {
		t.Errorf("lock of the stopped primary: %s, cell %+v; want unknown", l.State, l.Masters[0])
	}
	for _, k := range keys[:2] {
		if l := lockOf(t, s, k); l.State != StateHeld && l.State != StateUnknown {
			t.Errorf("lock %q on a running primary: %s; want held (or unknown once the cluster says it is down)", k, l.State)
		}
	}
	if !slices.ContainsFunc(s.Warnings, func(w Warning) bool {
		return w.Master == c.Nodes[2].Addr() && w.Kind == WarnMasterDown
	}) {
		t.Errorf("no warning about the stopped primary: %v", s.Warnings)
	}
	// The others say the cluster is down after its node timeout (2s): their locks are not read either.
	admin := c.Nodes[0].NewClient()
	defer admin.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		info, _ := admin.ClusterInfo(ctx).Result()
		if strings.Contains(info, "cluster_state:fail") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster never said it is down: %q", info)
		}
		s = mon.Poll(ctx)
		time.Sleep(200 * time.Millisecond)
	}
	for range 3 {
		s = mon.Poll(ctx)
		for _, l := range s.Locks {
			if l.Masters[0].State == CellAbsent || l.State != StateHeld && l.State != StateUnknown {
				t.Errorf("with the cluster down, lock %q: %s, cell %+v; want held or unknown, never absent", l.Resource, l.State, l.Masters[0])
			}
		}
	}
	if err := c.Nodes[2].Start(); err != nil {
		t.Fatal(err)
	}
	s = pollUntil(t, mon, time.Minute, "every lock is held again", func(s Snapshot) bool {
		return len(s.Locks) == 3 && !slices.ContainsFunc(s.Locks, func(l *LockView) bool { return l.State != StateHeld })
	})
	if s.Masters[0].PlainReads {
		t.Errorf("a node reads without scripts after the cluster was down: CLUSTERDOWN is not a refusal of scripts")
	}
}
