package monitor

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// trackedCluster is a monitor on one real redis-server master, tracked, with key set as a lock there and the
// master past its first full read: the next polls read only what changed.
func trackedCluster(t *testing.T, key string) (*cluster, *redlocktest.Server) {
	t.Helper()
	return trackedClusterWith(t, key, Config{})
}

// trackedClusterWith is trackedCluster with the monitor's configuration cfg.
func trackedClusterWith(t *testing.T, key string, cfg Config) (*cluster, *redlocktest.Server) {
	t.Helper()
	if *polling {
		t.Skip("a test of tracking, run without -polling")
	}
	servers := realServers(t, 1)
	c := watch(t, []redlocktest.Master{servers[0]}, cfg)
	t.Cleanup(func() { _ = c.mon.Close() })
	c.set(t, key, "token-one-0123456789", time.Minute, 0)
	pollUntil(t, c.mon, 20*time.Second, "a tracked master with the lock", func(s Snapshot) bool {
		return cellOf(s, key) != nil && quietlyTracked(s)
	})
	return c, servers[0]
}

// quietlyTracked reports whether s's first master is tracked and was not read in full in that poll.
func quietlyTracked(s Snapshot) bool {
	return s.Masters[0].Refresh == RefreshTracking && s.Masters[0].RefreshWhy == ""
}

// cellOf returns the first master's cell of resource in s, nil when s does not show the resource.
func cellOf(s Snapshot, resource string) *MasterLock {
	i := slices.IndexFunc(s.Locks, func(l *LockView) bool { return l.Resource == resource })
	if i < 0 {
		return nil
	}
	return &s.Locks[i].Masters[0]
}

// TestTrackingSeesEveryKindOfChange changes a tracked lock key in each way a client or the server can, and
// requires the very next poll, which reads only what the master said changed, to show the change.
func TestTrackingSeesEveryKindOfChange(t *testing.T) {
	t.Parallel()
	const key = "lock:tracked"
	ctx := context.Background()
	gone := func(c *MasterLock) bool { return c == nil || c.State == CellAbsent }
	tests := []struct {
		name   string
		change func(c *cluster) error
		shows  func(c *MasterLock) bool
	}{
		{"SET", func(c *cluster) error { return c.admin[0].Set(ctx, key, "token-two-0123456789", time.Minute).Err() },
			func(c *MasterLock) bool { return c != nil && c.State == CellSeen && c.Token == "token-two-0123456789" }},
		{"DEL", func(c *cluster) error { return c.admin[0].Del(ctx, key).Err() }, gone},
		{"DEL by a script", func(c *cluster) error {
			return c.admin[0].Eval(ctx, "return redis.call('DEL', KEYS[1])", []string{key}).Err()
		}, gone},
		{"PEXPIRE", func(c *cluster) error { return c.admin[0].PExpire(ctx, key, 10*time.Minute).Err() },
			func(c *MasterLock) bool { return c != nil && c.State == CellSeen && c.PTTL > 5*time.Minute }},
		{"PERSIST", func(c *cluster) error { return c.admin[0].Persist(ctx, key).Err() },
			// A key without a TTL is not shown as a lock when polled either; what was read before had one.
			func(c *MasterLock) bool { return c == nil || c.State == CellSeen && c.PTTL == NoTTL }},
		{"FLUSHALL", func(c *cluster) error { return c.admin[0].FlushAll(ctx).Err() }, gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := trackedCluster(t, key)
			if err := tt.change(c); err != nil {
				t.Fatal(err)
			}
			s := c.mon.Poll(ctx)
			if !tt.shows(cellOf(s, key)) {
				t.Fatalf("the poll after %s shows %+v (master: %s %q)", tt.name, cellOf(s, key), s.Masters[0].Refresh, s.Masters[0].RefreshWhy)
			}
		})
	}
}

// TestTrackingSeesExpiry lets a tracked key's TTL run out: the poll after shows it gone.
func TestTrackingSeesExpiry(t *testing.T) {
	t.Parallel()
	const key = "lock:expiring"
	c, _ := trackedCluster(t, key)
	ctx := context.Background()
	if err := c.admin[0].PExpire(ctx, key, 300*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	s := c.mon.Poll(ctx)
	if cell := cellOf(s, key); cell == nil || cell.PTTL > time.Second {
		t.Fatalf("the poll after PEXPIRE shows %+v", cell)
	}
	time.Sleep(400 * time.Millisecond)
	if cell := cellOf(c.mon.Poll(ctx), key); cell != nil && cell.State != CellAbsent {
		t.Fatalf("the poll after the key expired shows %+v", cell)
	}
}

// TestTrackingReadsOnlyWhatChanged requires the poll of a quiet tracked master to read no key (the refresh
// script's MGET does not run), and the poll after one change to read it.
func TestTrackingReadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	c, _ := trackedCluster(t, "lock:a")
	ctx := context.Background()
	for i := range 50 {
		c.set(t, "lock:"+strconv.Itoa(i), "token-one-0123456789", time.Minute, 0)
	}
	pollUntil(t, c.mon, 20*time.Second, "all locks, quietly tracked", func(s Snapshot) bool {
		return len(s.Locks) == 51 && quietlyTracked(s)
	})
	c.mon.Poll(ctx) // reads the locks the last poll found, on the tracking connection
	before := commandCalls(t, c, "mget")
	s := c.mon.Poll(ctx)
	if !quietlyTracked(s) || len(s.Locks) != 51 {
		t.Fatalf("master %s %q, %d locks", s.Masters[0].Refresh, s.Masters[0].RefreshWhy, len(s.Locks))
	}
	if n := commandCalls(t, c, "mget") - before; n != 0 {
		t.Fatalf("a quiet poll of %d tracked locks ran MGET %d times", len(s.Locks), n)
	}
	c.set(t, "lock:7", "token-two-0123456789", time.Minute, 0)
	before = commandCalls(t, c, "mget")
	if cell := cellOf(c.mon.Poll(ctx), "lock:7"); cell == nil || cell.Token != "token-two-0123456789" {
		t.Fatalf("the poll after a change shows %+v", cell)
	}
	if n := commandCalls(t, c, "mget") - before; n != 1 {
		t.Fatalf("the poll after one change ran MGET %d times, want 1", n)
	}
}

// commandCalls is how many times the first master ran command, from INFO commandstats.
func commandCalls(t *testing.T, c *cluster, command string) int {
	t.Helper()
	info, err := c.admin[0].Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(info, "cmdstat_"+command+":calls=")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTrackingFullReadIsDue sets the safety net's period short: once it has passed, a quiet tracked master has
// every key read again, and says so.
func TestTrackingFullReadIsDue(t *testing.T) {
	t.Parallel()
	c, _ := trackedClusterWith(t, "lock:due", Config{FullReadEvery: 2 * time.Second})
	s := pollUntil(t, c.mon, 20*time.Second, "the full re-read due", func(s Snapshot) bool {
		return strings.HasPrefix(s.Masters[0].RefreshWhy, "full re-read: due every")
	})
	if s.Masters[0].Refresh != RefreshTracking || cellOf(s, "lock:due") == nil {
		t.Fatalf("the full re-read: %s %q, lock %+v", s.Masters[0].Refresh, s.Masters[0].RefreshWhy, cellOf(s, "lock:due"))
	}
	if s = c.mon.Poll(context.Background()); !quietlyTracked(s) {
		t.Fatalf("the poll after the full re-read: %s %q", s.Masters[0].Refresh, s.Masters[0].RefreshWhy)
	}
}
