package metrics

import (
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestExporterSaysWhichMastersAreTracked exports a tracked master, a polled one, one polled because it
// refused tracking, and one that did not answer although it was tracked before: only the first reads 1.
func TestExporterSaysWhichMastersAreTracked(t *testing.T) {
	e := New(Options{})
	e.Observe(monitor.Snapshot{Masters: []monitor.MasterStatus{
		{Addr: "a:1", Up: true, Refresh: monitor.RefreshTracking},
		{Addr: "b:1", Up: true, Refresh: monitor.RefreshPolling, RefreshWhy: "tracking turned off"},
		{Addr: "c:1", Up: true, Refresh: monitor.RefreshPolling, RefreshWhy: "CLIENT TRACKING refused: NOPERM"},
		{Addr: "d:1", Down: true, Refresh: monitor.RefreshTracking},
	}}, nil)
	got := scrape(t, e)
	for master, want := range map[string]string{"a:1": "1", "b:1": "0", "c:1": "0", "d:1": ""} {
		name := `redlock_master_refresh_tracking{master="` + master + `"}`
		if got[name] != want {
			t.Errorf("%s = %q, want %s", name, got[name], want)
		}
	}
}
