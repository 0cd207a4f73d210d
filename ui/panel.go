package ui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// shared is the program context every component reads (gh-dash's): styles, the key bindings as given, the
// clock, the current snapshot as sanitized for the screen, the journal, and the animation frame. Only the root
// writes it: it sets the snapshot and the frame, and adds to the journal what the components log (logMsg); the
// status line is the root's (statusMsg). Components write nothing here but the messages they tell (outbox).
type shared struct {
	st        *kit.Styles
	keys      *KeyMap // as given: which keys act now is each component's to say (keyTable)
	now       func() time.Time
	data      *dashboard // nil until the first snapshot
	readOnly  bool
	log       *journal // the root adds what every component logs (logMsg)
	frame     int      // advanced by the tick: spinners
	outbox    []tea.Msg
	sink      events.Sink                  // Options.Events, which the root hands the actions logged; nil: none
	keyOf     func(resource string) string // Options.KeyFormat; nil: the resource is the key
	clipboard func(text string)            // Options.Clipboard, or the terminal's
	who       *whoSampling                 // naming a lock's holder (whoholds.go)
}

// tellStatus asks the root to show text on the status line, stamped now: a statusMsg, told (see tell), so that
// the last one told is the one shown.
func (sh *shared) tellStatus(l monitor.Severity, text string) {
	sh.tell(statusMsg{at: sh.now(), level: l, text: text})
}

// tellLog asks the root to add entries to the journal: a logMsg, told (see tell).
func (sh *shared) tellLog(entries ...logEntry) {
	if len(entries) > 0 {
		sh.tell(logMsg{entries: entries})
	}
}

// logf logs an entry about a raw resource ("" for none); args must already be sanitized.
func (sh *shared) logf(l monitor.Severity, resource, format string, args ...any) {
	sh.tellLog(logEntry{at: sh.now(), level: l, resource: resource, text: fmt.Sprintf(format, args...)})
}

// act logs one of the dashboard's own actions as the record of its kind (events.Dashboard, which rates it),
// which the root also hands to the sink: the event log and the event stream say it in the same words.
// resource and token are raw; args must already be sanitized.
func (sh *shared) act(kind, resource, token, format string, args ...any) {
	r := events.Dashboard(sh.now(), kind, resource, token, fmt.Sprintf(format, args...))
	sh.tell(logMsg{entries: []logEntry{entryOf(r)}, record: &r})
}

// tell sends msg to the other components: the root delivers it, in the order told, before its Update returns,
// so that what a key does is on the screen it is pressed on, and a test driving Update sees it there too.
// Components talk this way instead of holding one another.
func (sh *shared) tell(msg tea.Msg) { sh.outbox = append(sh.outbox, msg) }

// joinH puts blocks of lines side by side; each block's lines must already have the block's width.
func joinH(blocks ...string) string {
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

// overlay draws box centred over body, a screen of lines w cells wide.
func overlay(body, box string, w int) string {
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
		lines[y+i] = kit.FitStyled(left, x) + reset + kit.FitStyled(bl, bw) + reset + right
	}
	return strings.Join(lines, "\n")
}
