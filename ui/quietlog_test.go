package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/demoview"
)

// The workload's routine failures are counted on the demo line, not logged; what a presenter points at (an
// acquisition, a scenario's own failure) stays in the log; a minute later the count is gone.
func TestRoutineWorkloadFailuresAreCountedNotLogged(t *testing.T) {
	now := testNow
	dm := startDemo(t, demo.Options{Paused: true})
	m := newDashboard(ui.Options{Demo: dm, Title: "demo", Now: func() time.Time { return now }}, 140, 44)
	m.Update(ui.SnapshotMsg{Snapshot: demoSnapshot()})
	ev := func(kind demo.EventKind, client, resource, text string) demo.Event {
		return demo.Event{Time: now, Kind: kind, Client: client, Resource: resource, Master: -1, Text: text}
	}
	var events []demo.Event
	for range 3 {
		events = append(events, ev(demo.EventAcquireFailed, "client-1", "billing:nightly",
			"client-1 gave up on billing:nightly for now: retries exhausted"))
	}
	events = append(events,
		ev(demo.EventCrashed, "client-2", "reports:daily", "client-2 crashed holding reports:daily"),
		ev(demo.EventCrashed, "client-3", "cache:rebuild", "client-3 crashed while acquiring cache:rebuild"),
		ev(demo.EventAcquired, "client-4", "billing:nightly", "client-4 acquired billing:nightly on masters 1,2,3"),
		ev(demo.EventAcquireFailed, "B", demo.ScenarioResource, "B failed to acquire ledger:settle: no quorum"))
	m.Update(demoview.DemoMsg{Events: events, Masters: demoState().Masters, Rate: 1, At: now})
	view := m.View()
	if !strings.Contains(view, "last minute: 3 clients gave up after retries, 2 crashed") {
		t.Errorf("the demo line does not count the routine failures:\n%s", view)
	}
	for _, gone := range []string{"gave up on billing:nightly", "crashed holding", "crashed while acquiring"} {
		if strings.Contains(view, gone) {
			t.Errorf("the routine %q is in the event log:\n%s", gone, view)
		}
	}
	for _, kept := range []string{"client-4 acquired billing:nightly", "B failed to acquire ledger:settle"} {
		if !strings.Contains(view, kept) {
			t.Errorf("%q is not in the event log:\n%s", kept, view)
		}
	}
	now = now.Add(routineWindowForTest + time.Second)
	m.Update(demoview.DemoMsg{Masters: demoState().Masters, Rate: 1, At: now})
	if v := m.View(); strings.Contains(v, "last minute:") {
		t.Errorf("a minute later the count stays:\n%s", v)
	}
}

// routineWindowForTest is how far back the demo line counts the routine failures (ui's routineWindow).
const routineWindowForTest = time.Minute
