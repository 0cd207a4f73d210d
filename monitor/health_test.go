package monitor

import (
	"errors"
	"testing"
)

// TestHealthNextAndItsEvent walks every health state through every kind of reading, with a master declared
// down after three missed polls, and checks the state reached and the event the move raises.
func TestHealthNextAndItsEvent(t *testing.T) {
	answer := Reading{Addr: "a"}
	timeout := Reading{Addr: "a", Err: errors.New("i/o timeout")}
	refused := Reading{Addr: "a", Err: errors.New("connection refused"), Refused: true}
	late := Reading{Addr: "a", Err: errors.New("no answer within 100ms"), Late: true}
	var (
		unknown  = health{}
		up       = health{state: healthUp}
		missed1  = health{state: healthMissed, missed: 1, failed: true}
		missed2  = health{state: healthMissed, missed: 2, failed: true}
		late1    = health{state: healthMissed, missed: 1}
		late2    = health{state: healthMissed, missed: 2}
		late3    = health{state: healthMissed, missed: 3}
		downNow  = health{state: healthDown, missed: 1, failed: true} // refused at its first miss
		down3    = health{state: healthDown, missed: 3, failed: true}
		upDup    = health{state: healthUp, sameAs: "b"}
		missedD  = health{state: healthMissed, missed: 1, failed: true, sameAs: "b"}
		notAns   = EventMasterNotAnswering
		downEv   = EventMasterDown
		upEv     = EventMasterUp
		noEvent  = EventKind("")
		fromDown = "up again"
	)
	tests := []struct {
		name     string
		from     health
		r        Reading
		want     health
		wantKind EventKind
		wantText string
	}{
		{"unknown, answers: up, no news", unknown, answer, up, noEvent, ""},
		{"unknown, times out: not answering", unknown, timeout, missed1, notAns, "silent: i/o timeout"},
		{"unknown, refuses: down at once", unknown, refused, downNow, downEv, "down: connection refused"},
		{"up, answers: still up", up, answer, up, noEvent, ""},
		{"up, times out: not answering", up, timeout, missed1, notAns, "silent: i/o timeout"},
		{"up, refuses: down at once", up, refused, downNow, downEv, "down: connection refused"},
		{"missed once, answers: up again", missed1, answer, up, upEv, "answering again after 1 missed polls"},
		{"missed once, times out: missed twice, no news", missed1, timeout, missed2, noEvent, ""},
		{"missed once, refuses: down", missed1, refused, health{state: healthDown, missed: 2, failed: true}, downEv, "down: connection refused"},
		{"missed twice, times out: the third miss is down", missed2, timeout, down3, downEv, "down: i/o timeout"},
		{"missed twice, answers: up again", missed2, answer, up, upEv, "answering again after 2 missed polls"},
		{"down, answers: up again", down3, answer, up, upEv, fromDown},
		{"down, times out: still down, no news", down3, timeout, health{state: healthDown, missed: 4, failed: true}, noEvent, ""},
		{"down, refuses: still down, no news", down3, refused, health{state: healthDown, missed: 4, failed: true}, noEvent, ""},
		{"down, late: still down, no news", down3, late, health{state: healthDown, missed: 4, failed: true}, noEvent, ""},
		{"up, late: not answering", up, late, late1, notAns, "silent: no answer within 100ms"},
		{"late twice, late again: slow, not down however many", late2, late, late3, noEvent, ""},
		{"late thrice, times out: down", late3, timeout, health{state: healthDown, missed: 4, failed: true}, downEv, "down: i/o timeout"},
		{"timed out, then late twice: the third miss is down", missed2, late, health{state: healthDown, missed: 3, failed: true}, downEv, "down: no answer within 100ms"},
		{"late, then refuses: down at once", late1, refused, health{state: healthDown, missed: 2, failed: true}, downEv, "down: connection refused"},
		{"late twice, answers: up again", late2, answer, up, upEv, "answering again after 2 missed polls"},
		{"refused once, then times out: missed, below the limit", downNow, timeout, missed2, noEvent, ""},
		{"duplicate, answers: the duplicate is decided again", upDup, answer, up, noEvent, ""},
		{"duplicate, times out: still the same server", upDup, timeout, missedD, notAns, "silent: i/o timeout"},
		{"duplicate not answering, refuses: down, still the same server", missedD, refused, health{state: healthDown, missed: 2, failed: true, sameAs: "b"}, downEv, "down: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.from.next(tt.r, 3)
			if got != tt.want {
				t.Errorf("%+v after %v: got %+v, want %+v", tt.from, tt.r.Err, got, tt.want)
			}
			kind, text := tt.from.eventTo(got, tt.r)
			if kind != tt.wantKind || text != tt.wantText {
				t.Errorf("%s -> %s: event %q %q, want %q %q", tt.from.state, got.state, kind, text, tt.wantKind, tt.wantText)
			}
		})
	}
}

// TestSetHealthDerivesTheExportedFields checks that the fields the screen, the JSON and the metrics read say
// what the health says.
func TestSetHealthDerivesTheExportedFields(t *testing.T) {
	tests := []struct {
		h           health
		up, down    bool
		missed      int
		duplicateOf string
	}{
		{health{state: healthUp}, true, false, 0, ""},
		{health{state: healthMissed, missed: 2}, false, false, 2, ""},
		{health{state: healthDown, missed: 3}, false, true, 3, ""},
		{health{state: healthUp, sameAs: "10.0.0.1:6379"}, true, false, 0, "10.0.0.1:6379"},
		{health{state: healthDown, missed: 5, sameAs: "10.0.0.1:6379"}, false, true, 5, "10.0.0.1:6379"},
	}
	for _, tt := range tests {
		m := MasterStatus{Up: true, Down: true, Missed: 9, DuplicateOf: "stale"}
		m.setHealth(tt.h)
		if m.Up != tt.up || m.Down != tt.down || m.Missed != tt.missed || m.DuplicateOf != tt.duplicateOf {
			t.Errorf("setHealth(%+v): Up=%v Down=%v Missed=%d DuplicateOf=%q, want %v %v %d %q",
				tt.h, m.Up, m.Down, m.Missed, m.DuplicateOf, tt.up, tt.down, tt.missed, tt.duplicateOf)
		}
	}
}
