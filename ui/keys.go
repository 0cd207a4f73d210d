package ui

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every key binding of the dashboard. Its values are built in one place, the command's keymap.go;
// the dashboard only reads them, and disables (key.Binding.SetEnabled) those that do nothing at the moment, so
// that they vanish from help.
type KeyMap struct {
	// Navigation: rows within the focused panel, and focus between panels.
	Up, Down, PageUp, PageDown, Top, Bottom, NextPanel, PrevPanel key.Binding
	// Lock actions: acquire a lock, extend, release or toggle auto-extension of one of ours, and force-delete a
	// lock that is not ours.
	Acquire, Extend, Release, AutoExtend, Delete key.Binding
	// View and app: filter and sort the locks, pause polling, poll faster or slower, full help, quit.
	Filter, Sort, Pause, Faster, Slower, Help, Quit key.Binding
	// Confirm submits a form or a confirmation, Cancel closes it.
	Confirm, Cancel key.Binding
}

// ShortHelp is the one-line help: the actions and the keys that open help and quit.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Acquire, k.Extend, k.Release, k.AutoExtend, k.Delete, k.Filter, k.Sort, k.NextPanel,
		k.Help, k.Quit}
}

// FullHelp is the full help, in columns: navigation, lock actions, view, app. A new group of bindings (such as
// the demo's) is one more column here.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPanel, k.PrevPanel},
		{k.Acquire, k.Extend, k.Release, k.AutoExtend, k.Delete},
		{k.Filter, k.Sort, k.Pause, k.Faster, k.Slower},
		{k.Confirm, k.Cancel, k.Help, k.Quit},
	}
}

// bindingList is a help.KeyMap of a fixed list of bindings, for the help of forms and confirmations.
type bindingList []key.Binding

// ShortHelp returns the list.
func (b bindingList) ShortHelp() []key.Binding { return b }

// FullHelp returns the list as one column.
func (b bindingList) FullHelp() [][]key.Binding { return [][]key.Binding{b} }
