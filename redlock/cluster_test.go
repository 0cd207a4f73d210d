package redlock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// clusterClient returns a Redlock client of the real cluster c, given all its nodes, with a generous node
// timeout (see cluster.client).
func clusterClient(t *testing.T, seeds []string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithNodeTimeout(500 * time.Millisecond)}, opts...)
	rc, err := NewCluster(clientsOf(t, seeds), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	return rc
}

// nodeValue returns key's value on the cluster node s itself ("" when absent), asked with ASKING so that a key of a
// slot the node imports is read too.
func nodeValue(t *testing.T, s *redlocktest.Server, key string) string {
	t.Helper()
	c := s.NewClient()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pipe := c.Pipeline()
	pipe.Do(ctx, "asking")
	get := pipe.Get(ctx, key)
	_, _ = pipe.Exec(ctx)
	v, err := get.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		if _, moved := slots.RedirectOf(err, s.Addr()); !moved {
			t.Fatalf("GET %q on %s: %v", key, s.Addr(), err)
		}
	}
	return v
}

// TestClusterLocksOnEveryPrimary acquires, extends and releases a lock on a key of every primary's slots:
// the cluster is one master of quorum 1, the key is on the primary that owns it, and a second client is
// refused while it is held.
func TestClusterLocksOnEveryPrimary(t *testing.T) {
	t.Parallel()
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	a, b := clusterClient(t, c.Addrs()), clusterClient(t, c.Addrs()[1:2])
	if a.Quorum() != 1 || len(a.Masters()) != 1 || !strings.HasPrefix(a.Masters()[0], "cluster ") {
		t.Fatalf("quorum %d, masters %v; want one cluster, quorum 1", a.Quorum(), a.Masters())
	}
	if w := a.TopologyWarning(); !strings.Contains(w, "one lock service") {
		t.Errorf("TopologyWarning = %q", w)
	}
	ctx := ctxTimeout(t, time.Minute)
	for i, key := range c.KeysOnEachNode("res:") {
		lock, err := a.Acquire(ctx, key, 10*time.Second)
		if err != nil {
			t.Fatalf("acquire %q (node %d): %v", key, i, err)
		}
		if got := nodeValue(t, c.Nodes[i], key); got != lock.Token() {
			t.Errorf("%q on node %d = %q, want our token", key, i, got)
		}
		if o := lock.LastRound().Nodes[0].Outcome; o != OutcomeOK {
			t.Errorf("acquire round outcome %s", o)
		}
		if _, err := b.TryAcquire(ctx, key, 10*time.Second); !errors.Is(err, ErrNotAcquired) {
			t.Errorf("a second client acquired %q while held: %v", key, err)
		}
		if err := lock.Extend(ctx, 20*time.Second); err != nil {
			t.Errorf("extend %q: %v", key, err)
		}
		if err := lock.Release(ctx); err != nil {
			t.Errorf("release %q: %v", key, err)
		}
		if got := nodeValue(t, c.Nodes[i], key); got != "" {
			t.Errorf("%q still on node %d after release: %q", key, i, got)
		}
	}
}

// TestClusterLockFollowsItsSlotAcrossAMigration moves the slot of a held lock from its primary to another one
// step by step and checks that the lock can be extended at each step (on the former owner while the key is
// there, through ASK once it moved, through MOVED after), released through ASK, and acquired again through
// ASK on the node importing the slot.
func TestClusterLockFollowsItsSlotAcrossAMigration(t *testing.T) {
	t.Parallel()
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	a := clusterClient(t, c.Addrs()[:1])
	ctx := ctxTimeout(t, 2*time.Minute)
	const key = "a" // slot 15495, on node 2
	lock, err := a.Acquire(ctx, key, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	extend := func(step string) {
		t.Helper()
		if err := lock.Extend(ctx, 30*time.Second); err != nil {
			t.Fatalf("%s: extend: %v", step, err)
		}
	}
	m, err := c.BeginMigration(ctx, slots.Of(key), c.Nodes[0])
	if err != nil {
		t.Fatal(err)
	}
	extend("slot migrating, key still on its owner")
	if _, err := m.MoveKeys(ctx); err != nil {
		t.Fatal(err)
	}
	extend("key moved, slot still migrating (ASK)")
	if got := nodeValue(t, c.Nodes[0], key); got != lock.Token() {
		t.Fatalf("key on the importing node = %q, want our token", got)
	}
	if err := lock.Release(ctx); err != nil {
		t.Fatalf("release through ASK: %v", err)
	}
	if got := nodeValue(t, c.Nodes[0], key); got != "" {
		t.Fatalf("key still on the importing node after release: %q", got)
	}
	lock, err = a.Acquire(ctx, key, 30*time.Second)
	if err != nil {
		t.Fatalf("acquire while the slot migrates (ASK: the key is not on the former owner): %v", err)
	}
	if got := nodeValue(t, c.Nodes[0], key); got != lock.Token() {
		t.Fatalf("acquired during the migration: key on the importing node = %q, want our token", got)
	}
	if err := m.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	extend("slot moved (MOVED)")
	if err := lock.Release(ctx); err != nil {
		t.Fatalf("release after the migration: %v", err)
	}
	if got := nodeValue(t, c.Nodes[0], key); got != "" {
		t.Fatalf("key still there after release: %q", got)
	}
}

// fakeClusterNode is a ReplyProxy in front of a plain redis-server that answers CLUSTER SLOTS with every slot
// on itself: a one-node "cluster" whose replies to chosen commands a test chooses.
func fakeClusterNode(t *testing.T) *redlocktest.ReplyProxy {
	t.Helper()
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	p, addr := redlocktest.WithReplyProxy(t, s)
	host, port, _ := net.SplitHostPort(addr)
	id := strings.Repeat("f", 40)
	p.Set("cluster", redlocktest.RawReply(fmt.Sprintf("*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$%d\r\n%s\r\n:%s\r\n$40\r\n%s\r\n",
		len(host), host, port, id)))
	return p
}

// TestClusterRedirectionsAreNeverGrants makes the only node of a cluster answer every acquisition with
// redirections to itself, or with replies that are not SET's success value: none is a grant, the round says
// what the node answered, and the lock is not acquired. The same node answering OK grants.
func TestClusterRedirectionsAreNeverGrants(t *testing.T) {
	t.Parallel()
	p := fakeClusterNode(t)
	a := clusterClient(t, []string{p.Addr()}, WithRetries(0))
	ctx := ctxTimeout(t, 30*time.Second)
	slot := strconv.Itoa(slots.Of("res"))
	for _, tc := range []struct {
		name  string
		fault redlocktest.Fault
		want  string
	}{
		{"endless MOVED", redlocktest.ErrorReply("MOVED " + slot + " " + p.Addr()), "MOVED"},
		{"endless ASK", redlocktest.ErrorReply("ASK " + slot + " " + p.Addr()), "ASK"},
		{"TRYAGAIN", redlocktest.ErrorReply("TRYAGAIN Multiple keys request during rehashing of slot"), "TRYAGAIN"},
		{"CLUSTERDOWN", redlocktest.ErrorReply("CLUSTERDOWN The cluster is down"), "CLUSTERDOWN"},
		{"an integer", redlocktest.RawReply(":1\r\n"), "unexpected reply"},
		{"READONLY", redlocktest.ErrorReply("READONLY You can't write against a read only replica."), "READONLY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Set("set", tc.fault)
			defer p.Set("set", redlocktest.Fault{})
			_, err := a.TryAcquire(ctx, "res", 5*time.Second)
			var re *RoundError
			if !errors.As(err, &re) || !errors.Is(err, ErrNotAcquired) {
				t.Fatalf("acquired on %s: %v", tc.name, err)
			}
			if n := re.Round.Nodes[0]; n.Outcome == OutcomeOK || n.Err == nil || !strings.Contains(n.Err.Error(), tc.want) {
				t.Errorf("node outcome %s, %v; want a refusal naming %s", n.Outcome, n.Err, tc.want)
			}
		})
	}
	lock, err := a.TryAcquire(ctx, "res", 5*time.Second)
	if err != nil {
		t.Fatalf("the node answering OK: %v", err)
	}
	if err := lock.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
}

// TestClusterFencingNeedsTheCounterInTheLocksSlot checks that a fenced lock on a cluster needs a resource
// whose counter hashes to its slot, and then works: the counter is on the lock's primary.
func TestClusterFencingNeedsTheCounterInTheLocksSlot(t *testing.T) {
	t.Parallel()
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	a := clusterClient(t, c.Addrs(), WithFencing())
	ctx := ctxTimeout(t, 30*time.Second)
	if _, err := a.Acquire(ctx, "orders", 10*time.Second); err == nil || !strings.Contains(err.Error(), "hash tag, such as {orders}") {
		t.Fatalf("fenced acquire of a resource without a hash tag: %v", err)
	}
	lock, err := a.Acquire(ctx, "{orders}", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if lock.Fence() == 0 {
		t.Errorf("no fencing token")
	}
	if err := lock.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
