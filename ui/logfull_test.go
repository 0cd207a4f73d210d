package ui_test

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/demo"
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

// At 100x30 the log's pane has three lines of text: V gives the violation's story the body, until esc.
func TestStoryAt100x30FillsTheBody(t *testing.T) {
	dm := startDemo(t, demo.Options{Clients: 1, Resources: 1, Paused: true, ScenarioPace: 20 * time.Millisecond})
	d := demoDashboard(t, dm, ui.Options{})
	d.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("m", "j", "j", "enter") // crash-restart: a violation
	d.waitView("scenario crash-restart over")
	d.press("V")
	v := d.m.View()
	checkScreen(t, v, 100, 30)
	if strings.Contains(v, "Masters") || !strings.Contains(v, "violation #1 (overlap)") ||
		!strings.Contains(v, "#1 │ crash-restart 1: begins") {
		t.Errorf("V did not give the story the body at 100x30:\n%s", v)
	}
	d.press("esc")
	if v := d.m.View(); !strings.Contains(v, "Masters") {
		t.Errorf("esc did not give the body back:\n%s", v)
	}
}
