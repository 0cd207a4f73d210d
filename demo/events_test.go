package demo

import (
	"testing"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

func TestADemoEventsRecordNamesItsMasterAndSeverity(t *testing.T) {
	v := Event{Kind: EventViolation, Master: 1, Text: "two holders"}.Record([]string{"a:1", "b:2"})
	if v.Severity != monitor.SeverityError || v.Master != "b:2" || v.Source != events.SourceDemo {
		t.Errorf("a demo violation: %+v, want an error on b:2", v)
	}
	if w := (Event{Kind: EventWrite, Master: -1}).Record(nil); w.Severity != monitor.SeverityInfo || w.Master != "" {
		t.Errorf("a demo write: %+v, want info on no master", w)
	}
}
