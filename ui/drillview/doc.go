// Package drillview holds the views that show one lock or one master in full (Open, or a click on the row
// selected): a lock's holders, its timeline with the holder picked, its contention, who holds it (a MONITOR
// sample), and a master's state, keys and entries. The panels open them; the root shows them as modals.
package drillview

import "github.com/redlock-tui/redlock-tui/ui/kit"

// The components of this room, and the modals among them, answer the kit's contract.
var (
	_ kit.Modal = (*DrillView)(nil)
)
