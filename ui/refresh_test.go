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
		m := newDashboard(ui.Options{}, 120, 40)
		m.Update(ui.SnapshotMsg{Snapshot: s})
		m.Update(keyMsg("shift+tab"))
		for range i {
			m.Update(keyMsg("j"))
		}
		m.Update(keyMsg("enter"))
		view := m.View()
		flat := strings.Join(strings.Fields(strings.NewReplacer("┃", " ").Replace(view)), " ")
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

// TestDrillDownOfAMasterSaysHowNewKeysAreFound opens a master whose new keys come through its keyspace
// notifications and one whose come by the scan only: each says so, the second why, escaped.
func TestDrillDownOfAMasterSaysHowNewKeysAreFound(t *testing.T) {
	s := masterDownSnapshot()
	s.Masters[0].Notified, s.Masters[0].NotifiedWhy = true, "keyspace notifications (set, expire) and the scan"
	s.Masters[1].NotifiedWhy = "CONFIG GET refused (NOPERM \x1b[31mred): new keys by the scan only"
	for i, want := range []string{"new keys within a poll: keyspace notifications (set, expire)", "new keys by the scan:"} {
		m := newDashboard(ui.Options{}, 120, 40)
		m.Update(ui.SnapshotMsg{Snapshot: s})
		m.Update(keyMsg("shift+tab"))
		for range i {
			m.Update(keyMsg("j"))
		}
		m.Update(keyMsg("enter"))
		view := m.View()
		flat := strings.Join(strings.Fields(strings.NewReplacer("┃", " ").Replace(view)), " ")
		if !strings.Contains(flat, want) {
			t.Errorf("master %d's view does not say %q:\n%s", i, want, view)
		}
		if i == 1 && !strings.Contains(flat, "CONFIG GET refused") {
			t.Errorf("the master found by the scan only does not say why:\n%s", view)
		}
		if strings.Contains(view, "\x1b[31mred") {
			t.Errorf("the reason's escape sequence reached the screen:\n%s", view)
		}
	}
}
