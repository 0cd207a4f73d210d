package monitor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// sentinelClient returns a client of the group's master through its Sentinels, closed at cleanup.
func sentinelClient(t *testing.T, g *redlocktest.SentinelGroup, name string) *redis.Client {
	t.Helper()
	c, err := redlock.NewFailoverClient(redlock.Sentinel{MasterName: name, Addrs: g.SentinelAddrs()},
		&redis.Options{ContextTimeoutEnabled: true, DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second,
			WriteTimeout: time.Second, MaxRetries: -1, DialerRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pollUntil polls mon until ok holds for a snapshot, for at most limit; it fails t with the last snapshot's
// masters, events and warnings otherwise.
func pollUntil(t *testing.T, mon *Monitor, limit time.Duration, what string, ok func(Snapshot) bool) Snapshot {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		s := mon.Poll(context.Background())
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, m := range s.Masters {
				fmt.Fprintf(&b, "\n  master %s up %v primary %q role %s err %q", m.Addr, m.Up, m.Primary, m.Role, m.Err)
			}
			for _, e := range s.Events {
				fmt.Fprintf(&b, "\n  event %s %s", e.Kind, e.Text)
			}
			for _, w := range s.Warnings {
				fmt.Fprintf(&b, "\n  warning %s", w)
			}
			t.Fatalf("%v: no %s:%s", limit, what, b.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestMonitorFollowsASentinelFailover(t *testing.T) {
	t.Parallel()
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := sentinelClient(t, g, g.Name)
	name := c.Options().Addr
	mon, err := New([]*redis.Client{c}, []string{name}, Config{Timeout: testTimeout, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admin := before.NewClient()
	defer admin.Close()
	if err := admin.Set(ctx, "orders:1", "token-before-failover-1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := admin.Do(ctx, "wait", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d, %v", n, err)
	}
	held := func(s Snapshot) bool {
		return len(s.Locks) == 1 && s.Locks[0].Resource == "orders:1" && s.Locks[0].State == StateHeld
	}
	s := pollUntil(t, mon, 30*time.Second, "held lock through the Sentinels", held)
	if m := s.Masters[0]; !m.Up || m.Primary != before.Addr() || m.Addr != name {
		t.Errorf("master %+v; want %s up with primary %s", m, name, before.Addr())
	}

	from, to, err := g.Failover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s = pollUntil(t, mon, 30*time.Second, "failover event", func(s Snapshot) bool {
		for _, e := range s.Events {
			if e.Kind == EventMasterFailover {
				return true
			}
		}
		return false
	})
	var ev Event
	for _, e := range s.Events {
		switch e.Kind {
		case EventMasterFailover:
			ev = e
		case EventMasterRestarted:
			t.Errorf("a failover was reported as a restart too: %s", e.Text)
		}
	}
	if want := fmt.Sprintf("failover: primary %s -> %s", from.Addr(), to.Addr()); ev.Text != want || ev.Master != name {
		t.Errorf("failover event %+v; want %q about %s", ev, want, name)
	}
	// The lock was replicated before the failover: the new primary shows it, still held.
	s = pollUntil(t, mon, 30*time.Second, "the lock held on the new primary, with the failover warning",
		func(s Snapshot) bool {
			return held(s) && s.Masters[0].Primary == to.Addr() && s.Masters[0].Role == "master"
		})
	if !hasWarning(s, WarnFailover, name) || s.Unsafe != 1 {
		t.Errorf("warnings %v, Unsafe %d; want the failover warning about %s and the master unsafe", s.Warnings, s.Unsafe, name)
	}
	if m := s.Masters[0]; m.FormerPrimary != from.Addr() || m.LastFailover.IsZero() {
		t.Errorf("master %+v; want former primary %s and the failover's time", m, from.Addr())
	}
}

func TestMonitorNamesASentinelGivenAsAMaster(t *testing.T) {
	t.Parallel()
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	s := g.Sentinels[0]
	c := s.NewClient()
	t.Cleanup(func() { c.Close() })
	mon, err := New([]*redis.Client{c, sentinelClient(t, g, "nosuch")}, []string{s.Addr(), "nosuch"}, Config{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	snap := mon.Poll(context.Background())
	want := []string{
		s.Addr() + " is a Sentinel, not a master: give redis+sentinel://" + s.Addr() + "/mymaster",
		`no Sentinel named a primary for "nosuch": ` + strings.Join(g.SentinelAddrs(), ", ") + ` know no master "nosuch" (they watch mymaster)`,
	}
	for i, m := range snap.Masters {
		if !m.Down || m.Err != want[i] {
			t.Errorf("master %s: down %v, error %q; want down at once with %q", m.Addr, m.Down, m.Err, want[i])
		}
	}
}
