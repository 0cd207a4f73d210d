package kit

// source is where the dashboard's snapshots come from.
type source int

// The sources.
const (
	SourceLive   source = iota // masters the monitor polls
	SourceDemo                 // the demo's embedded masters, with the presenter's keys
	SourceReplay               // a recording, looked at through a time cursor
)

// Mode is the dashboard's mode as a whole: where the snapshots come from, whether writing is allowed, whether
// they stream or stand still, whether it is quitting, what takes the keys (a modal, and whether it takes text),
// which panel has the focus and whether the event log fills the body. It is one value, derived in one place
// (Model.mode) from the root's state: the root asks it wherever what it does depends on the mode, and the
// components get it with the selection (StateMsg).
type Mode struct {
	Source   source
	ReadOnly bool // no write command can act: Options.ReadOnly, or a replay
	Paused   bool // live or demo: polling paused; a replay: not playing
	Quitting bool // releasing our locks before quitting: only Interrupt acts
	Modal    bool // a modal is open: it takes the keys
	Layer    Layer
	Typing   bool // the modal open takes characters as text
	Focus    PanelID
	LogFull  bool // the event log fills the body in place of the panels
}
