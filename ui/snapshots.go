package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// SnapshotMsg hands the dashboard a monitor snapshot. With Options.Monitor set the dashboard runs the monitor's
// loop itself and needs none; without one, a program embedding the dashboard (or a test) sends its snapshots
// this way.
type SnapshotMsg struct {
	Snapshot monitor.Snapshot
}

// monitorStartedMsg carries the channel of a monitor loop just started.
type monitorStartedMsg struct{ ch <-chan monitor.Snapshot }

// monitorSnapshotMsg is a snapshot from the monitor loop, already made ready for the screen; reading the next
// one re-arms the command.
type monitorSnapshotMsg struct {
	ch      <-chan monitor.Snapshot
	data    *kit.Dashboard
	entries []kit.LogEntry
}

// monitorClosedMsg tells that the monitor loop ended.
type monitorClosedMsg struct{}

// tick re-arms the tick.
func tick() tea.Cmd {
	return tea.Tick(kit.TickEvery, func(time.Time) tea.Msg { return kit.TickMsg{} })
}

// startMonitor starts the monitor's polling loop, which runs until ctx ends.
func startMonitor(ctx context.Context, mon *monitor.Monitor) tea.Cmd {
	return func() tea.Msg { return monitorStartedMsg{ch: mon.Run(ctx)} }
}

// waitSnapshot reads the next snapshot from the monitor loop and takes it in (sanitizing, counting) in the
// command's goroutine, off the event loop: with 100,000 locks that is tens of milliseconds the keyboard does not
// wait for. prev is the current dashboard, which is immutable. The dashboard re-arms the command after each one.
func waitSnapshot(ch <-chan monitor.Snapshot, prev *kit.Dashboard) tea.Cmd {
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return monitorClosedMsg{}
		}
		d, entries := kit.Ingest(s, prev)
		return monitorSnapshotMsg{ch: ch, data: d, entries: entries}
	}
}
