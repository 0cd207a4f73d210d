package ui_test

import (
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestDrillDownOfAMasterSaysHowItsKeysAreRefreshed opens a tracked master and a polled one: each says its
// mode, the polled one why.
func TestDrillDownOfAMasterSaysHowItsKeysAreRefreshed(t *testing.T) {
	s := masterDownSnapshot()
	s.Masters[0].Refresh = monitor.RefreshTracking
	s.Masters[1].Refresh, s.Masters[1].RefreshWhy = monitor.RefreshPolling, "CLIENT TRACKING refused: NOPERM \x1b[31mred"
	for i, want := range []string{"tracking: only the keys the master says changed", "polling: every lock key read on every poll"} {
		view, flat := masterView(s, i)
		if !strings.Contains(flat, want) {
			t.Errorf("master %d's view does not say %q:\n%s", i, want, view)
		}
		if i == 1 && !strings.Contains(flat, "CLIENT TRACKING refused") {
			t.Errorf("the polled master's view does not say why:\n%s", view)
		}
		if strings.Contains(view, "\x1b[31mred") {
			t.Errorf("the reason's escape sequence reached the screen:\n%s", view)
		}
	}
}

// refreshModesSnapshot has a tracked master, one polled by design (--no-tracking) and one polled because it
// refused tracking.
func refreshModesSnapshot() monitor.Snapshot {
	s := normalSnapshot()
	s.Masters[0].RefreshWhy = "full re-read: due every 3m"
	s.Masters[1].Refresh, s.Masters[1].RefreshWhy = monitor.RefreshPolling, "tracking turned off"
	s.Masters[2].Refresh, s.Masters[2].RefreshWhy = monitor.RefreshPolling, "CLIENT TRACKING refused: NOPERM"
	return s
}

// TestDrillDownOfAMasterSaysHowNewKeysAreFound opens a master whose new keys come through its keyspace
// notifications and one whose come by the scan only: each says so, the second why, escaped.
func TestDrillDownOfAMasterSaysHowNewKeysAreFound(t *testing.T) {
	s := masterDownSnapshot()
	s.Masters[0].Notified = true
	s.Masters[0].NotifiedWhy = "within a poll, through keyspace notifications (set, expire), and by the scan"
	s.Masters[1].NotifiedWhy = "by the scan only: CONFIG GET refused (NOPERM \x1b[31mred), so whether keyspace notifications are on is unknown"
	for i, want := range []string{"new keys within a poll, through keyspace notifications (set, expire)", "by the scan only: CONFIG GET refused"} {
		view, flat := masterView(s, i)
		if !strings.Contains(flat, want) {
			t.Errorf("master %d's view does not say %q:\n%s", i, want, view)
		}
		if !strings.Contains(flat, "new keys") {
			t.Errorf("master %d's view has no line of new keys:\n%s", i, view)
		}
		if strings.Contains(view, "\x1b[31mred") {
			t.Errorf("the reason's escape sequence reached the screen:\n%s", view)
		}
	}
}

// masterView opens the view of master i of s, from the masters panel, and returns the screen and its words
// joined by single spaces (the view's borders left out).
func masterView(s monitor.Snapshot, i int) (view, flat string) {
	m := newDashboard(ui.Options{}, 120, 40)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	m.Update(keyMsg("shift+tab"))
	for range i {
		m.Update(keyMsg("j"))
	}
	m.Update(keyMsg("enter"))
	view = m.View()
	return view, strings.Join(strings.Fields(strings.NewReplacer("┃", " ").Replace(view)), " ")
}
