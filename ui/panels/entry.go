package panels

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// typedText is a panel's filter or search as typed: what its field entry tells it, while open and after.
type typedText struct {
	Text    string
	editing bool // the field has the keyboard
}

// open starts editing: it returns the field to open as the modal, holding the text as typed before.
func (t *typedText) open(sh *kit.Shared, to kit.PanelID) kit.Modal {
	t.editing = true
	return newFieldEntry(sh, to, t.Text)
}

// take takes in what the field tells, and applies the text when it changed.
func (t *typedText) take(msg kit.FieldMsg, apply func(string)) {
	t.editing = msg.Editing
	if msg.Text != t.Text {
		t.Text = msg.Text
		apply(msg.Text)
	}
}

// FieldEntry is the locks' filter or the event log's search while it is typed into: a modal with no area of
// its own (its panel shows the text in its title). The text applies as it is typed (fieldMsg to its panel);
// Confirm keeps it and gives the keyboard back, Cancel clears it, and the keys the field does not take
// (arrows, paging) go to the panel, whose cursor they move.
type FieldEntry struct {
	kit.ModalBase
	to    kit.PanelID
	field kit.Field
}

// newFieldEntry returns the field of panel to, holding text as typed before.
func newFieldEntry(sh *kit.Shared, to kit.PanelID, text string) *FieldEntry {
	keys := []key.Binding{sh.Keys.Confirm, sh.Keys.Cancel}
	return &FieldEntry{ModalBase: kit.ModalBase{Shared: sh, Where: kit.LayerField, Text: true, Keys: keys}, to: to,
		field: kit.NewField(text, 120)}
}

// View is empty: the field is drawn by its panel.
func (e *FieldEntry) View() string { return "" }

// Update edits the text and tells the panel, keeps it (Confirm) or clears it (Cancel) and closes, and hands
// the panel the keys the field does not take.
func (e *FieldEntry) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return e, nil
	}
	return e.key(km)
}

// key applies a key to the field.
func (e *FieldEntry) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := e.Shared.Keys
	switch {
	case key.Matches(msg, k.Confirm):
		e.Shared.Tell(kit.FieldMsg{To: e.to, Text: e.field.String()})
		return nil, nil
	case key.Matches(msg, k.Cancel):
		e.Shared.Tell(kit.FieldMsg{To: e.to})
		return nil, nil
	case e.field.Update(msg):
		e.Shared.Tell(kit.FieldMsg{To: e.to, Text: e.field.String(), Editing: true})
	default:
		e.Shared.Tell(kit.PanelKeyMsg{To: e.to, Key: msg})
	}
	return e, nil
}
