package kit

import (
	"context"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
)

// PanelID names a focusable panel.
type PanelID int

// The focusable panels, in the order NextPanel visits them.
const (
	FocusMasters PanelID = iota
	FocusLocks
	FocusOurs
	FocusLog
	PanelCount
)

// Status is the one-line message under the panels: the outcome of the last action, or why it was refused.
type Status struct {
	At    time.Time
	Level monitor.Severity
	Text  string
}

// WhoHolds samples a lock's master to name the connection that holds it (whoholds.Masters does, over the
// program's clients). The dashboard calls it from a command, never from Update or View.
type WhoHolds interface {
	Sample(ctx context.Context, t whoholds.Target, d time.Duration, maxLines int) (whoholds.Report, error)
}

// WhoSampling is the dashboard's side of naming a lock's holder: the sampler, and whether a sample must be
// confirmed first (MONITOR costs the master: a read-only or production dashboard asks before it samples).
type WhoSampling struct {
	Sampler WhoHolds // nil: the dashboard cannot sample (demo masters, a test)
	Confirm bool
	Seq     uint64 // numbers the requests, so that a result finds the view that asked for it
}
