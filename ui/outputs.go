package ui

import (
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// OutputMsg tells the dashboard of one of the program's own events (events.SourceProgram): a file it writes
// (--record, --events) that a write error stopped, or SIGHUP reopening its files. The event log shows Record;
// the banner shows Stopped, the sentence of each file stopped by then, until a reopening resumes it.
type OutputMsg struct {
	Record  events.Record
	Stopped []string
}

// takeOutput logs msg's record and shows its stopped files in the banner, ahead of the monitor's warnings.
func (m *Model) takeOutput(msg OutputMsg) {
	m.sh.Log.Add(kit.EntryOf(msg.Record))
	m.stopped = m.stopped[:0]
	for _, text := range msg.Stopped {
		m.stopped = append(m.stopped, kit.WarningRow{Severity: monitor.SeverityError, Text: kit.Sanitize(text, kit.TextCap)})
	}
}

// bannerRows are the banner's lines: the files stopped, then the monitor's warnings, errors first.
func (m *Model) bannerRows() []kit.WarningRow {
	if d := m.sh.Data; d != nil {
		return append(m.stopped[:len(m.stopped):len(m.stopped)], d.Warnings...)
	}
	return m.stopped
}
