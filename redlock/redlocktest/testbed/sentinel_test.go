package testbed

import (
	"testing"
	"time"
)

// startSentinelGroup starts a group with opts, closed at cleanup.
func startSentinelGroup(t *testing.T, opts SentinelOptions) *SentinelGroup {
	t.Helper()
	requireRedisServer(t)
	g, err := StartSentinelGroup(timeout(t, time.Minute), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func TestSentinelGroupFailsOverToItsReplica(t *testing.T) {
	t.Parallel()
	g := startSentinelGroup(t, SentinelOptions{})
	if len(g.Servers) != 2 || len(g.Sentinels) != 3 || g.Name != "mymaster" {
		t.Fatalf("group of %d data nodes and %d Sentinels named %q; want 2, 3 and mymaster", len(g.Servers), len(g.Sentinels), g.Name)
	}
	ctx := timeout(t, time.Minute)
	p, err := g.Primary(ctx)
	if err != nil || p != g.Servers[0] {
		t.Fatalf("primary before the failover: %v, %v; want the first server %s", p, err, g.Servers[0].Addr())
	}
	if err := client(t, p).Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := client(t, p).Do(ctx, "wait", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 on the primary: %d, %v; want the replica to acknowledge", n, err)
	}
	from, to, err := g.Failover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if from != g.Servers[0] || to != g.Servers[1] {
		t.Fatalf("failover from %s to %s, want from %s to %s", from.Addr(), to.Addr(), g.Servers[0].Addr(), g.Servers[1].Addr())
	}
	if v, err := client(t, to).Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Errorf("the new primary has k = %q, %v; want the replicated v", v, err)
	}
	if err := client(t, to).Set(ctx, "k2", "v", 0).Err(); err != nil {
		t.Errorf("the new primary refuses a write: %v", err)
	}
	if p, err := g.Primary(ctx); err != nil || p != to {
		t.Errorf("Primary after the failover = %v, %v; want %s", p, err, to.Addr())
	}
}
