package monitor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// announcedMaster starts a real redis-server without keyspace notifications holding the locks, a monitor on
// it that scans at slowScan, polled until it shows them and the master announces their families; then it fills
// the master with ordinaryKeys cache keys, so that the scan would take tens of thousands of polls to come
// across a new key.
func announcedMaster(t *testing.T, locks ...string) *cluster {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (CLIENT TRACKING BCAST)")
	}
	ctx := context.Background()
	srv := redlocktest.StartServers(t, 1, redlocktest.ServerOptions{})[0]
	c := watch(t, []redlocktest.Master{srv}, Config{ScanBudget: slowScan, ScanCount: 100})
	t.Cleanup(func() { _ = c.mon.Close() })
	for _, l := range locks {
		must(t, setNXPX(ctx, c.admin[0], l, "Zk3q9V2mXc7LbR1tYw8sNa"))
	}
	pollFor(t, c, "the locks shown and their families announced", func(s Snapshot) bool {
		return len(s.Locks) == len(locks) && strings.Contains(s.Masters[0].NotifiedWhy, "announced")
	})
	fillCacheKeys(t, srv.Addr(), "cache:", ordinaryKeys)
	return c
}

// pollFor polls c until ok holds of a snapshot, for up to a minute.
func pollFor(t *testing.T, c *cluster, what string, ok func(Snapshot) bool) Snapshot {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		s := c.mon.Poll(context.Background())
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within a minute: %s; the master: %q", what, s.Masters[0].NotifiedWhy)
		}
	}
}

// TestAnnouncedLocksAppearWithinTwoPolls: on a master without keyspace notifications, behind 50,000 cache keys
// the slow scan would take tens of thousands of polls over, a new lock under a known family's prefix shows
// within two polls, because the master announces it; a lock under a prefix no lock had (the control) does not:
// only the scan could find it.
func TestAnnouncedLocksAppearWithinTwoPolls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := announcedMaster(t, "orders:lock:1", "billing:nightly")
	for i := range 5 {
		resource := fmt.Sprintf("orders:lock:new-%d", i)
		must(t, setNXPX(ctx, c.admin[0], resource, "Zk3q9V2mXc7LbR1tYw8sNa"))
		if shown, s := shownWithin(c, resource, 2); !shown {
			t.Errorf("%s: not shown within two polls (%q)", resource, s.Masters[0].NotifiedWhy)
		}
	}
	must(t, setNXPX(ctx, c.admin[0], "payments:refund", "Zk3q9V2mXc7LbR1tYw8sNa"))
	if shown, s := shownWithin(c, "payments:refund", 2); shown {
		t.Errorf("a lock under a new prefix shown within two polls (scanned %d of %d): the control proves nothing",
			s.Masters[0].Sweep.Scanned, s.Masters[0].Sweep.Total)
	}
}

// TestAnnouncementsSurviveKilledConnections kills every connection of the monitor's on the master: the next
// polls connect, subscribe and ask for the prefixes again, and a new lock shows within a few polls.
func TestAnnouncementsSurviveKilledConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := announcedMaster(t, "orders:lock:1")
	must(t, c.admin[0].ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
	must(t, c.admin[0].ClientKillByFilter(ctx, "TYPE", "normal", "SKIPME", "yes").Err())
	pollFor(t, c, "announcements again", func(s Snapshot) bool {
		return s.Masters[0].Up && strings.Contains(s.Masters[0].NotifiedWhy, "announced")
	})
	must(t, setNXPX(ctx, c.admin[0], "orders:lock:2", "Zk3q9V2mXc7LbR1tYw8sNa"))
	if shown, s := shownWithin(c, "orders:lock:2", 2); !shown {
		t.Errorf("not shown within two polls after the connections were killed (%q)", s.Masters[0].NotifiedWhy)
	}
}

// TestAKilledTrackingConnectionIsSeenByTheNextPoll kills only the connection in BCAST mode, which nothing tells
// the monitor of: the next poll finds it gone and arms another, so that a lock written after that poll shows
// within two polls, not once some later check comes round.
func TestAKilledTrackingConnectionIsSeenByTheNextPoll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := announcedMaster(t, "orders:lock:1")
	clients, err := c.admin[0].ClientList(ctx).Result()
	must(t, err)
	killed := 0
	for _, l := range strings.Split(clients, "\n") {
		var id int64
		if _, err := fmt.Sscanf(l, "id=%d", &id); err == nil && strings.Contains(l, " flags=") &&
			strings.ContainsRune(strings.Fields(strings.SplitN(l, " flags=", 2)[1])[0], 'B') { // BCAST
			must(t, c.admin[0].ClientKillByFilter(ctx, "ID", fmt.Sprint(id)).Err())
			killed++
		}
	}
	if killed != 1 {
		t.Fatalf("killed %d connections in BCAST mode, want the one:\n%s", killed, clients)
	}
	// The next poll that reads the master (a loaded machine may keep one past its timeout) arms again.
	s := pollFor(t, c, "the master read after the kill", func(s Snapshot) bool { return s.Masters[0].Up })
	if !strings.Contains(s.Masters[0].NotifiedWhy, "announced") {
		t.Fatalf("the poll after the kill: %q; want announcing again", s.Masters[0].NotifiedWhy)
	}
	must(t, setNXPX(ctx, c.admin[0], "orders:lock:2", "Zk3q9V2mXc7LbR1tYw8sNa"))
	if shown, s := shownWithin(c, "orders:lock:2", 2); !shown {
		t.Errorf("not shown within two polls after the tracking connection was killed (%q)", s.Masters[0].NotifiedWhy)
	}
}

// TestAStormyPrefixIsLeftToTheScan writes 60,000 cache keys under a lock family's prefix between two polls: the
// prefix is left to the scan (its new locks no longer announced), while another family's still are.
func TestAStormyPrefixIsLeftToTheScan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := announcedMaster(t, "app:lock", "orders:lock:1")
	if why := c.mon.Poll(ctx).Masters[0].NotifiedWhy; !strings.Contains(why, "2 lock prefixes") {
		t.Fatalf("before the storm: %q, want two prefixes announced", why)
	}
	fillCacheKeys(t, c.masters[0].Addr(), "app:cache:", 60_000)
	s := pollFor(t, c, "the stormy prefix left to the scan", func(s Snapshot) bool {
		return strings.Contains(s.Masters[0].NotifiedWhy, `prefix "orders:lock:" announced`)
	})
	if why := s.Masters[0].NotifiedWhy; strings.Contains(why, "safety net") {
		t.Errorf("with a family left to the scan, the scan keeps its full budget: %q", why)
	}
	must(t, setNXPX(ctx, c.admin[0], "orders:lock:2", "Zk3q9V2mXc7LbR1tYw8sNa"))
	if shown, _ := shownWithin(c, "orders:lock:2", 2); !shown {
		t.Error("a calm family's new lock not shown within two polls during another's storm")
	}
}

// TestAnnouncementsNeedTheirPermissions watches as a user whose ACL refuses CLIENT: the master is watched all
// the same, and says why new keys are not announced.
func TestAnnouncementsNeedTheirPermissions(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	a.setUser(t, "noclient", []string{"on", ">pw", "~*", "&*", "+@all", "-client"})
	s := a.watch(t, "noclient", Config{})
	if m := s.Masters[0]; !m.Up || !strings.Contains(m.NotifiedWhy, "not announced: refused") {
		t.Errorf("up %v (%s), notified why %q; want up, and new keys not announced: refused", m.Up, m.Err, m.NotifiedWhy)
	}
}
