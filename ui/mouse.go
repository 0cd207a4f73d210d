package ui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// wheelStep is how many rows one turn of the mouse wheel moves.
const wheelStep = 3

// wheelRows is how many rows a mouse event scrolls: down for a positive count, none for other buttons.
func wheelRows(msg tea.MouseMsg) int {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return -wheelStep
	case tea.MouseButtonWheelDown:
		return wheelStep
	}
	return 0
}

// mouse routes a mouse event: the wheel scrolls the modal that takes the body or the panel under the pointer;
// a left click focuses the panel under it and hands it the click, at the row within the panel (the panel
// selects the row clicked, and asks to open the row already selected, as Open does). A dialog takes no mouse
// input. The panel under the pointer is found in the layout View draws.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	md := m.mode()
	if md.Quitting || m.lay.tooSmall || m.lay.compact {
		return nil
	}
	if md.Modal {
		switch md.Layer {
		case kit.LayerDialog:
			return nil
		case kit.LayerScreen:
			return m.updateModal(msg)
		}
	}
	if (wheelRows(msg) == 0 && msg.Button != tea.MouseButtonLeft) || msg.Action != tea.MouseActionPress {
		return nil
	}
	p, row, ok := m.lay.panelAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	if wheelRows(msg) == 0 {
		m.focus = p
	}
	msg.Y = row
	_, cmd := m.panel(p).Update(msg)
	return cmd
}
