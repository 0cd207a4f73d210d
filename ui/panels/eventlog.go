package panels

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// EventLog is the scrollable event log panel: it shows the journal, entries wrapped rather than cut. It can be
// narrowed to entries containing a text (Filter while it has the focus), to one lock's entries (LogLock) and
// to a minimum level (LogLevel). It follows the newest entry unless scrolled up.
type EventLog struct {
	kit.KeyTable
	rev      uint64 // the journal's change count when shown was last computed
	shown    []int  // indices into the journal's entries that pass the search and the level, oldest first
	top      int    // position in shown of the first entry on screen when not following
	follow   bool   // show the newest entries
	search   typedText
	query    string // the applied search, lower case
	minLevel monitor.Severity
	resource string // only the entries of this lock (raw name), "" for all
	full     bool   // it fills the body in place of the panels (esc gives the body back)
	row      *kit.LockRow
	w, h     int
}

// NewEventLog returns an empty log that follows new entries.
func NewEventLog(sh *kit.Shared) *EventLog {
	l := &EventLog{KeyTable: kit.KeyTable{Shared: sh}, follow: true, minLevel: monitor.SeverityInfo}
	k := sh.Keys
	l.Actions = append(navActions(k, l.scrollKey),
		kit.Action{Binding: &k.Filter, Focused: true, Do: func(tea.KeyMsg) tea.Cmd {
			l.Shared.Tell(kit.OpenModalMsg{M: l.search.open(l.Shared, kit.FocusLog)})
			return nil
		}},
		kit.Action{Binding: &k.Cancel, Focused: true, When: func() bool { return l.query != "" },
			Do: func(tea.KeyMsg) tea.Cmd {
				l.search.Text = ""
				l.setQuery("")
				return nil
			}},
		kit.Action{Binding: &k.Close, Focused: true, When: func() bool { return l.full }, Do: func(tea.KeyMsg) tea.Cmd {
			l.Shared.Tell(kit.LogFullMsg{On: false})
			return nil
		}},
		kit.Action{Binding: &k.LogLevel, Do: func(tea.KeyMsg) tea.Cmd {
			l.cycleLevel()
			if n := l.narrowed(); n != "" {
				l.Shared.TellStatus(monitor.SeverityInfo, "event log: "+n)
			} else {
				l.Shared.TellStatus(monitor.SeverityInfo, "event log: every entry")
			}
			return nil
		}},
		kit.Action{Binding: &k.LogLock, Can: func() string {
			if l.resource == "" && l.row == nil {
				return "select a lock first: the event log narrows to the selected lock"
			}
			return ""
		}, Do: l.toggleLock},
	)
	return l
}

// Init does nothing: the panel shows the journal.
func (l *EventLog) Init() tea.Cmd { return nil }

// Update applies its keys, scrolls with the wheel, applies its search as it is typed, shows an entry it is
// asked to, and takes in the focus, the selected lock and whether it fills the body.
func (l *EventLog) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	l.catchUp()
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return l, l.Run(msg)
	case tea.MouseMsg:
		if n := kit.WheelRows(msg); n != 0 {
			l.scrollBy(n)
		}
	case kit.StateMsg:
		l.Focused, l.full, l.row = msg.Mode.Focus == kit.FocusLog, msg.Mode.LogFull, msg.Row
	case kit.ScrollToMsg:
		l.scrollTo(msg.Entry)
	case kit.LogNewestMsg:
		l.scrollBy(len(l.shown))
	case kit.FieldMsg:
		l.search.take(msg, l.setQuery)
	case kit.PanelKeyMsg:
		return l, l.Run(msg.Key)
	}
	return l, nil
}

// toggleLock narrows the log to the selected lock's entries, or widens it to every lock's again.
func (l *EventLog) toggleLock(tea.KeyMsg) tea.Cmd {
	if l.resource != "" {
		l.setResource("")
		l.Shared.TellStatus(monitor.SeverityInfo, "event log: every lock's entries")
		return nil
	}
	l.setResource(l.row.Lv.Resource)
	l.Shared.TellStatus(monitor.SeverityInfo, "event log: "+l.narrowed()+" ("+l.Shared.Keys.LogLock.Help().Key+" shows all again)")
	return nil
}

// scrollKey scrolls the log with a navigation key, an entry at a time.
func (l *EventLog) scrollKey(msg tea.KeyMsg) tea.Cmd {
	k := l.Shared.Keys
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
func (l *EventLog) entries() []kit.LogEntry { return l.Shared.Log.Entries }

// catchUp filters the entries again if the journal changed since they were last filtered.
func (l *EventLog) catchUp() {
	if l.rev != l.Shared.Log.Rev {
		l.refilter()
	}
}

// matches reports whether entry e passes the search and the level.
func (l *EventLog) matches(e *kit.LogEntry) bool {
	return e.Level.AtLeast(l.minLevel) && (l.resource == "" || e.Resource == l.resource) &&
		(l.query == "" || strings.Contains(strings.ToLower(e.Text), l.query))
}

// refilter recomputes the entries shown, keeping the first one on screen where it can.
func (l *EventLog) refilter() {
	l.rev = l.Shared.Log.Rev
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
func (l *EventLog) setQuery(q string) {
	l.query = strings.ToLower(q)
	l.refilter()
}

// cycleLevel shows all entries, then warnings and errors, then errors only.
func (l *EventLog) cycleLevel() {
	l.minLevel = monitor.Severities[(l.minLevel.Rank()+1)%len(monitor.Severities)]
	l.refilter()
}

// setResource narrows the log to one lock's entries ("" for every lock's).
func (l *EventLog) setResource(resource string) {
	l.resource = resource
	l.refilter()
}

// narrowed says how the log is narrowed, "" when it is not: "lock orders · /text · warnings and errors".
func (l *EventLog) narrowed() string {
	var parts []string
	if l.resource != "" {
		parts = append(parts, "lock "+kit.Sanitize(l.resource, kit.NameCap))
	}
	if l.search.editing || l.query != "" {
		parts = append(parts, "/"+l.search.Text)
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
func (l *EventLog) SetSize(w, h int) {
	l.w, l.h = w, h
	l.catchUp()
}

// rows is how many lines fit inside the border.
func (l *EventLog) rows() int { return max(l.h-2, 0) }

// last is the top position that shows the newest entries: as many of them as fit, wrapped.
func (l *EventLog) last() int {
	rows, w := l.rows(), max(l.w-2, 1)
	pos := len(l.shown)
	for pos > 0 {
		n := len(kit.LogLines(l.Shared.St, l.entries()[l.shown[pos-1]], w))
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
func (l *EventLog) scrollBy(n int) {
	last := l.last()
	if l.follow {
		l.top = last
	}
	l.top = min(max(l.top+n, 0), last)
	l.follow = l.top == last
}

// scrollTo shows entry i at the top, until scrolled back to the newest; a search or level that hides it is
// dropped.
func (l *EventLog) scrollTo(i int) {
	if i < 0 || i >= len(l.entries()) {
		return
	}
	if !l.matches(&l.entries()[i]) {
		l.search.Text, l.query, l.minLevel = "", "", monitor.SeverityInfo
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

// View draws the log panel: the entries from top, each wrapped in full, as many as fit.
func (l *EventLog) View() string {
	focused := l.Focused
	rows := l.rows()
	top := l.top
	if l.follow {
		top = l.last()
	}
	st := l.Shared.St
	body := make([]string, 0, rows)
	pos := top
	entries := l.entries()
	for ; pos < len(l.shown) && len(body) < rows; pos++ {
		body = append(body, kit.LogLines(st, entries[l.shown[pos]], l.w-2)...)
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
		title += " · " + l.Shared.Keys.Close.Help().Key + " back"
	}
	return st.Box(title, body, l.w, l.h, focused)
}
