package kit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// LevelGlyph tells the severities of log entries and status messages apart without colour.
var LevelGlyph = [...]string{monitor.SeverityInfo: "•", monitor.SeverityWarning: "▲", monitor.SeverityError: "✖"}

// LogEntry is one line of the event log; text is sanitized.
type LogEntry struct {
	At       time.Time
	Level    monitor.Severity
	Resource string // raw resource the entry is about, "" if none: the detail panel shows a lock's own entries
	master   string // raw address of the master the entry is about, "" if none: its drill-down shows them
	Text     string
}

// EntryOf is the event log's entry for a record, every source's events being records (events.Record): its
// time, its severity's level, the lock and master it is about, and its sentence, which for the monitor's
// events is led by the kind and the lock or master ("lock-lost jobs:a: ...").
func EntryOf(r events.Record) LogEntry {
	text := Sanitize(r.Text, TextCap)
	if r.Source == events.SourceMonitor {
		where := r.Resource
		if where == "" {
			where = r.Master
		}
		text = fmt.Sprintf("%s %s: %s", Sanitize(r.Kind, NameCap), Sanitize(where, NameCap), text)
	}
	return LogEntry{At: r.Time, Level: r.Severity, Resource: r.Resource, master: r.Master, Text: text}
}

// Journal is the record of events the dashboard keeps: our actions with their per-master outcomes, the
// monitor's events and warnings, the demo's. Every component adds to it (Shared.Logf); the event log panel
// shows it, and the detail panel and the drill-down views read a lock's or a master's entries from it. It keeps
// the newest maxLog entries.
type Journal struct {
	Entries []LogEntry
	Rev     uint64 // counts the changes, so that the event log panel knows when to filter again
}

// Add appends entries, dropping the oldest beyond the capacity.
func (j *Journal) Add(entries ...LogEntry) {
	if len(entries) == 0 {
		return
	}
	j.Entries = append(j.Entries, entries...)
	if len(j.Entries) > MaxLog {
		drop := len(j.Entries) - MaxLog + logTrim
		j.Entries = append(j.Entries[:0], j.Entries[drop:]...)
	}
	j.Rev++
}

// LastIndex returns the index of the newest entry whose text starts with prefix, or -1.
func (j *Journal) LastIndex(prefix string) int {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if strings.HasPrefix(j.Entries[i].Text, prefix) {
			return i
		}
	}
	return -1
}

// LogLine renders one entry w cells wide: time, level glyph, text.
func LogLine(s *Styles, e LogEntry, w int) string {
	const headWidth = 11 // "15:04:05 • "
	head := e.At.Format("15:04:05") + " " + LevelGlyph[e.Level] + " "
	if w <= headWidth {
		return Fit(head, w)
	}
	return s.Text.Muted.Render(head) + s.Level[e.Level].Render(Fit(e.Text, w-headWidth))
}

// LogLines renders one entry in full, wrapped to w cells: time and level glyph, then the text, its later lines
// indented under the text.
func LogLines(s *Styles, e LogEntry, w int) []string {
	const headWidth = 11
	head := s.Text.Muted.Render(e.At.Format("15:04:05") + " " + LevelGlyph[e.Level] + " ")
	var out []string
	for i, l := range Wrap(e.Text, max(w-headWidth, 8)) {
		if i > 0 {
			head = strings.Repeat(" ", headWidth)
		}
		out = append(out, head+s.Level[e.Level].Render(l))
	}
	return out
}

// EntriesFor returns the last n entries about resource, newest last.
func (j *Journal) EntriesFor(resource string, n int) []LogEntry {
	return j.lastWhere(n, func(e *LogEntry) bool { return e.Resource == resource })
}

// EntriesOfMaster returns the last n entries about the master at addr, newest last.
func (j *Journal) EntriesOfMaster(addr string, n int) []LogEntry {
	return j.lastWhere(n, func(e *LogEntry) bool { return e.master == addr })
}

// lastWhere returns the last n entries that match, newest last.
func (j *Journal) lastWhere(n int, match func(*LogEntry) bool) []LogEntry {
	var out []LogEntry
	for i := len(j.Entries) - 1; i >= 0 && len(out) < n; i-- {
		if match(&j.Entries[i]) {
			out = append(out, j.Entries[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Replace puts entries in place of the journal's: a replay's event log as it stood at the moment shown.
func (j *Journal) Replace(entries []LogEntry) {
	j.Entries = entries
	j.Rev++
}

// SortEntries orders entries by time, keeping the order of those at the same time.
func SortEntries(entries []LogEntry) {
	slices.SortStableFunc(entries, func(a, b LogEntry) int { return a.At.Compare(b.At) })
}

// Log capacity: past maxLog entries, the oldest logTrim are dropped at once.
const (
	MaxLog  = 1000
	logTrim = 100
)
