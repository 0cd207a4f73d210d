package monitor

import (
	"fmt"
	"testing"
	"time"
)

// ev is an event n seconds after t0.
func ev(n int, kind EventKind) Event {
	return Event{Time: t0.Add(time.Duration(n) * time.Second), Kind: kind, Resource: fmt.Sprint("r", n), Text: "t"}
}

func TestEventsSinceReturnsOnlyTheNewEvents(t *testing.T) {
	one, two, three := ev(1, EventLockAppeared), ev(2, EventLockReleased), ev(3, EventMasterDown)
	for _, tc := range []struct {
		name       string
		prev, next []Event
		want       []Event
	}{
		{"first snapshot: all", nil, []Event{one, two}, []Event{one, two}},
		{"one new", []Event{one, two}, []Event{one, two, three}, []Event{three}},
		{"none new", []Event{one, two}, []Event{one, two}, nil},
		{"the oldest fell out of the window", []Event{one, two}, []Event{two, three}, []Event{three}},
		{"prev's newest fell out too: newer by time", []Event{one}, []Event{two, three}, []Event{two, three}},
	} {
		var prev *Snapshot
		if tc.prev != nil {
			prev = &Snapshot{Events: tc.prev}
		}
		got := Snapshot{Events: tc.next}.EventsSince(prev)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: EventsSince = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWarningsSinceToldApartByID(t *testing.T) {
	down := Warning{Severity: SeverityError, Kind: WarnMasterDown, Master: "a:1", Text: "down for 1s"}
	downLater := down
	downLater.Text = "down for 2s" // the same warning: its figures change from poll to poll
	clock := Warning{Kind: WarnClockOffset, Master: "b:1", Text: "offset 10ms"}
	lockA := Warning{Severity: SeverityError, Kind: WarnQuorumLost, Resource: "a", Text: "lost"}
	lockB := Warning{Severity: SeverityError, Kind: WarnQuorumLost, Resource: "b", Text: "lost"}
	for _, tc := range []struct {
		name            string
		prev            *Snapshot
		now             []Warning
		raised, cleared []Warning
	}{
		{"first snapshot: all raised", nil, []Warning{down, clock}, []Warning{down, clock}, nil},
		{"the same warning with new figures is not new", &Snapshot{Warnings: []Warning{down}}, []Warning{downLater}, nil, nil},
		{"one raised, one cleared", &Snapshot{Warnings: []Warning{down}}, []Warning{clock}, []Warning{clock}, []Warning{down}},
		{"two locks in the same trouble are two warnings", &Snapshot{Warnings: []Warning{lockA}}, []Warning{lockA, lockB}, []Warning{lockB}, nil},
	} {
		raised, cleared := Snapshot{Warnings: tc.now}.WarningsSince(tc.prev)
		if fmt.Sprint(raised) != fmt.Sprint(tc.raised) || fmt.Sprint(cleared) != fmt.Sprint(tc.cleared) {
			t.Errorf("%s: raised %v, cleared %v; want %v, %v", tc.name, raised, cleared, tc.raised, tc.cleared)
		}
	}
}
