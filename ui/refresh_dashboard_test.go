package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestMastersPanelShowsEachMastersRefreshMode watches two real masters: one that allows tracking, and one
// whose user may not run CLIENT (so it refuses CLIENT ID and CLIENT TRACKING). The masters panel says the
// first is tracked and the second polled for want of tracking ("polled!"); with tracking turned off
// (--no-tracking), a master is plainly polled.
func TestMastersPanelShowsEachMastersRefreshMode(t *testing.T) {
	servers := redlocktest.RealServers(t, 2, redlocktest.ServerOptions{})
	admin := []*redis.Client{servers[0].NewClient(), servers[1].NewClient()}
	ctx := context.Background()
	for _, a := range admin {
		t.Cleanup(func() { _ = a.Close() })
		if err := a.Set(ctx, "orders:7", tokA, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin[1].Do(ctx, "ACL", "SETUSER", "watcher", "on", ">pw", "~*", "&*", "+@all", "-client").Err(); err != nil {
		t.Fatal(err)
	}
	refused := redis.NewClient(&redis.Options{Addr: servers[1].Addr(), Username: "watcher", Password: "pw",
		ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = refused.Close() })
	addrs := []string{servers[0].Addr(), servers[1].Addr()}

	c := watched(t, []*redis.Client{admin[0], refused}, addrs, nil, monitor.Config{})
	t.Cleanup(func() { _ = c.mon.Close() })
	s := pollUntilRefresh(t, c.mon, func(ms []monitor.MasterStatus) bool {
		return ms[0].Refresh == monitor.RefreshTracking && ms[1].Refresh == monitor.RefreshPolling
	})
	if why := s.Masters[1].RefreshWhy; !strings.Contains(why, "refused") {
		t.Fatalf("the master that refuses tracking is polled because %q", why)
	}
	d := c.dashboard(ui.Options{})
	d.update(ui.SnapshotMsg{Snapshot: s})
	view := d.m.View()
	if got := refreshCellOf(t, view, addrs[0]); got != "tracked" {
		t.Errorf("the master that allows tracking shows %q:\n%s", got, view)
	}
	if got := refreshCellOf(t, view, addrs[1]); got != "polled!" {
		t.Errorf("the master that refuses tracking shows %q:\n%s", got, view)
	}

	off := watched(t, admin[:1], addrs[:1], nil, monitor.Config{NoTracking: true})
	t.Cleanup(func() { _ = off.mon.Close() })
	s = pollUntilRefresh(t, off.mon, func(ms []monitor.MasterStatus) bool { return ms[0].Up })
	d = off.dashboard(ui.Options{})
	d.update(ui.SnapshotMsg{Snapshot: s})
	view = d.m.View()
	if got := refreshCellOf(t, view, addrs[0]); got != "polled" {
		t.Errorf("with tracking turned off, the master shows %q:\n%s", got, view)
	}
}

// pollUntilRefresh polls mon until ok holds for its masters, failing after 20 seconds.
func pollUntilRefresh(t *testing.T, mon *monitor.Monitor, ok func([]monitor.MasterStatus) bool) monitor.Snapshot {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := mon.Poll(context.Background())
		if ok(s.Masters) {
			return s
		}
		if time.Now().After(deadline) {
			for _, m := range s.Masters {
				t.Logf("%s: up %v, %s %q, err %q", m.Addr, m.Up, m.Refresh, m.RefreshWhy, m.Err)
			}
			t.Fatal("20s: the masters never came to the refresh modes awaited")
		}
	}
}

// refreshCellOf returns the REFRESH cell of the masters panel's row of addr in view.
func refreshCellOf(t *testing.T, view, addr string) string {
	t.Helper()
	lines := strings.Split(view, "\n")
	head := -1
	for _, l := range lines {
		if i := strings.Index(l, "REFRESH"); i >= 0 && strings.Contains(l, "ADDRESS") {
			head = len([]rune(l[:i]))
			continue
		}
		if head >= 0 && strings.Contains(l, addr) {
			cell := []rune(l)[head:]
			return strings.Fields(string(cell))[0]
		}
	}
	t.Fatalf("no masters panel row of %s under a REFRESH column:\n%s", addr, view)
	return ""
}
