package monitor

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
)

// TestTrackingLostInvalidationConnectionReadsAll kills the invalidation connection and changes the lock at
// once, so its invalidation is lost: the next poll must not serve the old value, but read every key again;
// and while the connection cannot come back (the master at its maxclients), every poll reads every key.
// Once it is back, the master is tracked again and a change reaches the next poll.
func TestTrackingLostInvalidationConnectionReadsAll(t *testing.T) {
	t.Parallel()
	const key = "lock:killed"
	c, _ := trackedCluster(t, key)
	ctx := context.Background()
	admin := c.admin[0]
	clients := strings.Count(admin.ClientList(ctx).Val(), "\n")
	if err := admin.ConfigSet(ctx, "maxclients", fmt.Sprint(clients-1)).Err(); err != nil {
		t.Fatal(err)
	}
	// The tracker's own invalidation connection, the one its read connection redirects invalidations to: the
	// announcer's subscription is another.
	if err := admin.Do(ctx, "client", "kill", "id", invalidationConnection(t, admin)).Err(); err != nil {
		t.Fatal(err)
	}
	c.set(t, key, "token-two-0123456789", time.Minute, 0)
	for i := range 3 {
		s := c.mon.Poll(ctx)
		if cell := cellOf(s, key); cell == nil || cell.Token != "token-two-0123456789" {
			t.Fatalf("poll %d after the invalidation connection was killed shows %+v", i+1, cell)
		}
		if m := s.Masters[0]; m.RefreshWhy == "" {
			t.Fatalf("poll %d after the invalidation connection was killed was not a full read: %s", i+1, m.Refresh)
		}
	}
	if err := admin.ConfigSet(ctx, "maxclients", "10000").Err(); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, c.mon, 20*time.Second, "the master tracked again", quietlyTracked)
	c.set(t, key, "token-three-0123456789", time.Minute, 0)
	if cell := cellOf(c.mon.Poll(ctx), key); cell == nil || cell.Token != "token-three-0123456789" {
		t.Fatalf("the poll after a change, tracked again, shows %+v", cell)
	}
}

// TestTrackingStormFallsBackToPolling shrinks the master's tracking table below the locks watched: it evicts
// keys and invalidates them although they did not change, and the monitor turns the master to polling, with
// a warning, while the locks stay read.
func TestTrackingStormFallsBackToPolling(t *testing.T) {
	t.Parallel()
	c, _ := trackedCluster(t, "lock:0")
	ctx := context.Background()
	const locks = 400
	for i := 1; i < locks; i++ {
		c.set(t, fmt.Sprintf("lock:%d", i), "token-one-0123456789", time.Minute, 0)
	}
	pollUntil(t, c.mon, 20*time.Second, "all locks, quietly tracked", func(s Snapshot) bool {
		return len(s.Locks) == locks && quietlyTracked(s)
	})
	if err := c.admin[0].ConfigSet(ctx, "tracking-table-max-keys", "10").Err(); err != nil {
		t.Fatal(err)
	}
	s := pollUntil(t, c.mon, 30*time.Second, "the master polled after the storm", func(s Snapshot) bool {
		return s.Masters[0].Refresh == RefreshPolling
	})
	if !strings.HasPrefix(s.Masters[0].RefreshWhy, reading.StormWhy) {
		t.Fatalf("polled because %q", s.Masters[0].RefreshWhy)
	}
	why := s.Masters[0].RefreshWhy
	if !slices.ContainsFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnTrackingStorm && w.Text == why }) {
		t.Fatalf("no %s warning saying %q in %v", WarnTrackingStorm, why, s.Warnings)
	}
	if !s.Masters[0].TrackingFellBack() {
		t.Fatalf("a master polled after a storm does not say it fell back from tracking")
	}
	s = c.mon.Poll(ctx)
	if len(s.Locks) != locks || s.Masters[0].Refresh != RefreshPolling || unknownCells(s) != 0 {
		t.Fatalf("after the storm: %d locks, %s, %d unknown", len(s.Locks), s.Masters[0].Refresh, unknownCells(s))
	}
}

// TestTrackingRefusedByACLPolls watches as the README's read-only user, which may not track: the master is
// polled as before, and says why; with the README's rules for tracking added, it is tracked.
func TestTrackingRefusedByACLPolls(t *testing.T) {
	t.Parallel()
	if *polling {
		t.Skip("a test of tracking, run without -polling")
	}
	a := newACLServer(t)
	a.setUser(t, "watcher", documentedACL(t, "watcher"))
	s := a.watch(t, "watcher", Config{})
	m := s.Masters[0]
	if m.Refresh != RefreshPolling || !strings.Contains(m.RefreshWhy, "refused") || !m.TrackingFellBack() {
		t.Fatalf("a user without the permissions: %s, %q", m.Refresh, m.RefreshWhy)
	}
	if len(s.Locks) != 2 || unknownCells(s) != 0 || len(deniedWarnings(s)) != 0 {
		t.Fatalf("polled: %d locks, %d unknown, warnings %v", len(s.Locks), unknownCells(s), s.Warnings)
	}
	a.setUser(t, "tracker", append(documentedACL(t, "watcher"), trackingACL(t)...))
	s = a.watch(t, "tracker", Config{})
	if m := s.Masters[0]; m.Refresh != RefreshTracking {
		t.Fatalf("a user with the README's rules for tracking: %s, %q", m.Refresh, m.RefreshWhy)
	}
}

// unknownCells counts the cells of s's locks that are unknown.
func unknownCells(s Snapshot) int {
	n := 0
	for _, l := range s.Locks {
		for _, c := range l.Masters {
			if c.State == CellUnknown {
				n++
			}
		}
	}
	return n
}

// trackingACL returns the rules the README adds to the watcher's for tracking.
func trackingACL(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "ACL SETUSER watcher +client|id"); ok {
			return append([]string{"+client|id"}, strings.Fields(rest)...)
		}
	}
	t.Fatal("the README has no line ACL SETUSER watcher +client|id ...")
	return nil
}

// invalidationConnection is the CLIENT ID of the connection the server's one tracking client that is not in
// broadcast mode redirects its invalidations to (CLIENT LIST: flags t without B, redir=ID), as the server says.
func invalidationConnection(t *testing.T, admin *redis.Client) string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(admin.ClientList(context.Background()).Val(), "\n") {
		var tracking bool
		var redir string
		for _, field := range strings.Fields(line) {
			name, value, _ := strings.Cut(field, "=")
			switch name {
			case "flags":
				tracking = strings.Contains(value, "t") && !strings.Contains(value, "B") // not the announcer's BCAST
			case "redir":
				redir = value
			}
		}
		if tracking && redir != "" && redir != "-1" {
			ids = append(ids, redir)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("tracking clients redirect to %v; want one invalidation connection", ids)
	}
	return ids[0]
}
