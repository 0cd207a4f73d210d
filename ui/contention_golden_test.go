package ui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// contentionEvery is the poll interval of the contention story.
const contentionEvery = 5 * time.Second

// contentionPolls is how many polls the story has: fifteen minutes of them, the whole default window.
const contentionPolls = int(monitor.DefaultHistory/contentionEvery) + 1

// storyToken is the n-th holder's token, in redsync's shape: its first seven characters, which the screens show, differ.
func storyToken(n int) string { return fmt.Sprintf("%04x%04xc0ffee2b8e4d1A==", n*7919%65536, n) }

// hotHolder is who holds orders:hot at poll p (0 the first), on how many of the three masters: holders of 30s
// with a free poll between them for five minutes; then one whose quorum is lost (one master keeps its key for
// four polls); holders of 15s back to back; and a new one at every poll in the last minute.
func hotHolder(p int) (token string, on int) {
	switch {
	case p < 60 && p%6 == 5:
		return "", 0
	case p < 60:
		return storyToken(p / 6), 3
	case p < 64:
		return storyToken(10), 3
	case p < 68:
		return storyToken(10), 1
	case p < 90:
		return "", 0
	case p < contentionPolls-13:
		return storyToken(20 + p/3), 3
	}
	return storyToken(200 + p), 3
}

// contentionSnapshot is three masters watched for fifteen minutes (a poll every 5s) with orders:hot changing
// hands as hotHolder says, reports:warm changing every 20s in the last two minutes, and billing:cool held by one
// holder throughout, aggregated by the monitor from raw readings.
func contentionSnapshot() monitor.Snapshot {
	var prev *monitor.Snapshot
	var s monitor.Snapshot
	for p := range contentionPolls {
		at := testNow.Add(-time.Duration(contentionPolls-1-p) * contentionEvery)
		hot, on := hotHolder(p)
		warm := storyToken(500)
		if p > contentionPolls-25 {
			warm = storyToken(500 + p/4)
		}
		rs := make([]monitor.Reading, 3)
		for i := range rs {
			keys := []monitor.KeyReading{seenAt(at, "billing:cool", storyToken(900), 30*time.Second),
				seenAt(at, "reports:warm", warm, 30*time.Second)}
			if hot != "" && i < on {
				keys = append(keys, seenAt(at, "orders:hot", hot, 30*time.Second))
			} else {
				keys = append(keys, absentKey("orders:hot"))
			}
			rs[i] = reading(i, at, keys...)
		}
		s = monitor.Aggregate(prev, rs, nil, at, monitor.Config{})
		prev = &s
	}
	return s
}

func TestContentionGolden(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		keys keySeq
	}{
		{"heat_sort_80x24", 80, 24, keys("H")},
		{"hot_drilldown_timeline_80x24", 80, 24, keys("H", "g", "enter", "G")},
		{"hot_drilldown_timeline_160x50", 160, 50, keys("H", "g", "enter", "G")},
		{"locks_sparkline_120x30", 120, 30, keys("T")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := goldenScreen(t, contentionSnapshot(), tc.w, tc.h, tc.keys)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestHeatSortPutsTheHottestFirstAndMarksIt: H sorts by handovers in the last minute, marks the hot lock, and
// H again sorts by resource.
func TestHeatSortPutsTheHottestFirstAndMarksIt(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 40)
	m.Update(ui.SnapshotMsg{Snapshot: contentionSnapshot()})
	order := func() []string {
		var names []string
		for _, line := range strings.Split(m.View(), "\n") {
			for _, r := range []string{"orders:hot", "reports:warm", "billing:cool"} {
				if strings.Contains(line, r+" ") && strings.Contains(line, "held") {
					names = append(names, r)
				}
			}
		}
		return names
	}
	if got := strings.Join(order(), " "); got != "billing:cool orders:hot reports:warm" {
		t.Fatalf("rows by resource: %s", got)
	}
	m.Update(keyMsg("H"))
	view := m.View()
	if got := strings.Join(order(), " "); got != "orders:hot reports:warm billing:cool" {
		t.Errorf("rows by heat: %s, want orders:hot (12 in the last minute), reports:warm (3), billing:cool (0)", got)
	}
	if !strings.Contains(view, "sort heat") || strings.Count(view, "▲") != 1 {
		t.Errorf("the title does not say the sort, or the hot lock alone is not marked:\n%s", view)
	}
	m.Update(keyMsg("H"))
	if got := strings.Join(order(), " "); got != "billing:cool orders:hot reports:warm" {
		t.Errorf("H again: %s, want by resource", got)
	}
	// H says hottest first, and means it after S reversed the order before (issue 34: S then H sorted coldest
	// first).
	m.Update(keyMsg("S"))
	m.Update(keyMsg("H"))
	if got := strings.Join(order(), " "); got != "orders:hot reports:warm billing:cool" || strings.Contains(m.View(), "reversed") {
		t.Errorf("S then H: %s, want hottest first, not reversed:\n%s", got, m.View())
	}
}

// TestCtrlSWritesTheReportOfTheLocksShown: the report key writes the Markdown report of the snapshot on screen,
// with the locks the filter shows, to a new file in the working directory, says where, and never overwrites.
func TestCtrlSWritesTheReportOfTheLocksShown(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	d := drive(t, newDashboard(ui.Options{}, 200, 40)) // wide enough for the path on the status line
	d.update(ui.SnapshotMsg{Snapshot: contentionSnapshot()})
	d.press("/")
	d.typeText("orders")
	d.press("enter")
	d.update(tea.KeyMsg{Type: tea.KeyCtrlS})
	path := filepath.Join(dir, "redlock-report-20250601-120005.md")
	d.waitView("report written to " + path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	if !strings.Contains(report, "| orders:hot | held |") || strings.Contains(report, "billing:cool") ||
		!strings.Contains(report, "locks matching /orders") || !strings.Contains(report, "12.0, 3.3") {
		t.Errorf("the report is not of the locks shown, with their heat:\n%s", report)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the report names lock tokens: mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
}

// TestEverySaveOfTheReportWritesANewPrivateFile: saves in the same second (one snapshot on screen) each write
// a file of their own, -2, -3 after the first name, mode 0600 (the report names lock tokens), never over an
// existing file nor through a symbolic link planted at the next name.
func TestEverySaveOfTheReportWritesANewPrivateFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(elsewhere, filepath.Join(dir, "redlock-report-20250601-120005-2.md")); err != nil {
		t.Fatal(err)
	}
	d := drive(t, newDashboard(ui.Options{}, 200, 40))
	d.update(ui.SnapshotMsg{Snapshot: contentionSnapshot()})
	for _, name := range []string{"redlock-report-20250601-120005.md", "redlock-report-20250601-120005-3.md",
		"redlock-report-20250601-120005-4.md"} {
		d.update(tea.KeyMsg{Type: tea.KeyCtrlS})
		path := filepath.Join(dir, name)
		d.waitView("report written to " + path)
		info, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v; the report names lock tokens, want a regular file of mode 0600", name, info.Mode())
		}
	}
	if _, err := os.Lstat(elsewhere); err == nil {
		t.Errorf("a save wrote through the symbolic link at the -2 name")
	}
}

// TestATimelineHolderIsPickedAndItsTokenCopied: [ picks the newest holder on the lock's timeline, again an older
// one, ] a newer one; Y copies the one picked.
func TestATimelineHolderIsPickedAndItsTokenCopied(t *testing.T) {
	d := drive(t, newDashboard(ui.Options{}, 120, 40))
	d.update(ui.SnapshotMsg{Snapshot: contentionSnapshot()})
	d.press("H", "g", "enter", "G")
	newest, before := storyToken(200+contentionPolls-1), storyToken(200+contentionPolls-2)
	d.press("[")
	d.waitView("picked     X " + newest[:7] + "… from 12:00:05 holds it now")
	d.press("[")
	d.waitView("picked     W " + before[:7] + "… from 12:00:00 to 12:00:05 (5.0s): taken-over")
	d.press("Y")
	d.waitView("copied the token of holder " + before[:7])
	d.press("]", "]")
	if strings.Contains(d.m.View(), "picked ") {
		t.Errorf("] past the newest still picks a holder:\n%s", d.m.View())
	}
}

// goldenScreen is the screen of a dashboard of w by h (with an idle Redlock client) handed s and then keys,
// checked to fit: what the golden tests compare with their files.
func goldenScreen(t *testing.T, s monitor.Snapshot, w, h int, keys keySeq) string {
	t.Helper()
	m := newDashboard(ui.Options{Locker: idleLocker(t)}, w, h)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	tm.Send(ui.SnapshotMsg{Snapshot: s})
	for _, k := range keys {
		tm.Send(k)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	view := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
	checkScreen(t, view, w, h)
	return view
}
