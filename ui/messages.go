package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
)

// The messages the components exchange inside the dashboard, besides the results of commands (commands.go).
// The root sends every message that is not a key or a mouse event to all components; the ones a component
// tells (shared.tell) arrive before the root's Update returns.

// stateMsg tells the components the root's view of the dashboard: its mode (which panel has the focus,
// whether the log fills the body, ...), and what the panels have selected. The root sends it before each key,
// so that the key acts on what is on the screen, and after each message, so that the help and the panels show
// it.
type stateMsg struct {
	mode   mode
	row    *lockRow // under the locks panel's cursor; nil: none
	own    *ownLock // under our locks panel's cursor; nil: none
	master int      // under the masters panel's cursor: the master the presenter's faults hit
}

// dataMsg tells that a new snapshot is the current one (shared.data).
type dataMsg struct{}

// statusMsg asks the root to show a message on the status line: the outcome of an action, or why it was
// refused (shared.tellStatus).
type statusMsg status

// logMsg asks the root to add entries to the journal, and to hand record, one of the dashboard's own actions
// (shared.act), to the event sink.
type logMsg struct {
	entries []logEntry
	record  *events.Record // nil: none
}

// quittingMsg tells that the dashboard is quitting: what runs is cancelled, nothing new starts.
type quittingMsg struct{}

// focusMsg asks the root to give the focus to a panel.
type focusMsg struct{ panel panelID }

// openMsg asks the root to show the focused panel's selection in full, as Open does (a click on the row
// already selected).
type openMsg struct{}

// logFullMsg asks the root to let the event log fill the body, or to give the body back to the panels.
type logFullMsg struct{ on bool }

// storyMsg asks the root to show the story of violation id in the event log.
type storyMsg struct{ id int }

// scrollToMsg asks the event log to show entry (an index into the journal) at its top.
type scrollToMsg struct{ entry int }

// oursMsg tells the our-locks panel what our locks are now.
type oursMsg struct{ locks []*ownLock }

// pickMasterMsg asks the masters panel to move its cursor to master i: the master the faults hit.
type pickMasterMsg struct{ i int }

// faultsMsg tells the masters panel the demo's masters as the presenter left them, read at at.
type faultsMsg struct {
	masters []demo.MasterState
	at      time.Time
}

// openModalMsg asks the root to open a modal (a form, a confirmation, a menu, a text field) in place of the
// one open, if any.
type openModalMsg struct{ m modal }

// openHelpMsg asks the root to open the full help.
type openHelpMsg struct{}

// fieldMsg tells a panel the text of its filter or search field as typed; editing says the field still has
// the keyboard.
type fieldMsg struct {
	to      panelID
	text    string
	editing bool
}

// panelKeyMsg hands a panel a key its open text field does not take: the navigation keys move its cursor.
type panelKeyMsg struct {
	to  panelID
	key tea.KeyMsg
}

// acquireMsg asks the lock commands to acquire resource for ttl: the acquire form, submitted.
type acquireMsg struct {
	resource string // raw, as typed
	ttl      time.Duration
}

// acquireStartedMsg tells the acquire form that its request req was issued at started.
type acquireStartedMsg struct {
	req     uint64
	started time.Time
}

// cancelAcquireMsg asks the lock commands to cancel acquire request req: its form was closed.
type cancelAcquireMsg struct{ req uint64 }

// deleteMsg asks the lock commands to force-delete the tokens of a lock that is not ours: the confirmation,
// confirmed.
type deleteMsg struct {
	req      uint64
	resource string              // raw
	name     string              // sanitized
	tokens   []string            // raw
	hash     map[string]string   // tokens that are hash lock holders, with the lock's mode
	set      map[string][]string // tokens that are holders of a sorted-set lock, with their members
	shown    []string            // the tokens as the confirmation shows them
	others   []string            // the other keys of a lock over several keys, raw, deleted with it where they hold lead
	lead     string              // the token those keys share with resource
}

// refusedMsg tells the dialog of request req that it was not issued (the status line says why).
type refusedMsg struct{ req uint64 }

// runScenarioMsg asks the demo to run the scenario name in mode: the menu's choice.
type runScenarioMsg struct {
	name string
	mode demo.RunMode
}

// logNewestMsg asks the event log to show its newest entries: a scenario starts.
type logNewestMsg struct{}

// scenariosMsg tells the scenario menu the scenario running ("" none) and how the last run of each ended.
type scenariosMsg struct {
	running  string
	outcomes map[string]string
}
