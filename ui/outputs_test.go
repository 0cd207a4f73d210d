package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestAStoppedFileIsInTheBannerAndTheLogUntilReopened: a file of the program's that a write error stopped
// (OutputMsg) stays in the banner, above the panels, and its event is in the event log; a reopening that
// resumed it takes it out of the banner.
func TestAStoppedFileIsInTheBannerAndTheLogUntilReopened(t *testing.T) {
	m := testModel(t)
	const stopped = "--record stopped: recording /r.rec: write /r.rec: no space left on device"
	m.Update(OutputMsg{Record: events.Program(t0, events.KindOutputFailed, stopped+"; the program goes on"),
		Stopped: []string{stopped}})
	screen := ansi.Strip(m.View())
	banner, _, _ := strings.Cut(screen, "Masters")
	if !strings.Contains(banner, "✖ --record stopped: recording /r.rec") {
		t.Errorf("the banner does not show the stopped recording:\n%s", screen)
	}
	last := m.sh.Log.Entries[len(m.sh.Log.Entries)-1]
	if last.Level != monitor.SeverityError || !strings.Contains(last.Text, stopped) {
		t.Errorf("the event log's last entry: %+v; want the failure, as an error", last)
	}
	m.Update(OutputMsg{Record: events.Program(t0, events.KindOutputReopened, "SIGHUP: reopened --record /r.rec")})
	screen = ansi.Strip(m.View())
	if banner, _, _ := strings.Cut(screen, "Masters"); strings.Contains(banner, "--record stopped") {
		t.Errorf("the banner still shows the recording stopped after it resumed:\n%s", screen)
	}
	if last := m.sh.Log.Entries[len(m.sh.Log.Entries)-1]; !strings.Contains(last.Text, "SIGHUP: reopened") {
		t.Errorf("the event log's last entry: %+v; want the reopening", last)
	}
}
