package kit

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// Component is the one contract of the dashboard's parts, after soft-serve's: a tea.Model that is also a
// help.KeyMap, whose ShortHelp lists the keys that act on it right now and FullHelp those that can act in this
// mode, and that takes the size the root's layout gives it. The panels and the demo's view are components; so
// is every modal (see Modal). The lock commands (LockOps) are not: a controller with no area, the root calls
// them.
//
// Components do not hold one another: they read the shared program context, receive messages from the root
// (the root sends every message that is not a key to all of them), and tell the others what they need through
// Shared.Tell.
type Component interface {
	tea.Model
	help.KeyMap
	SetSize(w, h int)
}

// Layer is where a modal shows, which also says where the mouse goes while it is open.
type Layer int

// The layers.
const (
	LayerDialog Layer = iota // a box over the panels, which take no input meanwhile
	LayerScreen              // the body, in place of the panels; the mouse wheel scrolls it
	LayerField               // nothing of its own: a text field its panel shows; the panels keep the mouse
)

// Modal is a component that takes the keyboard while it is open: the acquire form, the force-delete
// confirmation, the scenario menu, a drill-down view, the full help, and the locks' filter or the log's search
// while it is typed. The root holds at most one, gives it every key (but the quit keys), and asks it where it
// shows (Layer) and whether it takes characters as text (Typing): then q is a letter, and characters that
// arrive together stay together. A modal closes by returning nil from Update.
type Modal interface {
	Component
	Layer() Layer
	Typing() bool
}

// Sized is what the panels have alike: their outer size, which SetSize sets, and an Init that does nothing,
// since a panel shows what the root hands it.
type Sized struct{ W, H int }

// Init does nothing.
func (s *Sized) Init() tea.Cmd { return nil }

// SetSize sets the outer size.
func (s *Sized) SetSize(w, h int) { s.W, s.H = w, h }

// ModalBase is what the modals share: the program context, where the modal shows, whether it takes text, its
// keys (the footer shows them in place of the dashboard's) and the size the root gives it. A modal embeds it
// and adds Update and View.
type ModalBase struct {
	Shared *Shared // the program context
	Where  Layer
	Text   bool
	Keys   []key.Binding
	W, h   int
}

// Init does nothing: a modal waits for keys.
func (b *ModalBase) Init() tea.Cmd { return nil }

// SetSize sets the size the modal may take: the body.
func (b *ModalBase) SetSize(w, h int) { b.W, b.h = w, h }

// Layer says where the modal shows.
func (b *ModalBase) Layer() Layer { return b.Where }

// Typing says whether the modal takes characters as text.
func (b *ModalBase) Typing() bool { return b.Text }

// ShortHelp lists the modal's keys.
func (b *ModalBase) ShortHelp() []key.Binding { return b.Keys }

// FullHelp lists the modal's keys as one column.
func (b *ModalBase) FullHelp() [][]key.Binding { return [][]key.Binding{b.Keys} }

// Keyed is a component whose keys are a keyTable: the root asks it whether it takes a key before handing it
// the key, so that a key it does not take goes on to the next component.
type Keyed interface {
	Component
	Takes(msg tea.KeyMsg) bool
}

// Action is one key binding of a component with when it can act and what it does (lazygit's controller
// binding). The same guard that refuses the key, with its reason, disables the binding in the help, so that
// "can this key act now" is answered once.
type Action struct {
	Binding *key.Binding // as given in the KeyMap
	Focused bool         // the key acts only while its component has the focus
	// When says whether the key is this action's at the moment (nil: always); when it is not, the key goes on
	// to the next component that takes it, as esc does from a log without a search to the locks' filter.
	When func() bool
	// Can says why the key cannot act now, "" when it can (nil: it always can): shown as a warning when the
	// key is pressed, and the binding is left out of the footer meanwhile.
	Can func() string
	// Mode says why the key cannot act at all in this mode, "" when it can (nil: it always can): the full help
	// leaves it out. Read-only mode is one.
	Mode func() string
	Do   func(msg tea.KeyMsg) tea.Cmd
}

// Never is the when of an action listed in the help that takes no key itself.
func Never() bool { return false }

// KeyTable is a component's actions, in the order a key is matched against them. Embedded in a component, it
// answers help.KeyMap and keyed for it.
type KeyTable struct {
	Shared  *Shared // the program context
	Actions []Action
	Focused bool // the component has the focus: its focused actions take keys, and show in the help
}

// find returns the action that takes msg now, or nil.
func (t *KeyTable) find(msg tea.KeyMsg) *Action {
	for i := range t.Actions {
		a := &t.Actions[i]
		if (a.Focused && !t.Focused) || !key.Matches(msg, *a.Binding) || (a.When != nil && !a.When()) {
			continue
		}
		return a
	}
	return nil
}

// Takes reports whether one of the table's actions takes msg now.
func (t *KeyTable) Takes(msg tea.KeyMsg) bool { return t.find(msg) != nil }

// Run applies msg: refused, with the reason on the status line, when its action cannot act now, and done
// otherwise. A key no action takes does nothing.
func (t *KeyTable) Run(msg tea.KeyMsg) tea.Cmd {
	a := t.find(msg)
	if a == nil {
		return nil
	}
	if a.Can != nil {
		if why := a.Can(); why != "" {
			t.Shared.TellStatus(monitor.SeverityWarning, why)
			return nil
		}
	}
	return a.Do(msg)
}

// ShortHelp lists the bindings that act now, each once, in the table's order; the others are disabled.
func (t *KeyTable) ShortHelp() []key.Binding {
	return t.bindings(func(a *Action) bool { return (a.When == nil || a.When()) && (a.Can == nil || a.Can() == "") })
}

// FullHelp lists, as one column, the bindings that can act in this mode; the others are disabled.
func (t *KeyTable) FullHelp() [][]key.Binding {
	return [][]key.Binding{t.bindings(func(a *Action) bool { return a.Mode == nil || a.Mode() == "" })}
}

// bindings lists each binding of the actions that apply (the focused ones only while the component has the
// focus) once, enabled when ok holds for one of its actions.
func (t *KeyTable) bindings(ok func(a *Action) bool) []key.Binding {
	var out []key.Binding
	var from []*key.Binding
	for i := range t.Actions {
		a := &t.Actions[i]
		if a.Focused && !t.Focused {
			continue
		}
		j := 0
		for j < len(from) && from[j] != a.Binding {
			j++
		}
		if j == len(from) {
			b := *a.Binding
			b.SetEnabled(false)
			out, from = append(out, b), append(from, a.Binding)
		}
		if !out[j].Enabled() && ok(a) {
			out[j].SetEnabled(true)
		}
	}
	return out
}

// InOrder lays offered bindings out in the order of layout: a binding of layout is kept when one offered has
// the same help, and enabled when one of those is; the others are disabled, so that help leaves them out.
// The footer and the full help compose the focused panel's and the global keys this way, in the order
// keymap.go gives.
func InOrder(layout, offered []key.Binding) []key.Binding {
	out := make([]key.Binding, len(layout))
	for i, b := range layout {
		b.SetEnabled(false)
		for _, o := range offered {
			if o.Help() == b.Help() && o.Enabled() {
				b.SetEnabled(true)
				break
			}
		}
		out[i] = b
	}
	return out
}

// ColumnsInOrder is inOrder for each column of a full help.
func ColumnsInOrder(layout [][]key.Binding, offered []key.Binding) [][]key.Binding {
	out := make([][]key.Binding, len(layout))
	for i, col := range layout {
		out[i] = InOrder(col, offered)
	}
	return out
}

// Flatten joins a full help's columns into one list.
func Flatten(cols [][]key.Binding) []key.Binding {
	var out []key.Binding
	for _, c := range cols {
		out = append(out, c...)
	}
	return out
}
