package ui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

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
	if (kit.WheelRows(msg) == 0 && msg.Button != tea.MouseButtonLeft) || msg.Action != tea.MouseActionPress {
		return nil
	}
	p, row, ok := m.lay.panelAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	if kit.WheelRows(msg) == 0 {
		m.focus = p
	}
	msg.Y = row
	_, cmd := m.panel(p).Update(msg)
	return cmd
}
