package ui

import tea "github.com/charmbracelet/bubbletea"

// wheelStep is how many rows one turn of the mouse wheel moves.
const wheelStep = 3

// mouse routes a mouse event: the wheel scrolls the open view or the panel under the pointer; a left click
// focuses the panel under it and selects the row clicked, and a click on the row already selected opens it, as
// Open does. Dialogs take no mouse input. The panel under the pointer is found in the layout View draws.
func (m *Model) mouse(msg tea.MouseMsg) {
	if m.quit.active || m.ops.form != nil || m.ops.confirm != nil || (m.demo != nil && m.demo.menu != nil) || m.lay.tooSmall {
		return
	}
	switch {
	case m.drill != nil:
		m.drill.Update(msg)
		return
	case m.showHelp:
		m.helpBox.Update(msg)
		return
	}
	wheel := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		wheel = -wheelStep
	case tea.MouseButtonWheelDown:
		wheel = wheelStep
	case tea.MouseButtonLeft:
	default:
		return
	}
	if msg.Action != tea.MouseActionPress {
		return
	}
	panel, y, ok := m.lay.panelAt(msg.X, msg.Y)
	if !ok {
		return
	}
	if wheel != 0 {
		m.scrollPanel(panel, wheel)
		return
	}
	m.focus = panel
	row := y - 2 // the border and the column header
	if panel == focusOurs || panel == focusLog {
		row = y - 1 // no column header
	}
	if row < 0 {
		return
	}
	switch panel {
	case focusMasters:
		if m.masters.clickRow(row) {
			m.openDrill()
		}
	case focusLocks:
		if m.locks.clickRow(row) {
			m.openDrill()
		}
	case focusOurs:
		m.ours.cursor = min(m.ours.offset+row, max(len(m.ours.locks)-1, 0))
	}
}

// scrollPanel moves the cursor (or the log's view) of panel by n rows.
func (m *Model) scrollPanel(panel panelID, n int) {
	switch panel {
	case focusMasters:
		if d := m.sh.data; d != nil {
			m.masters.cursor = min(max(m.masters.cursor+n, 0), max(len(d.masters)-1, 0))
		}
	case focusLocks:
		m.locks.moveBy(n)
	case focusLog:
		m.log.scrollBy(n)
	}
}

// clickRow selects the master on the row-th visible row and reports whether it was already selected.
func (p *mastersPanel) clickRow(row int) bool {
	if p.sh.data == nil || row >= p.rows() {
		return false
	}
	i := p.offset + row
	if i >= len(p.sh.data.masters) {
		return false
	}
	again := i == p.cursor
	p.cursor = i
	return again
}

// clickRow selects the lock on the row-th visible row and reports whether it was already selected.
func (p *locksPanel) clickRow(row int) bool {
	pos := p.offset + row
	if row >= p.rows() || pos >= len(p.order) {
		return false
	}
	again := pos == p.cursor
	p.cursor = pos
	p.remember()
	return again
}

// moveBy moves the cursor by n rows.
func (p *locksPanel) moveBy(n int) {
	p.cursor = min(max(p.cursor+n, 0), max(len(p.order)-1, 0))
	p.offset = window(p.cursor, p.offset, p.rows(), len(p.order))
	p.remember()
}
