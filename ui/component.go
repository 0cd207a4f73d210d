package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// component is the one contract of the dashboard's parts, after soft-serve's: a tea.Model that is also a
// help.KeyMap, whose ShortHelp lists the keys that act on it right now and FullHelp those that can act in this
// mode, and that takes the size the root's layout gives it. The panels and the demo's view are components; so
// is every modal (see modal). The lock commands (lockOps) are not: a controller with no area, the root calls
// them.
//
// Components do not hold one another: they read the shared program context, receive messages from the root
// (the root sends every message that is not a key to all of them), and tell the others what they need through
// shared.tell.
type component interface {
	tea.Model
	help.KeyMap
	SetSize(w, h int)
}

// layer is where a modal shows, which also says where the mouse goes while it is open.
type layer int

// The layers.
const (
	layerDialog layer = iota // a box over the panels, which take no input meanwhile
	layerScreen              // the body, in place of the panels; the mouse wheel scrolls it
	layerField               // nothing of its own: a text field its panel shows; the panels keep the mouse
)

// modal is a component that takes the keyboard while it is open: the acquire form, the force-delete
// confirmation, the scenario menu, a drill-down view, the full help, and the locks' filter or the log's search
// while it is typed. The root holds at most one, gives it every key (but the quit keys), and asks it where it
// shows (layer) and whether it takes characters as text (typing): then q is a letter, and characters that
// arrive together stay together. A modal closes by returning nil from Update.
type modal interface {
	component
	layer() layer
	typing() bool
}

// sized is what the panels have alike: their outer size, which SetSize sets, and an Init that does nothing,
// since a panel shows what the root hands it.
type sized struct{ w, h int }

// Init does nothing.
func (s *sized) Init() tea.Cmd { return nil }

// SetSize sets the outer size.
func (s *sized) SetSize(w, h int) { s.w, s.h = w, h }

// modalBase is what the modals share: the program context, where the modal shows, whether it takes text, its
// keys (the footer shows them in place of the dashboard's) and the size the root gives it. A modal embeds it
// and adds Update and View.
type modalBase struct {
	sh    *shared
	where layer
	text  bool
	keys  []key.Binding
	w, h  int
}

// Init does nothing: a modal waits for keys.
func (b *modalBase) Init() tea.Cmd { return nil }

// SetSize sets the size the modal may take: the body.
func (b *modalBase) SetSize(w, h int) { b.w, b.h = w, h }

// layer says where the modal shows.
func (b *modalBase) layer() layer { return b.where }

// typing says whether the modal takes characters as text.
func (b *modalBase) typing() bool { return b.text }

// ShortHelp lists the modal's keys.
func (b *modalBase) ShortHelp() []key.Binding { return b.keys }

// FullHelp lists the modal's keys as one column.
func (b *modalBase) FullHelp() [][]key.Binding { return [][]key.Binding{b.keys} }

// keyed is a component whose keys are a keyTable: the root asks it whether it takes a key before handing it
// the key, so that a key it does not take goes on to the next component.
type keyed interface {
	component
	takes(msg tea.KeyMsg) bool
}

// action is one key binding of a component with when it can act and what it does (lazygit's controller
// binding). The same guard that refuses the key, with its reason, disables the binding in the help, so that
// "can this key act now" is answered once.
type action struct {
	binding *key.Binding // as given in the KeyMap
	focused bool         // the key acts only while its component has the focus
	// when says whether the key is this action's at the moment (nil: always); when it is not, the key goes on
	// to the next component that takes it, as esc does from a log without a search to the locks' filter.
	when func() bool
	// can says why the key cannot act now, "" when it can (nil: it always can): shown as a warning when the
	// key is pressed, and the binding is left out of the footer meanwhile.
	can func() string
	// mode says why the key cannot act at all in this mode, "" when it can (nil: it always can): the full help
	// leaves it out. Read-only mode is one.
	mode func() string
	do   func(msg tea.KeyMsg) tea.Cmd
}

// never is the when of an action listed in the help that takes no key itself.
func never() bool { return false }

// keyTable is a component's actions, in the order a key is matched against them. Embedded in a component, it
// answers help.KeyMap and keyed for it.
type keyTable struct {
	sh      *shared
	actions []action
	focused bool // the component has the focus: its focused actions take keys, and show in the help
}

// find returns the action that takes msg now, or nil.
func (t *keyTable) find(msg tea.KeyMsg) *action {
	for i := range t.actions {
		a := &t.actions[i]
		if (a.focused && !t.focused) || !key.Matches(msg, *a.binding) || (a.when != nil && !a.when()) {
			continue
		}
		return a
	}
	return nil
}

// takes reports whether one of the table's actions takes msg now.
func (t *keyTable) takes(msg tea.KeyMsg) bool { return t.find(msg) != nil }

// run applies msg: refused, with the reason on the status line, when its action cannot act now, and done
// otherwise. A key no action takes does nothing.
func (t *keyTable) run(msg tea.KeyMsg) tea.Cmd {
	a := t.find(msg)
	if a == nil {
		return nil
	}
	if a.can != nil {
		if why := a.can(); why != "" {
			t.sh.tellStatus(monitor.SeverityWarning, why)
			return nil
		}
	}
	return a.do(msg)
}

// ShortHelp lists the bindings that act now, each once, in the table's order; the others are disabled.
func (t *keyTable) ShortHelp() []key.Binding {
	return t.bindings(func(a *action) bool { return (a.when == nil || a.when()) && (a.can == nil || a.can() == "") })
}

// FullHelp lists, as one column, the bindings that can act in this mode; the others are disabled.
func (t *keyTable) FullHelp() [][]key.Binding {
	return [][]key.Binding{t.bindings(func(a *action) bool { return a.mode == nil || a.mode() == "" })}
}

// bindings lists each binding of the actions that apply (the focused ones only while the component has the
// focus) once, enabled when ok holds for one of its actions.
func (t *keyTable) bindings(ok func(a *action) bool) []key.Binding {
	var out []key.Binding
	var from []*key.Binding
	for i := range t.actions {
		a := &t.actions[i]
		if a.focused && !t.focused {
			continue
		}
		j := 0
		for j < len(from) && from[j] != a.binding {
			j++
		}
		if j == len(from) {
			b := *a.binding
			b.SetEnabled(false)
			out, from = append(out, b), append(from, a.binding)
		}
		if !out[j].Enabled() && ok(a) {
			out[j].SetEnabled(true)
		}
	}
	return out
}

// inOrder lays offered bindings out in the order of layout: a binding of layout is kept when one offered has
// the same help, and enabled when one of those is; the others are disabled, so that help leaves them out.
// The footer and the full help compose the focused panel's and the global keys this way, in the order
// keymap.go gives.
func inOrder(layout, offered []key.Binding) []key.Binding {
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

// columnsInOrder is inOrder for each column of a full help.
func columnsInOrder(layout [][]key.Binding, offered []key.Binding) [][]key.Binding {
	out := make([][]key.Binding, len(layout))
	for i, col := range layout {
		out[i] = inOrder(col, offered)
	}
	return out
}

// flatten joins a full help's columns into one list.
func flatten(cols [][]key.Binding) []key.Binding {
	var out []key.Binding
	for _, c := range cols {
		out = append(out, c...)
	}
	return out
}

// The components, and the modals among them.
var (
	_ keyed     = (*mastersPanel)(nil)
	_ keyed     = (*locksPanel)(nil)
	_ component = (*detailPanel)(nil)
	_ keyed     = (*oursPanel)(nil)
	_ keyed     = (*eventLog)(nil)
	_ keyed     = (*demoView)(nil)
	_ modal     = (*acquireForm)(nil)
	_ modal     = (*deleteConfirm)(nil)
	_ modal     = (*scenarioMenu)(nil)
	_ modal     = (*fieldEntry)(nil)
	_ modal     = (*drillView)(nil)
	_ modal     = (*helpView)(nil)
	_ modal     = (*quitConfirm)(nil)
)
