// Package lockcmd is the dashboard's lock commands: acquire, extend, auto-extend, release and force-delete
// through the Redlock client (LockOps, a controller with no area of its own), their forms (the acquire form,
// the force-delete confirmation, a lock over several keys), the register of our locks they keep (Ownership),
// and the release of everything we hold at quit.
package lockcmd

import "github.com/redlock-tui/redlock-tui/ui/kit"

// The components of this room, and the modals among them, answer the kit's contract.
var (
	_ kit.Modal = (*AcquireForm)(nil)
	_ kit.Modal = (*DeleteConfirm)(nil)
)
