package testbed

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// startCluster starts a cluster of n nodes, closed at cleanup.
func startCluster(t *testing.T, n int) *Cluster {
	t.Helper()
	requireRedisServer(t)
	c, err := StartCluster(n, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestStartClusterSplitsTheSlots checks that a started cluster is ok, that its nodes own the slots in
// thirds, in order, and that our slot function agrees with the server's CLUSTER KEYSLOT.
func TestStartClusterSplitsTheSlots(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	ctx := timeout(t, 30*time.Second)
	for _, tc := range []struct {
		slot int
		node int
	}{{0, 0}, {5460, 0}, {5461, 1}, {10922, 1}, {10923, 2}, {16383, 2}} {
		owner, err := c.Owner(ctx, tc.slot)
		if err != nil {
			t.Fatal(err)
		}
		if owner != c.Nodes[tc.node] {
			t.Errorf("slot %d is on %s, want node %d (%s)", tc.slot, owner.Addr(), tc.node, c.Nodes[tc.node].Addr())
		}
	}
	cl := c.Nodes[0].NewClient()
	defer cl.Close()
	for _, key := range []string{"", "a", "lock:orders", "{orders}:fence", "x{}y", "{user1000}.following", "foo{bar}{zap}", "é"} {
		want, err := cl.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := slots.Of(key); int64(got) != want {
			t.Errorf("slots.Of(%q) = %d, CLUSTER KEYSLOT says %d", key, got, want)
		}
	}
}

// TestMigrationMovesAKeyWithItsSlot moves a slot holding a key step by step: during the migration the key
// is reachable only with ASKING on the target, and after it the target owns the slot.
func TestMigrationMovesAKeyWithItsSlot(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	ctx := timeout(t, 60*time.Second)
	cc := c.NewClusterClient()
	defer cc.Close()
	key := "a" // slot 15495, on node 2
	if err := cc.Set(ctx, key, "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	m, err := c.BeginMigration(ctx, slots.Of(key), c.Nodes[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.From != c.Nodes[2] {
		t.Fatalf("slot of %q migrates from %s, want node 2", key, m.From.Addr())
	}
	if n, err := m.MoveKeys(ctx); err != nil || n != 1 {
		t.Fatalf("MoveKeys = %d, %v; want 1 key moved", n, err)
	}
	from := m.From.NewClient()
	defer from.Close()
	if err := from.Get(ctx, key).Err(); err == nil || !slotsRedirect(err, true) {
		t.Fatalf("GET on the former owner during the migration = %v, want an ASK", err)
	}
	if err := m.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if owner, err := c.Owner(ctx, slots.Of(key)); err != nil || owner != c.Nodes[0] {
		t.Fatalf("after the migration the slot is on %v (%v), want node 0", owner, err)
	}
	if v, err := cc.Get(ctx, key).Result(); err != nil || v != "v" {
		t.Fatalf("GET through the cluster after the migration = %q, %v", v, err)
	}
}

// slotsRedirect reports whether err is a redirection of the kind asked (ASK when ask).
func slotsRedirect(err error, ask bool) bool {
	r, ok := slots.RedirectOf(err, "127.0.0.1:1")
	return ok && r.Ask == ask
}
