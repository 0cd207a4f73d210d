package ui

// source is where the dashboard's snapshots come from.
type source int

// The sources.
const (
	sourceLive   source = iota // masters the monitor polls
	sourceDemo                 // the demo's embedded masters, with the presenter's keys
	sourceReplay               // a recording, looked at through a time cursor
)

// mode is the dashboard's mode as a whole: where the snapshots come from, whether writing is allowed, whether
// they stream or stand still, whether it is quitting, what takes the keys (a modal, and whether it takes text),
// which panel has the focus and whether the event log fills the body. It is one value, derived in one place
// (Model.mode) from the root's state: the root asks it wherever what it does depends on the mode, and the
// components get it with the selection (stateMsg).
type mode struct {
	source   source
	readOnly bool // no write command can act: Options.ReadOnly, or a replay
	paused   bool // live or demo: polling paused; a replay: not playing
	quitting bool // releasing our locks before quitting: only Interrupt acts
	modal    bool // a modal is open: it takes the keys
	layer    layer
	typing   bool // the modal open takes characters as text
	focus    panelID
	logFull  bool // the event log fills the body in place of the panels
}

// mode derives the dashboard's mode from the root's state.
func (m *Model) mode() mode {
	md := mode{readOnly: m.sh.readOnly, paused: m.paused, quitting: m.quit.active, focus: m.focus, logFull: m.logFull}
	switch {
	case m.replay != nil:
		md.source, md.paused = sourceReplay, !m.replay.playing
	case m.demo != nil:
		md.source = sourceDemo
	}
	if m.modal != nil {
		md.modal, md.layer, md.typing = true, m.modal.layer(), m.modal.typing()
	}
	return md
}
