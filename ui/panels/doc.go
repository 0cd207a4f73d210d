// Package panels holds the dashboard's panels: the masters, the locks (with their filter field, heat, sparkline
// and incident report), our locks, the detail and the event log panels. A selected row's full view is
// drillview's. The root lays them out and routes to them; they read the program context (kit.Shared) and talk
// through the kit's messages.
package panels

import "github.com/redlock-tui/redlock-tui/ui/kit"

// The components of this room, and the modals among them, answer the kit's contract.
var (
	_ kit.Keyed     = (*MastersPanel)(nil)
	_ kit.Keyed     = (*LocksPanel)(nil)
	_ kit.Component = (*DetailPanel)(nil)
	_ kit.Keyed     = (*OursPanel)(nil)
	_ kit.Keyed     = (*EventLog)(nil)
	_ kit.Modal     = (*FieldEntry)(nil)
)
