package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestHeaderIsNotOKInAFailoversReplicationRace: every master up, but one failed over less than the longest
// TTL ago (the monitor counts it in Snapshot.Unsafe, and raises an error): the header says UNSAFE, not OK (issue
// 20), as the worst of what the screen shows, an error (issue 34), and the banner names the new primary.
func TestHeaderIsNotOKInAFailoversReplicationRace(t *testing.T) {
	s := normalSnapshot()
	m := newDashboard(ui.Options{}, 160, 40)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	if h := headerLine(m); !strings.Contains(h, "OK") || strings.Contains(h, "DEGRADED") {
		t.Fatalf("no failover: header %q, want OK", h)
	}
	s.Seq++
	s.Unsafe = 1
	s.Masters[0].Primary, s.Masters[0].FormerPrimary, s.Masters[0].LastFailover = "10.0.0.2:6379", "10.0.0.1:6379", s.Time.Add(-time.Second)
	s.Warnings = append(s.Warnings, monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnFailover, Master: s.Masters[0].Addr,
		Text: "failover: locks not yet replicated to the new primary may be lost (the algorithm page's replication race): " +
			"primary 10.0.0.1:6379 -> 10.0.0.2:6379 1s ago, less than the longest TTL (30s)"})
	m.Update(ui.SnapshotMsg{Snapshot: s})
	if h := headerLine(m); !strings.Contains(h, "UNSAFE") {
		t.Errorf("in a failover's replication race: header %q, want UNSAFE", h)
	}
	if view := m.View(); !strings.Contains(view, "10.0.0.1:6379 -> 10.0.0.2:6379") {
		t.Errorf("the banner does not name the new primary:\n%s", view)
	}
}
