package ui_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/redlock-tui/redlock-tui/ui"
)

// lineOf returns the first line of view that contains s, "" when none does.
func lineOf(view, s string) string {
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// TestSparklineColumnTogglesWhereItFits: the sparkline key adds the HANDOVER column, where orders:hot's busiest
// part is its last (a handover at every poll in the last minute) and billing:cool, held throughout, has none;
// a panel too narrow for it says so and leaves it out; the key again hides it.
func TestSparklineColumnTogglesWhereItFits(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 30)
	m.Update(ui.SnapshotMsg{Snapshot: contentionSnapshot()})
	if strings.Contains(m.View(), "HANDOVER") {
		t.Fatal("the sparkline column is shown before its key")
	}
	m.Update(keyMsg("T"))
	view := ansi.Strip(m.View())
	hot, cool := lineOf(view, "orders:hot"), lineOf(view, "▸ billing:cool")
	if !strings.Contains(view, "HANDOVER") || !strings.Contains(hot, "▄█ held") || !strings.Contains(cool, " ········ held") {
		t.Errorf("no sparkline column, or not the handovers:\n%q\n%q\n%s", hot, cool, view)
	}
	m.Update(keyMsg("T"))
	if strings.Contains(m.View(), "HANDOVER") {
		t.Error("the key again does not hide the column")
	}
	narrow := newDashboard(ui.Options{}, 64, 30)
	narrow.Update(ui.SnapshotMsg{Snapshot: contentionSnapshot()})
	narrow.Update(keyMsg("T"))
	if view := ansi.Strip(narrow.View()); strings.Contains(view, "HANDOVER") || !strings.Contains(view, "too narrow") {
		t.Errorf("at 64 columns the column is shown, or the status does not say why not:\n%s", view)
	}
}
