package kit

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// Shared is the program context every component reads (gh-dash's): styles, the key bindings as given, the
// clock, the current snapshot as sanitized for the screen, the journal, and the animation frame. Only the root
// writes it: it sets the snapshot and the frame, and adds to the journal what the components log (LogMsg); the
// status line is the root's (StatusMsg). Components write nothing here but the messages they tell (outbox).
type Shared struct {
	St        *Styles
	Keys      *KeyMap // as given: which keys act now is each component's to say (keyTable)
	Now       func() time.Time
	Data      *Dashboard // nil until the first snapshot
	ReadOnly  bool
	Log       *Journal // the root adds what every component logs (logMsg)
	Frame     int      // advanced by the tick: spinners
	Outbox    []tea.Msg
	Sink      events.Sink                  // Options.Events, which the root hands the actions logged; nil: none
	KeyOf     func(resource string) string // Options.KeyFormat; nil: the resource is the key
	Clipboard func(text string)            // Options.Clipboard, or the terminal's
	Who       *WhoSampling                 // naming a lock's holder (drillview's whoholds.go)
}

// TellStatus asks the root to show text on the status line, stamped now: a statusMsg, told (see tell), so that
// the last one told is the one shown.
func (sh *Shared) TellStatus(l monitor.Severity, text string) {
	sh.Tell(StatusMsg{At: sh.Now(), Level: l, Text: text})
}

// TellLog asks the root to add entries to the journal: a logMsg, told (see tell).
func (sh *Shared) TellLog(entries ...LogEntry) {
	if len(entries) > 0 {
		sh.Tell(LogMsg{Entries: entries})
	}
}

// Logf logs an entry about a raw resource ("" for none); args must already be sanitized.
func (sh *Shared) Logf(l monitor.Severity, resource, format string, args ...any) {
	sh.TellLog(LogEntry{At: sh.Now(), Level: l, Resource: resource, Text: fmt.Sprintf(format, args...)})
}

// Act logs one of the dashboard's own actions as the record of its kind (events.Dashboard, which rates it),
// which the root also hands to the sink: the event log and the event stream say it in the same words.
// resource and token are raw; args must already be sanitized.
func (sh *Shared) Act(kind, resource, token, format string, args ...any) {
	r := events.Dashboard(sh.Now(), kind, resource, token, fmt.Sprintf(format, args...))
	sh.Tell(LogMsg{Entries: []LogEntry{EntryOf(r)}, Record: &r})
}

// Tell sends msg to the other components: the root delivers it, in the order told, before its Update returns,
// so that what a key does is on the screen it is pressed on, and a test driving Update sees it there too.
// Components talk this way instead of holding one another.
func (sh *Shared) Tell(msg tea.Msg) { sh.Outbox = append(sh.Outbox, msg) }

// JoinH puts blocks of lines side by side; each block's lines must already have the block's width.
func JoinH(blocks ...string) string {
	split := make([][]string, len(blocks))
	n := 0
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
		n = max(n, len(split[i]))
	}
	var out strings.Builder
	for row := range n {
		if row > 0 {
			out.WriteByte('\n')
		}
		for _, lines := range split {
			if row < len(lines) {
				out.WriteString(lines[row])
			}
		}
	}
	return out.String()
}

// Overlay draws box centred over body, a screen of lines w cells wide.
func Overlay(body, box string, w int) string {
	lines := strings.Split(body, "\n")
	boxLines := strings.Split(box, "\n")
	bw := 0
	for _, l := range boxLines {
		bw = max(bw, ansi.StringWidth(l))
	}
	bw = min(bw, w)
	x := max((w-bw)/2, 0)
	y := max((len(lines)-len(boxLines))/2, 0)
	for i, bl := range boxLines {
		if y+i >= len(lines) {
			break
		}
		l := lines[y+i]
		left := ansi.Truncate(l, x, "")
		right := ansi.TruncateLeft(l, x+bw, "")
		reset := "" // ends styles cut open by the truncation; never written to a screen without styles
		if strings.Contains(l, "\x1b") {
			reset = "\x1b[0m"
		}
		lines[y+i] = FitStyled(left, x) + reset + FitStyled(bl, bw) + reset + right
	}
	return strings.Join(lines, "\n")
}

// CopiedMsg reports a text put on the clipboard: what it was, and whether it was escaped.
type CopiedMsg struct {
	What    string
	Escaped bool
}

// CopyCmd puts raw text from outside (a key name, a token) on the clipboard (Options.Clipboard) as the screen
// shows it: escaped by untrusted.Escape, so that no control byte is pasted (a newline runs a command in a
// shell, an escape sequence acts on the terminal). Text with nothing to escape is copied as it is.
func (sh *Shared) CopyCmd(raw, what string) tea.Cmd {
	clipboard, text := sh.Clipboard, untrusted.Escape(raw)
	return func() tea.Msg {
		clipboard(text)
		return CopiedMsg{What: what, Escaped: text != raw}
	}
}
