package ui

import (
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
)

// The messages the components exchange inside the dashboard, besides the results of commands (commands.go).
// The root sends every message that is not a key or a mouse event to all components; the ones a component
// tells (shared.tell) arrive before the root's Update returns.

// stateMsg tells the components the root's view of the dashboard: which panel has the focus, whether the log
// fills the body, and what the panels have selected. The root sends it before each key, so that the key acts
// on what is on the screen, and after each message, so that the help and the panels show it.
type stateMsg struct {
	focus   panelID
	logFull bool
	row     *lockRow // under the locks panel's cursor; nil: none
	own     *ownLock // under our locks panel's cursor; nil: none
	master  int      // under the masters panel's cursor: the master the presenter's faults hit
}

// dataMsg tells that a new snapshot is the current one (shared.data).
type dataMsg struct{}

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
