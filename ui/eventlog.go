package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// level ranks a log entry or a status message.
type level int

// The levels.
const (
	levelInfo level = iota
	levelWarn
	levelError
)

// levelGlyph tells the levels apart without colour.
var levelGlyph = [...]string{"•", "▲", "✖"}

// logEntry is one line of the event log; text is sanitized.
type logEntry struct {
	at       time.Time
	level    level
	resource string // raw resource the entry is about, "" if none: the detail panel shows a lock's own entries
	master   string // raw address of the master the entry is about, "" if none: its drill-down shows them
	text     string
}

// Log capacity: past maxLog entries, the oldest logTrim are dropped at once.
const (
	maxLog  = 1000
	logTrim = 100
)

// eventLog is the scrollable event log: our actions with their per-master outcomes, the monitor's events and
// warnings. It follows the newest entry unless scrolled up.
type eventLog struct {
	sh      *shared
	entries []logEntry
	top     int  // first entry shown when not following
	follow  bool // show the newest entries
	w, h    int
}

// newEventLog returns an empty log that follows new entries.
func newEventLog(sh *shared) *eventLog { return &eventLog{sh: sh, follow: true} }

// add appends entries, dropping the oldest beyond the capacity.
func (l *eventLog) add(entries ...logEntry) {
	l.entries = append(l.entries, entries...)
	if len(l.entries) > maxLog {
		drop := len(l.entries) - maxLog + logTrim
		l.entries = append(l.entries[:0], l.entries[drop:]...)
		l.top = max(l.top-drop, 0)
	}
}

// SetSize sets the panel's outer size.
func (l *eventLog) SetSize(w, h int) { l.w, l.h = w, h }

// rows is how many entries fit inside the border.
func (l *eventLog) rows() int { return max(l.h-2, 0) }

// Update scrolls the log with the navigation keys.
func (l *eventLog) Update(msg tea.KeyMsg) {
	k := l.sh.keys
	n, rows := len(l.entries), l.rows()
	last := max(n-rows, 0)
	if l.follow {
		l.top = last
	}
	switch {
	case key.Matches(msg, k.Up):
		l.top--
	case key.Matches(msg, k.Down):
		l.top++
	case key.Matches(msg, k.PageUp):
		l.top -= rows
	case key.Matches(msg, k.PageDown):
		l.top += rows
	case key.Matches(msg, k.Top):
		l.top = 0
	case key.Matches(msg, k.Bottom):
		l.top = last
	}
	l.top = min(max(l.top, 0), last)
	l.follow = l.top == last
}

// scrollBy moves the view n entries towards the newest (n > 0) or the oldest.
func (l *eventLog) scrollBy(n int) {
	last := max(len(l.entries)-l.rows(), 0)
	if l.follow {
		l.top = last
	}
	l.top = min(max(l.top+n, 0), last)
	l.follow = l.top == last
}

// scrollTo shows entry i at the top, until scrolled back to the newest.
func (l *eventLog) scrollTo(i int) {
	l.top = min(max(i, 0), max(len(l.entries)-l.rows(), 0))
	l.follow = l.top == max(len(l.entries)-l.rows(), 0)
}

// lastIndex returns the index of the newest entry whose text starts with prefix, or -1.
func (l *eventLog) lastIndex(prefix string) int {
	for i := len(l.entries) - 1; i >= 0; i-- {
		if strings.HasPrefix(l.entries[i].text, prefix) {
			return i
		}
	}
	return -1
}

// View draws the log panel.
func (l *eventLog) View(focused bool) string {
	rows := l.rows()
	top := l.top
	if l.follow {
		top = max(len(l.entries)-rows, 0)
	}
	st := l.sh.st
	body := make([]string, 0, rows)
	for i := top; i < len(l.entries) && len(body) < rows; i++ {
		body = append(body, st.logLine(l.entries[i], l.w-2))
	}
	title := "Events"
	if !l.follow {
		title += " (scrolled: " + thousands(len(l.entries)-top-len(body)) + " newer)"
	}
	return st.box(title, body, l.w, l.h, focused)
}

// logLine renders one entry w cells wide: time, level glyph, text.
func (s *styles) logLine(e logEntry, w int) string {
	const headWidth = 11 // "15:04:05 • "
	head := e.at.Format("15:04:05") + " " + levelGlyph[e.level] + " "
	if w <= headWidth {
		return fit(head, w)
	}
	return s.text.muted.Render(head) + s.level[e.level].Render(fit(e.text, w-headWidth))
}

// logLines renders one entry in full, wrapped to w cells: time and level glyph, then the text, its later lines
// indented under the text.
func (s *styles) logLines(e logEntry, w int) []string {
	const headWidth = 11
	head := s.text.muted.Render(e.at.Format("15:04:05") + " " + levelGlyph[e.level] + " ")
	var out []string
	for i, l := range strings.Split(ansi.Wrap(e.text, max(w-headWidth, 8), ""), "\n") {
		if i > 0 {
			head = strings.Repeat(" ", headWidth)
		}
		out = append(out, head+s.level[e.level].Render(l))
	}
	return out
}

// entriesFor returns the last n entries about resource, newest last.
func (l *eventLog) entriesFor(resource string, n int) []logEntry {
	return l.lastWhere(n, func(e *logEntry) bool { return e.resource == resource })
}

// entriesOfMaster returns the last n entries about the master at addr, newest last.
func (l *eventLog) entriesOfMaster(addr string, n int) []logEntry {
	return l.lastWhere(n, func(e *logEntry) bool { return e.master == addr })
}

// lastWhere returns the last n entries that match, newest last.
func (l *eventLog) lastWhere(n int, match func(*logEntry) bool) []logEntry {
	var out []logEntry
	for i := len(l.entries) - 1; i >= 0 && len(out) < n; i-- {
		if match(&l.entries[i]) {
			out = append(out, l.entries[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
