package record

import (
	"slices"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Alarm is a moment of a recording worth seeking to (the replay seeks to the monitor's events as Alarms of their
// own severity): an error or a warning that some surface showed then. The
// monitor's events of either severity, each warning the banner raised that no event of its poll told
// (monitor.ToldBy: a master first seen young, a sweep, an unread lock), and the recorded events of the dashboard
// and the demo that are errors or warnings (a violation among them).
type Alarm struct {
	Time     time.Time
	Severity monitor.Severity
	Subject  string // the lock or the master it is about; "" when about neither
	Text     string
	Source   events.Source // events.SourceMonitor, or the recorded event's source
}

// alarmsOf are the alarms of poll s: its events (evs) that are errors or warnings, and its warnings raised since
// prev that none of evs tells.
func alarmsOf(prev *monitor.Snapshot, s *monitor.Snapshot, evs []monitor.Event) []Alarm {
	var out []Alarm
	for _, e := range evs {
		if sev := e.Kind.Severity(); sev.AtLeast(monitor.SeverityWarning) {
			out = append(out, Alarm{Time: e.Time, Severity: sev, Subject: subjectOf(e.Resource, e.Master), Text: e.Text,
				Source: events.SourceMonitor})
		}
	}
	raised, _ := s.WarningsSince(prev)
	for _, w := range raised {
		if !monitor.ToldBy(w, evs) {
			out = append(out, Alarm{Time: s.Time, Severity: w.Severity, Subject: subjectOf(w.Resource, w.Master),
				Text: w.Kind + ": " + w.Text, Source: events.SourceMonitor})
		}
	}
	return out
}

// subjectOf is what an alarm is about: the lock, else the master.
func subjectOf(resource, master string) string {
	if resource != "" {
		return resource
	}
	return master
}

// Alarms are the recording's alarms, oldest first: the monitor's (alarmsOf each poll) and the recorded events
// of the dashboard and the demo that are errors or warnings.
func (p *Player) Alarms() []Alarm {
	out := slices.Clone(p.alarms)
	for _, r := range p.rec.Events {
		if r.Severity.AtLeast(monitor.SeverityWarning) {
			out = append(out, Alarm{Time: r.Time, Severity: r.Severity, Subject: subjectOf(r.Resource, r.Master), Text: r.Text, Source: r.Source})
		}
	}
	slices.SortStableFunc(out, func(a, b Alarm) int { return a.Time.Compare(b.Time) })
	return out
}
