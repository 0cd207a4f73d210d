package ui_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/monitor"

	"github.com/redlock-tui/redlock-tui/ui"
)

func TestDrillDownShowsTheLockInFullAndEscReturns(t *testing.T) {
	m := newDashboard(ui.Options{Locker: idleLocker(t)}, 80, 24)
	m.Update(ui.SnapshotMsg{Snapshot: longTokenSnapshot()})
	if strings.Contains(m.View(), longToken) {
		t.Fatalf("the 80x24 table already shows the full token; the test proves nothing:\n%s", m.View())
	}
	m.Update(keyMsg("enter"))
	view := m.View()
	checkScreen(t, view, 80, 24)
	if n := strings.Count(view, longToken); n != 3 { // the holder line, and the token on each of two masters
		t.Errorf("the full token appears %d times in the lock's view, want 3:\n%s", n, view)
	}
	if !strings.Contains(view, tokB) {
		t.Errorf("the other token on the third master is not shown in full:\n%s", view)
	}

	// A snapshot without the lock keeps the view open and says the lock is gone.
	gone := longTokenSnapshot()
	gone.Locks = nil
	m.Update(ui.SnapshotMsg{Snapshot: gone})
	if view := m.View(); !strings.Contains(view, "on no master any more") {
		t.Errorf("the view of a lock that vanished does not say so:\n%s", view)
	}

	m.Update(keyMsg("esc"))
	if view := m.View(); strings.Contains(view, "Lock payments") || !strings.Contains(view, "Masters") {
		t.Errorf("esc did not return to the panels:\n%s", view)
	}
}

func TestDrillDownOfAMasterShowsItsErrorInFull(t *testing.T) {
	s := masterDownSnapshot()
	long := "dial tcp 10.0.0.2:6379: connect: connection refused after the third attempt, " +
		"while the host was unreachable from this network segment"
	s.Masters[1].Err = long
	m := newDashboard(ui.Options{}, 80, 24)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	for _, k := range []string{"shift+tab", "j", "enter"} { // focus the masters, the second, open
		m.Update(keyMsg(k))
	}
	view := m.View()
	checkScreen(t, view, 80, 24)
	flat := strings.Join(strings.Fields(strings.NewReplacer("┃", " ").Replace(view)), " ")
	if !strings.Contains(flat, long) {
		t.Errorf("the master's error is not shown in full (wrapped):\n%s", view)
	}
}

func TestHelpScrollsToTheLegendAt80x24(t *testing.T) {
	m := newDashboard(ui.Options{Locker: idleLocker(t)}, 80, 24)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	m.Update(keyMsg("?"))
	if strings.Contains(m.View(), "Names") {
		t.Fatalf("the whole help fits at 80x24; the test proves nothing:\n%s", m.View())
	}
	m.Update(keyMsg("G"))
	if view := m.View(); !strings.Contains(view, "Names") || !strings.Contains(view, "lines") {
		t.Errorf("the end of the help (its legend) and the position marker are not reachable:\n%s", view)
	}
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress, Y: 5})
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress, Y: 5})
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress, Y: 5})
	if view := m.View(); strings.Contains(view, "Names") {
		t.Errorf("the mouse wheel did not scroll the help up:\n%s", view)
	}
}

func TestEventLogSearchAndLevel(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 36)
	s := eventfulSnapshot()
	s.Events = append(s.Events, monitor.Event{Time: testNow, Kind: monitor.EventLockLost, Resource: "r07",
		Text: "our lock is on no quorum"})
	m.Update(ui.SnapshotMsg{Snapshot: s})
	for _, k := range []string{"tab", "tab", "/", "r", "0", "7"} { // focus the log, search "r07"
		m.Update(keyMsg(k))
	}
	view := m.View()
	if !strings.Contains(view, "r07: new holder") || strings.Contains(view, "r39: new holder") ||
		!strings.Contains(view, "Events 2 of") {
		t.Fatalf("the search for r07 does not narrow the log to its two entries:\n%s", view)
	}
	m.Update(keyMsg("enter"))
	m.Update(keyMsg("i")) // warnings and errors
	view = m.View()
	if !strings.Contains(view, "lock-lost r07") || strings.Contains(view, "r07: new holder") {
		t.Errorf("the level filter does not narrow the search to the error:\n%s", view)
	}
	m.Update(keyMsg("i"))
	m.Update(keyMsg("i")) // every level again
	m.Update(keyMsg("esc"))
	if view := m.View(); !strings.Contains(view, "r39: new holder") || strings.Contains(view, "Events 2 of") {
		t.Errorf("esc does not clear the search:\n%s", view)
	}
}

func TestEventLogNarrowsToTheSelectedLock(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 36)
	s := normalSnapshot()
	for _, res := range []string{"billing:invoice:42", "orders:7"} {
		s.Events = append(s.Events, monitor.Event{Time: testNow, Kind: monitor.EventTakenOver, Resource: res,
			Text: res + " news"})
	}
	m.Update(ui.SnapshotMsg{Snapshot: s})
	m.Update(keyMsg("o")) // the selected lock: the first row
	if view := m.View(); !strings.Contains(view, "billing:invoice:42 news") || strings.Contains(view, "orders:7 news") ||
		!strings.Contains(view, "Events 1 of") {
		t.Fatalf("o did not narrow the log to the selected lock, billing:invoice:42:\n%s", view)
	}
	m.Update(keyMsg("o"))
	for _, k := range []string{"/", "o", "r", "d", "enter", "o"} { // select orders:7, then narrow to it
		m.Update(keyMsg(k))
	}
	view := m.View()
	if !strings.Contains(view, "orders:7 news") || strings.Contains(view, "billing:invoice:42 news") ||
		!strings.Contains(view, "lock orders:7") {
		t.Fatalf("o does not narrow the log to orders:7's entries:\n%s", view)
	}
	m.Update(keyMsg("o"))
	if view := m.View(); !strings.Contains(view, "billing:invoice:42 news") || strings.Contains(view, "lock orders:7") {
		t.Errorf("o again does not show every lock's entries:\n%s", view)
	}
}

func TestFirstSnapshotIsOneBaselineLineNotALinePerLock(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 36)
	s := bigSnapshot(2000)
	for i := range s.Locks { // as a monitor that announced every lock would
		s.Events = append(s.Events, monitor.Event{Time: testNow, Kind: monitor.EventLockAppeared,
			Resource: s.Locks[i].Resource, Text: "appeared"})
	}
	s.Events = nil // the monitor announces nothing during its first scan; the dashboard sums the baseline up
	m.Update(ui.SnapshotMsg{Snapshot: s})
	view := m.View()
	if !strings.Contains(view, "first poll:") || !strings.Contains(view, "2,000 locks") {
		t.Errorf("no one-line baseline of the first snapshot:\n%s", view)
	}
	if strings.Contains(view, "lock-appeared") {
		t.Errorf("the first snapshot logs locks one by one:\n%s", view)
	}
}
