package ui_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestBannerCountsErrorsAndWarningsApart: the banner's last line counts the errors and the warnings it leaves
// out under their own words, never ten errors as "more warnings" (issue 42).
func TestBannerCountsErrorsAndWarningsApart(t *testing.T) {
	s := normalSnapshot()
	for i := range 10 {
		s.Warnings = append(s.Warnings, monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnQuorumLost,
			Resource: fmt.Sprintf("jobs:%d", i), Text: fmt.Sprintf("lock \"jobs:%d\" lost its quorum", i)})
	}
	s.Warnings = append(s.Warnings, monitor.Warning{Severity: monitor.SeverityWarning, Kind: monitor.WarnClockOffset,
		Master: "10.0.0.1:6379", Text: "clock offset 40ms"})
	m := newDashboard(ui.Options{}, 140, 40)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	view := m.View()
	more := regexp.MustCompile(`✖ (\d+) more errors? · ▲ 1 more warning: see the event log`).FindStringSubmatch(view)
	if more == nil || strings.Contains(view, "more warnings") {
		t.Fatalf("the banner does not count the errors and the warning it leaves out apart:\n%s", view)
	}
	shown := len(regexp.MustCompile(`(?m)^✖ error: lock`).FindAllString(view, -1)) // the banner's lines
	if n, _ := strconv.Atoi(more[1]); shown+n != 10 {
		t.Errorf("the banner shows %d errors and counts %s more, want 10 in all:\n%s", shown, more[1], view)
	}
}

// TestMasterViewNamesEachWarningsSeverity: a master's own view labels an error "error" and a warning
// "warning", as the banner does.
func TestMasterViewNamesEachWarningsSeverity(t *testing.T) {
	s := normalSnapshot()
	s.Warnings = append(s.Warnings,
		monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnReplica, Master: "10.0.0.1:6379", Text: "is a replica of 10.0.0.9:6379"},
		monitor.Warning{Severity: monitor.SeverityWarning, Kind: monitor.WarnHasReplicas, Master: "10.0.0.1:6379", Text: "has 2 replicas"})
	s.Masters[0].Warnings = []string{"is a replica of 10.0.0.9:6379", "has 2 replicas"}
	m := newDashboard(ui.Options{}, 140, 40)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	for _, k := range keys("shift+tab", "enter") {
		m.Update(k)
	}
	view := regexp.MustCompile(` +`).ReplaceAllString(m.View(), " ")
	for _, want := range []string{"┃error is a replica of 10.0.0.9:6379", "┃warning has 2 replicas"} {
		if !strings.Contains(view, want) {
			t.Errorf("the master's view does not show %q:\n%s", want, m.View())
		}
	}
	if strings.Contains(view, "┃warning is a replica") {
		t.Errorf("the master's view calls an error a warning:\n%s", m.View())
	}
}

// TestMasterGoingDownIsLoggedOnce: the poll that declares a master down raises its event and its warning;
// the event log tells the fact once, by the event.
func TestMasterGoingDownIsLoggedOnce(t *testing.T) {
	m := newDashboard(ui.Options{}, 140, 40)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	down := masterDownSnapshot()
	down.Seq++
	down.Time = testNow.Add(time.Second)
	down.Events = []monitor.Event{{Time: down.Time, Kind: monitor.EventMasterDown, Master: "10.0.0.2:6379", Text: "down: connection refused"}}
	m.Update(ui.SnapshotMsg{Snapshot: down})
	view := m.View()
	if n := len(regexp.MustCompile(`│12:00:06 [•▲✖] `).FindAllString(view, -1)); n != 1 {
		t.Errorf("the log has %d lines of the poll that declared the master down, want 1:\n%s", n, view)
	}
	if !strings.Contains(view, "master-down 10.0.0.2:6379") {
		t.Errorf("the log does not tell the master-down event:\n%s", view)
	}
}
