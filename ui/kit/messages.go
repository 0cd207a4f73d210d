package kit

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
)

// The messages the components exchange inside the dashboard, besides the results of commands (commands.go).
// The root sends every message that is not a key or a mouse event to all components; the ones a component
// tells (Shared.Tell) arrive before the root's Update returns.

// StateMsg tells the components the root's view of the dashboard: its mode (which panel has the focus,
// whether the log fills the body, ...), and what the panels have selected. The root sends it before each key,
// so that the key acts on what is on the screen, and after each message, so that the help and the panels show
// it.
type StateMsg struct {
	Mode   Mode
	Row    *LockRow // under the locks panel's cursor; nil: none
	Own    *OwnLock // under our locks panel's cursor; nil: none
	Master int      // under the masters panel's cursor: the master the presenter's faults hit
}

// DataMsg tells that a new snapshot is the current one (Shared.Data).
type DataMsg struct{}

// StatusMsg asks the root to show a message on the status line: the outcome of an action, or why it was
// refused (Shared.TellStatus).
type StatusMsg Status

// LogMsg asks the root to add entries to the journal, and to hand record, one of the dashboard's own actions
// (Shared.Act), to the event sink.
type LogMsg struct {
	Entries []LogEntry
	Record  *events.Record // nil: none
}

// QuittingMsg tells that the dashboard is quitting: what runs is cancelled, nothing new starts.
type QuittingMsg struct{}

// FocusMsg asks the root to give the focus to a panel.
type FocusMsg struct{ Panel PanelID }

// OpenMsg asks the root to show the focused panel's selection in full, as Open does (a click on the row
// already selected).
type OpenMsg struct{}

// LogFullMsg asks the root to let the event log fill the body, or to give the body back to the panels.
type LogFullMsg struct{ On bool }

// StoryMsg asks the root to show the story of violation id in the event log.
type StoryMsg struct{ ID int }

// ScrollToMsg asks the event log to show entry (an index into the journal) at its top.
type ScrollToMsg struct{ Entry int }

// OursMsg tells the our-locks panel what our locks are now.
type OursMsg struct{ Locks []*OwnLock }

// PickMasterMsg asks the masters panel to move its cursor to master i: the master the faults hit.
type PickMasterMsg struct{ I int }

// FaultsMsg tells the masters panel the demo's masters as the presenter left them, read at at.
type FaultsMsg struct {
	Masters []demo.MasterState
	At      time.Time
}

// OpenModalMsg asks the root to open a modal (a form, a confirmation, a menu, a text field) in place of the
// one open, if any.
type OpenModalMsg struct{ M Modal }

// OpenHelpMsg asks the root to open the full help.
type OpenHelpMsg struct{}

// FieldMsg tells a panel the text of its filter or search field as typed; editing says the field still has
// the keyboard.
type FieldMsg struct {
	To      PanelID
	Text    string
	Editing bool
}

// PanelKeyMsg hands a panel a key its open text field does not take: the navigation keys move its cursor.
type PanelKeyMsg struct {
	To  PanelID
	Key tea.KeyMsg
}

// AcquireMsg asks the lock commands to acquire resource for ttl: the acquire form, submitted.
type AcquireMsg struct {
	Resource string // raw, as typed
	TTL      time.Duration
}

// AcquireStartedMsg tells the acquire form that its request req was issued at started.
type AcquireStartedMsg struct {
	Req     uint64
	Started time.Time
}

// CancelAcquireMsg asks the lock commands to cancel acquire request req: its form was closed.
type CancelAcquireMsg struct{ Req uint64 }

// DeleteMsg asks the lock commands to force-delete the tokens of a lock that is not ours: the confirmation,
// confirmed.
type DeleteMsg struct {
	Req      uint64
	Resource string              // raw
	Name     string              // sanitized
	Tokens   []string            // raw
	Hash     map[string]string   // tokens that are hash lock holders, with the lock's mode
	Set      map[string][]string // tokens that are holders of a sorted-set lock, with their members
	Shown    []string            // the tokens as the confirmation shows them
	Others   []string            // the other keys of a lock over several keys, raw, deleted with it where they hold lead
	Lead     string              // the token those keys share with resource
}

// RefusedMsg tells the dialog of request req that it was not issued (the status line says why).
type RefusedMsg struct{ Req uint64 }

// RunScenarioMsg asks the demo to run the scenario name in mode: the menu's choice.
type RunScenarioMsg struct {
	Name string
	Mode demo.RunMode
}

// LogNewestMsg asks the event log to show its newest entries: a scenario starts.
type LogNewestMsg struct{}

// ScenariosMsg tells the scenario menu the scenario running ("" none) and how the last run of each ended.
type ScenariosMsg struct {
	Running  string
	Outcomes map[string]string
}
