package main

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// newKeyMap returns every key binding of the dashboard: the one place where keys are chosen. The help texts
// are what the footer and the full help (?) show. After a change, go generate ./ui/uitest copies it for the
// UI's tests (TestKeyMapIsKeymapGos says when the copy is stale).
func newKeyMap() kit.KeyMap {
	return kit.KeyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f", " "), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		NextPanel: key.NewBinding(key.WithKeys("tab", "right", "l"), key.WithHelp("tab", "next panel")),
		PrevPanel: key.NewBinding(key.WithKeys("shift+tab", "left", "h"), key.WithHelp("shift+tab", "prev panel")),

		Acquire:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "acquire")),
		Extend:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "extend")),
		Release:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "release")),
		AutoExtend: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "auto-extend")),
		Delete:     key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete (not ours)")),

		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Reverse:    key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),
		Heat:       key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "sort by heat (handovers/min)")),
		Sparkline:  key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "locks: handovers sparkline column")),
		HideFree:   key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "locks: hide / show free ones")),
		Report:     key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save an incident report (.md)")),
		PrevHolder: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "lock's timeline: older holder")),
		NextHolder: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "lock's timeline: newer holder")),
		WhoHolds:   key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "lock's view: who holds it (samples a master)")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy name")),
		CopyToken:  key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy token")),
		LogLevel:   key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "event log: all, warnings, errors")),
		LogLock:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "event log: only this lock / all")),
		LogFull:    key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "event log: enlarge / back")),
		Pause:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause polling")),
		Faster:     key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "poll faster")),
		Slower:     key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "poll slower")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Interrupt:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit from anywhere")),

		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Close:   key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close help, view, menu")),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),

		// The presenter's keys, in demo mode only. Faults act on the selected master (the masters panel's
		// cursor, or picked by number).
		Demo: kit.DemoKeyMap{
			Pick:           key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "pick master")),
			Crash:          key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "master: crash / start")),
			Restart:        key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "master: restart now, data lost")),
			DelayedRestart: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "master: restart after max TTL")),
			Freeze:         key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "master: freeze / thaw")),
			Latency:        key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "master: more latency / none")),
			Partition:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "master: partition / heal")),
			ClockJump:      key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "master: clock jumps ahead")),
			ClockFast:      key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "master: clock fast / normal")),
			GCPause:        key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "GC-pause a client")),
			Workload:       key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "workload pause / resume")),
			Faster:         key.NewBinding(key.WithKeys(">", "."), key.WithHelp(">", "workload faster")),
			Slower:         key.NewBinding(key.WithKeys("<", ","), key.WithHelp("<", "workload slower")),
			Scenarios:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "scenarios")),
			Story:          key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "violation story in the log")),
			Dismiss:        key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "dismiss violation")),
			Step:           key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "scenario: next step")),
			Reset:          key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "every master back to normal")),
		},

		// A replay's time cursor (redlock-tui replay FILE); p plays and pauses it, + and - change its speed.
		Replay: kit.ReplayKeyMap{
			StepBack:    key.NewBinding(key.WithKeys(","), key.WithHelp(",", "replay: one poll back")),
			StepForward: key.NewBinding(key.WithKeys("."), key.WithHelp(".", "replay: one poll on")),
			PrevEvent:   key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "replay: previous event")),
			NextEvent:   key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "replay: next event")),
			PrevAlarm:   key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "replay: previous error or warning")),
			NextAlarm:   key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "replay: next error, warning or violation")),
			Start:       key.NewBinding(key.WithKeys("^"), key.WithHelp("^", "replay: the first poll")),
			End:         key.NewBinding(key.WithKeys("$"), key.WithHelp("$", "replay: the last poll")),
			Seek:        key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "replay: go to a moment (03:12:07, +5m)")),
		},
	}
}
