package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// typedText is a panel's filter or search as typed: what its field entry tells it, while open and after.
type typedText struct {
	text    string
	editing bool // the field has the keyboard
}

// open starts editing: it returns the field to open as the modal, holding the text as typed before.
func (t *typedText) open(sh *shared, to panelID) modal {
	t.editing = true
	return newFieldEntry(sh, to, t.text)
}

// take takes in what the field tells, and applies the text when it changed.
func (t *typedText) take(msg fieldMsg, apply func(string)) {
	t.editing = msg.editing
	if msg.text != t.text {
		t.text = msg.text
		apply(msg.text)
	}
}

// fieldEntry is the locks' filter or the event log's search while it is typed into: a modal with no area of
// its own (its panel shows the text in its title). The text applies as it is typed (fieldMsg to its panel);
// Confirm keeps it and gives the keyboard back, Cancel clears it, and the keys the field does not take
// (arrows, paging) go to the panel, whose cursor they move.
type fieldEntry struct {
	modalBase
	to    panelID
	field kit.Field
}

// newFieldEntry returns the field of panel to, holding text as typed before.
func newFieldEntry(sh *shared, to panelID, text string) *fieldEntry {
	keys := []key.Binding{sh.keys.Confirm, sh.keys.Cancel}
	return &fieldEntry{modalBase: modalBase{sh: sh, where: layerField, text: true, keys: keys}, to: to,
		field: kit.NewField(text, 120)}
}

// View is empty: the field is drawn by its panel.
func (e *fieldEntry) View() string { return "" }

// Update edits the text and tells the panel, keeps it (Confirm) or clears it (Cancel) and closes, and hands
// the panel the keys the field does not take.
func (e *fieldEntry) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return e, nil
	}
	return e.key(km)
}

// key applies a key to the field.
func (e *fieldEntry) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := e.sh.keys
	switch {
	case key.Matches(msg, k.Confirm):
		e.sh.tell(fieldMsg{to: e.to, text: e.field.String()})
		return nil, nil
	case key.Matches(msg, k.Cancel):
		e.sh.tell(fieldMsg{to: e.to})
		return nil, nil
	case e.field.Update(msg):
		e.sh.tell(fieldMsg{to: e.to, text: e.field.String(), editing: true})
	default:
		e.sh.tell(panelKeyMsg{to: e.to, key: msg})
	}
	return e, nil
}
