// Package dialogs holds the dashboard's own dialogs, which belong to no panel: the full help, whose columns the
// root composes, and the confirmation asked before quitting releases the locks we hold.
package dialogs

import "github.com/redlock-tui/redlock-tui/ui/kit"

// The components of this room, and the modals among them, answer the kit's contract.
var (
	_ kit.Modal = (*HelpView)(nil)
	_ kit.Modal = (*QuitConfirm)(nil)
)
