package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// levelGlyph tells the severities of log entries and status messages apart without colour.
var levelGlyph = [...]string{monitor.SeverityInfo: "•", monitor.SeverityWarning: "▲", monitor.SeverityError: "✖"}

// logEntry is one line of the event log; text is sanitized.
type logEntry struct {
	at       time.Time
	level    monitor.Severity
	resource string // raw resource the entry is about, "" if none: the detail panel shows a lock's own entries
	master   string // raw address of the master the entry is about, "" if none: its drill-down shows them
	text     string
}

// entryOf is the event log's entry for a record, every source's events being records (events.Record): its
// time, its severity's level, the lock and master it is about, and its sentence, which for the monitor's
// events is led by the kind and the lock or master ("lock-lost jobs:a: ...").
func entryOf(r events.Record) logEntry {
	text := kit.Sanitize(r.Text, kit.TextCap)
	if r.Source == events.SourceMonitor {
		where := r.Resource
		if where == "" {
			where = r.Master
		}
		text = fmt.Sprintf("%s %s: %s", kit.Sanitize(r.Kind, kit.NameCap), kit.Sanitize(where, kit.NameCap), text)
	}
	return logEntry{at: r.Time, level: r.Severity, resource: r.Resource, master: r.Master, text: text}
}

// Log capacity: past maxLog entries, the oldest logTrim are dropped at once.
const (
	maxLog  = 1000
	logTrim = 100
)

// journal is the record of events the dashboard keeps: our actions with their per-master outcomes, the
// monitor's events and warnings, the demo's. Every component adds to it (shared.logf); the event log panel
// shows it, and the detail panel and the drill-down views read a lock's or a master's entries from it. It keeps
// the newest maxLog entries.
type journal struct {
	entries []logEntry
	rev     uint64 // counts the changes, so that the event log panel knows when to filter again
}

// add appends entries, dropping the oldest beyond the capacity.
func (j *journal) add(entries ...logEntry) {
	if len(entries) == 0 {
		return
	}
	j.entries = append(j.entries, entries...)
	if len(j.entries) > maxLog {
		drop := len(j.entries) - maxLog + logTrim
		j.entries = append(j.entries[:0], j.entries[drop:]...)
	}
	j.rev++
}

// eventLog is the scrollable event log panel: it shows the journal, entries wrapped rather than cut. It can be
// narrowed to entries containing a text (Filter while it has the focus), to one lock's entries (LogLock) and
// to a minimum level (LogLevel). It follows the newest entry unless scrolled up.
type eventLog struct {
	keyTable
	rev      uint64 // the journal's change count when shown was last computed
	shown    []int  // indices into the journal's entries that pass the search and the level, oldest first
	top      int    // position in shown of the first entry on screen when not following
	follow   bool   // show the newest entries
	search   typedText
	query    string // the applied search, lower case
	minLevel monitor.Severity
	resource string // only the entries of this lock (raw name), "" for all
	full     bool   // it fills the body in place of the panels (esc gives the body back)
	row      *lockRow
	w, h     int
}

// newEventLog returns an empty log that follows new entries.
func newEventLog(sh *shared) *eventLog {
	l := &eventLog{keyTable: keyTable{sh: sh}, follow: true, minLevel: monitor.SeverityInfo}
	k := sh.keys
	l.actions = append(navActions(k, l.scrollKey),
		action{binding: &k.Filter, focused: true, do: func(tea.KeyMsg) tea.Cmd {
			l.sh.tell(openModalMsg{l.search.open(l.sh, focusLog)})
			return nil
		}},
		action{binding: &k.Cancel, focused: true, when: func() bool { return l.query != "" },
			do: func(tea.KeyMsg) tea.Cmd {
				l.search.text = ""
				l.setQuery("")
				return nil
			}},
		action{binding: &k.Close, focused: true, when: func() bool { return l.full }, do: func(tea.KeyMsg) tea.Cmd {
			l.sh.tell(logFullMsg{on: false})
			return nil
		}},
		action{binding: &k.LogLevel, do: func(tea.KeyMsg) tea.Cmd {
			l.cycleLevel()
			if n := l.narrowed(); n != "" {
				l.sh.tellStatus(monitor.SeverityInfo, "event log: "+n)
			} else {
				l.sh.tellStatus(monitor.SeverityInfo, "event log: every entry")
			}
			return nil
		}},
		action{binding: &k.LogLock, can: func() string {
			if l.resource == "" && l.row == nil {
				return "select a lock first: the event log narrows to the selected lock"
			}
			return ""
		}, do: l.toggleLock},
	)
	return l
}

// Init does nothing: the panel shows the journal.
func (l *eventLog) Init() tea.Cmd { return nil }

// Update applies its keys, scrolls with the wheel, applies its search as it is typed, shows an entry it is
// asked to, and takes in the focus, the selected lock and whether it fills the body.
func (l *eventLog) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	l.catchUp()
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return l, l.run(msg)
	case tea.MouseMsg:
		if n := wheelRows(msg); n != 0 {
			l.scrollBy(n)
		}
	case stateMsg:
		l.focused, l.full, l.row = msg.mode.focus == focusLog, msg.mode.logFull, msg.row
	case scrollToMsg:
		l.scrollTo(msg.entry)
	case logNewestMsg:
		l.scrollBy(len(l.shown))
	case fieldMsg:
		l.search.take(msg, l.setQuery)
	case panelKeyMsg:
		return l, l.run(msg.key)
	}
	return l, nil
}

// toggleLock narrows the log to the selected lock's entries, or widens it to every lock's again.
func (l *eventLog) toggleLock(tea.KeyMsg) tea.Cmd {
	if l.resource != "" {
		l.setResource("")
		l.sh.tellStatus(monitor.SeverityInfo, "event log: every lock's entries")
		return nil
	}
	l.setResource(l.row.lv.Resource)
	l.sh.tellStatus(monitor.SeverityInfo, "event log: "+l.narrowed()+" ("+l.sh.keys.LogLock.Help().Key+" shows all again)")
	return nil
}

// scrollKey scrolls the log with a navigation key, an entry at a time.
func (l *eventLog) scrollKey(msg tea.KeyMsg) tea.Cmd {
	k := l.sh.keys
	switch {
	case key.Matches(msg, k.Up):
		l.scrollBy(-1)
	case key.Matches(msg, k.Down):
		l.scrollBy(1)
	case key.Matches(msg, k.PageUp):
		l.scrollBy(-max(l.rows(), 1))
	case key.Matches(msg, k.PageDown):
		l.scrollBy(max(l.rows(), 1))
	case key.Matches(msg, k.Top):
		l.scrollBy(-len(l.shown))
	case key.Matches(msg, k.Bottom):
		l.scrollBy(len(l.shown))
	}
	return nil
}

// entries are the journal's entries.
func (l *eventLog) entries() []logEntry { return l.sh.log.entries }

// catchUp filters the entries again if the journal changed since they were last filtered.
func (l *eventLog) catchUp() {
	if l.rev != l.sh.log.rev {
		l.refilter()
	}
}

// matches reports whether entry e passes the search and the level.
func (l *eventLog) matches(e *logEntry) bool {
	return e.level.AtLeast(l.minLevel) && (l.resource == "" || e.resource == l.resource) &&
		(l.query == "" || strings.Contains(strings.ToLower(e.text), l.query))
}

// refilter recomputes the entries shown, keeping the first one on screen where it can.
func (l *eventLog) refilter() {
	l.rev = l.sh.log.rev
	first := -1
	if !l.follow && l.top < len(l.shown) {
		first = l.shown[l.top]
	}
	l.shown = l.shown[:0]
	entries := l.entries()
	for i := range entries {
		if l.matches(&entries[i]) {
			l.shown = append(l.shown, i)
		}
	}
	if l.follow || first < 0 {
		l.top = l.last()
		return
	}
	l.top = 0
	for pos, i := range l.shown {
		if i >= first {
			l.top = pos
			break
		}
	}
}

// setQuery applies a search text.
func (l *eventLog) setQuery(q string) {
	l.query = strings.ToLower(q)
	l.refilter()
}

// cycleLevel shows all entries, then warnings and errors, then errors only.
func (l *eventLog) cycleLevel() {
	l.minLevel = monitor.Severities[(l.minLevel.Rank()+1)%len(monitor.Severities)]
	l.refilter()
}

// setResource narrows the log to one lock's entries ("" for every lock's).
func (l *eventLog) setResource(resource string) {
	l.resource = resource
	l.refilter()
}

// narrowed says how the log is narrowed, "" when it is not: "lock orders · /text · warnings and errors".
func (l *eventLog) narrowed() string {
	var parts []string
	if l.resource != "" {
		parts = append(parts, "lock "+kit.Sanitize(l.resource, kit.NameCap))
	}
	if l.search.editing || l.query != "" {
		parts = append(parts, "/"+l.search.text)
	}
	switch l.minLevel {
	case monitor.SeverityWarning:
		parts = append(parts, "warnings and errors")
	case monitor.SeverityError:
		parts = append(parts, "errors only")
	}
	return strings.Join(parts, " · ")
}

// SetSize sets the panel's outer size, and takes in the entries logged since the log last looked: the root
// lays the screen out after every message, so that View finds them filtered.
func (l *eventLog) SetSize(w, h int) {
	l.w, l.h = w, h
	l.catchUp()
}

// rows is how many lines fit inside the border.
func (l *eventLog) rows() int { return max(l.h-2, 0) }

// last is the top position that shows the newest entries: as many of them as fit, wrapped.
func (l *eventLog) last() int {
	rows, w := l.rows(), max(l.w-2, 1)
	pos := len(l.shown)
	for pos > 0 {
		n := len(logLines(l.sh.st, l.entries()[l.shown[pos-1]], w))
		if n > rows {
			if pos == len(l.shown) { // the newest alone is taller than the panel: show its start
				pos--
			}
			break
		}
		rows -= n
		pos--
	}
	return pos
}

// scrollBy moves the view n entries towards the newest (n > 0) or the oldest.
func (l *eventLog) scrollBy(n int) {
	last := l.last()
	if l.follow {
		l.top = last
	}
	l.top = min(max(l.top+n, 0), last)
	l.follow = l.top == last
}

// scrollTo shows entry i at the top, until scrolled back to the newest; a search or level that hides it is
// dropped.
func (l *eventLog) scrollTo(i int) {
	if i < 0 || i >= len(l.entries()) {
		return
	}
	if !l.matches(&l.entries()[i]) {
		l.search.text, l.query, l.minLevel = "", "", monitor.SeverityInfo
		l.refilter()
	}
	for pos, j := range l.shown {
		if j == i {
			last := l.last()
			l.top = min(pos, last)
			l.follow = l.top == last
			return
		}
	}
}

// lastIndex returns the index of the newest entry whose text starts with prefix, or -1.
func (j *journal) lastIndex(prefix string) int {
	for i := len(j.entries) - 1; i >= 0; i-- {
		if strings.HasPrefix(j.entries[i].text, prefix) {
			return i
		}
	}
	return -1
}

// View draws the log panel: the entries from top, each wrapped in full, as many as fit.
func (l *eventLog) View() string {
	focused := l.focused
	rows := l.rows()
	top := l.top
	if l.follow {
		top = l.last()
	}
	st := l.sh.st
	body := make([]string, 0, rows)
	pos := top
	entries := l.entries()
	for ; pos < len(l.shown) && len(body) < rows; pos++ {
		body = append(body, logLines(st, entries[l.shown[pos]], l.w-2)...)
	}
	body = body[:min(len(body), rows)]
	title := "Events"
	if n := l.narrowed(); n != "" {
		title += fmt.Sprintf(" %s of %s · %s", kit.Thousands(len(l.shown)), kit.Thousands(len(entries)), n)
	}
	if top > 0 {
		title += " · " + kit.Thousands(top) + " older ↑"
	}
	if newer := len(l.shown) - pos; newer > 0 {
		title += " · " + kit.Thousands(newer) + " newer ↓"
	}
	if len(l.shown) == 0 && len(entries) > 0 {
		body = []string{st.Text.Muted.Render("no entry matches")}
	}
	if l.full { // the enlarged log is a view: it says how to leave it, as a drill-down does
		title += " · " + l.sh.keys.Close.Help().Key + " back"
	}
	return st.Box(title, body, l.w, l.h, focused)
}

// logLine renders one entry w cells wide: time, level glyph, text.
func logLine(s *kit.Styles, e logEntry, w int) string {
	const headWidth = 11 // "15:04:05 • "
	head := e.at.Format("15:04:05") + " " + levelGlyph[e.level] + " "
	if w <= headWidth {
		return kit.Fit(head, w)
	}
	return s.Text.Muted.Render(head) + s.Level[e.level].Render(kit.Fit(e.text, w-headWidth))
}

// logLines renders one entry in full, wrapped to w cells: time and level glyph, then the text, its later lines
// indented under the text.
func logLines(s *kit.Styles, e logEntry, w int) []string {
	const headWidth = 11
	head := s.Text.Muted.Render(e.at.Format("15:04:05") + " " + levelGlyph[e.level] + " ")
	var out []string
	for i, l := range kit.Wrap(e.text, max(w-headWidth, 8)) {
		if i > 0 {
			head = strings.Repeat(" ", headWidth)
		}
		out = append(out, head+s.Level[e.level].Render(l))
	}
	return out
}

// entriesFor returns the last n entries about resource, newest last.
func (j *journal) entriesFor(resource string, n int) []logEntry {
	return j.lastWhere(n, func(e *logEntry) bool { return e.resource == resource })
}

// entriesOfMaster returns the last n entries about the master at addr, newest last.
func (j *journal) entriesOfMaster(addr string, n int) []logEntry {
	return j.lastWhere(n, func(e *logEntry) bool { return e.master == addr })
}

// lastWhere returns the last n entries that match, newest last.
func (j *journal) lastWhere(n int, match func(*logEntry) bool) []logEntry {
	var out []logEntry
	for i := len(j.entries) - 1; i >= 0 && len(out) < n; i-- {
		if match(&j.entries[i]) {
			out = append(out, j.entries[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
