// Package demoview is the demo's room of the dashboard: the demo view (the presenter's bar, the violation
// banner, the scenario's story told step by step) and the scenario menu, over the embedded demo (package demo).
package demoview

import "github.com/redlock-tui/redlock-tui/ui/kit"

// The components of this room, and the modals among them, answer the kit's contract.
var (
	_ kit.Keyed = (*DemoView)(nil)
	_ kit.Modal = (*ScenarioMenu)(nil)
)
