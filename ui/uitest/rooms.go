package uitest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// The rooms' goldens render each room alone from one fleet, as the root would hand it over.

// Now is the fixed clock of the rooms' goldens: the root's testNow.
var Now = time.Date(2025, 6, 1, 12, 0, 5, 0, time.UTC)

// Tokens as the Redlock client makes them.
const (
	tokA = "q3VqG8cT1ZpXh0sQm4RkWc2YbLe"
	tokB = "Zx9LmPq2Rt7Vw0Yb3Nc5Hd8Jf1K"
	tokD = "Hk7Tg2Qp9Wx4Lm1Zc6Vb3Nr8Sd5"
)

// cell is a key holding token with pttl on one master; absent is a master without the key.
func cell(token string, pttl time.Duration) monitor.MasterLock {
	return monitor.MasterLock{State: monitor.CellSeen, Token: token, PTTL: pttl, ReadAt: Now}
}

var absent = monitor.MasterLock{State: monitor.CellAbsent}

// Fleet is three masters, the third down, with a lock held on a quorum, one split between two tokens and one
// half acquired: every state the panels and views tell apart.
func Fleet() monitor.Snapshot {
	ms := make([]monitor.MasterStatus, 3)
	for i := range ms {
		ms[i] = monitor.MasterStatus{Addr: fmt.Sprintf("10.0.0.%d:6379", i+1), Up: true, Role: "master",
			RTT: time.Duration(300+i*40) * time.Microsecond, RTTSmoothed: 320 * time.Microsecond, Version: "7.2.4",
			Uptime: time.Duration(i+2) * time.Hour, Keys: 3, Refresh: monitor.RefreshTracking}
	}
	ms[2] = monitor.MasterStatus{Addr: ms[2].Addr, Down: true, Missed: 3, Uptime: monitor.UnknownUptime, Replicas: -1,
		Role: "unknown", Err: "dial tcp 10.0.0.3:6379: connect: connection refused"}
	unknown := monitor.MasterLock{State: monitor.CellUnknown}
	held := monitor.LockView{Resource: "billing:invoice:42", State: monitor.StateHeld, Holder: tokA, Count: 2,
		Masters:   []monitor.MasterLock{cell(tokA, 8*time.Second), cell(tokA, 8*time.Second), unknown},
		FirstSeen: Now.Add(-90 * time.Second)}
	held.SetValidity(Now, 7500*time.Millisecond)
	split := monitor.LockView{Resource: "ledger:settle", State: monitor.StateSplit, Count: 1,
		Masters:   []monitor.MasterLock{cell(tokA, 4*time.Second), cell(tokB, 6*time.Second), unknown},
		FirstSeen: Now.Add(-30 * time.Second)}
	partial := monitor.LockView{Resource: "cache:warmup", State: monitor.StatePartial, Count: 1,
		Masters: []monitor.MasterLock{cell(tokD, 4*time.Second), absent, unknown}, FirstSeen: Now.Add(-5 * time.Second)}
	return monitor.Snapshot{Seq: 42, Time: Now, Quorum: 2, UpCount: 2, Servers: 3, Masters: ms, Swept: true,
		Locks: monitortest.Views([]monitor.LockView{held, split, partial}),
		Warnings: []monitor.Warning{{Severity: monitor.SeverityWarning, Kind: monitor.WarnMasterDown,
			Master: "10.0.0.3:6379", Text: "down: connection refused"}}}
}

// Shared is the program context as the root makes it, with the real keys, the fixed clock, the ASCII colour
// profile and s ingested as the root ingests a snapshot.
func Shared(s monitor.Snapshot) *kit.Shared {
	lipgloss.SetColorProfile(termenv.Ascii)
	keys := KeyMap()
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &keys, Now: func() time.Time { return Now },
		Log: &kit.Journal{}, Clipboard: func(string) {}}
	sh.Data, _ = kit.Ingest(s, nil)
	return sh
}

// CheckBox fails unless view is h lines of w columns, without escape sequences.
func CheckBox(t testing.TB, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d:\n%s", len(lines), h, view)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("line %d is %d columns wide, want %d: %q", i, lw, w, l)
		}
	}
	if strings.Contains(view, "\x1b") {
		t.Errorf("an ASCII screen holds escape sequences: %q", view)
	}
}
