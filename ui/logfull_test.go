package ui_test

import (
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/ui"
)

// E lets the event log fill the body at a size where it has a pane of its own, and gives the body back.
func TestEnlargeKeyLetsTheLogFillTheBodyAtAnySize(t *testing.T) {
	m := newDashboard(ui.Options{Title: "demo"}, 100, 30)
	m.Update(ui.SnapshotMsg{Snapshot: demoSnapshot()})
	if v := m.View(); !strings.Contains(v, "Masters") || !strings.Contains(v, "─ Events") {
		t.Fatalf("at 100x30 the panels and the log's own pane are not both on screen:\n%s", v)
	}
	m.Update(keyMsg("E"))
	v := m.View()
	checkScreen(t, v, 100, 30)
	if strings.Contains(v, "Masters") || !strings.Contains(v, "┏━ Events") {
		t.Errorf("E did not let the focused log fill the body:\n%s", v)
	}
	m.Update(keyMsg("E"))
	if v := m.View(); !strings.Contains(v, "Masters") {
		t.Errorf("E again did not give the body back to the panels:\n%s", v)
	}
}
