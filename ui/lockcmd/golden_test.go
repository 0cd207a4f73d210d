package lockcmd_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/lockcmd"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// now is the fixed clock of the goldens: the root's testNow.
var now = time.Date(2025, 6, 1, 12, 0, 5, 0, time.UTC)

// Tokens as the Redlock client makes them.
const (
	tokA = "q3VqG8cT1ZpXh0sQm4RkWc2YbLe"
	tokB = "Zx9LmPq2Rt7Vw0Yb3Nc5Hd8Jf1K"
	tokD = "Hk7Tg2Qp9Wx4Lm1Zc6Vb3Nr8Sd5"
)

// cell is a key holding token with pttl on one master; absent is a master without the key.
func cell(token string, pttl time.Duration) monitor.MasterLock {
	return monitor.MasterLock{State: monitor.CellSeen, Token: token, PTTL: pttl, ReadAt: now}
}

var absent = monitor.MasterLock{State: monitor.CellAbsent}

// fleet is three masters, the third down, with a lock held on a quorum, one split between two tokens and one
// half acquired: every state the two panels tell apart.
func fleet() monitor.Snapshot {
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
		FirstSeen: now.Add(-90 * time.Second)}
	held.SetValidity(now, 7500*time.Millisecond)
	split := monitor.LockView{Resource: "ledger:settle", State: monitor.StateSplit, Count: 1,
		Masters:   []monitor.MasterLock{cell(tokA, 4*time.Second), cell(tokB, 6*time.Second), unknown},
		FirstSeen: now.Add(-30 * time.Second)}
	partial := monitor.LockView{Resource: "cache:warmup", State: monitor.StatePartial, Count: 1,
		Masters: []monitor.MasterLock{cell(tokD, 4*time.Second), absent, unknown}, FirstSeen: now.Add(-5 * time.Second)}
	return monitor.Snapshot{Seq: 42, Time: now, Quorum: 2, UpCount: 2, Servers: 3, Masters: ms, Swept: true,
		Locks: monitortest.Views([]monitor.LockView{held, split, partial}),
		Warnings: []monitor.Warning{{Severity: monitor.SeverityWarning, Kind: monitor.WarnMasterDown,
			Master: "10.0.0.3:6379", Text: "down: connection refused"}}}
}

// shared is the program context as the root makes it, with the real keys, the fixed clock, the ASCII colour
// profile and s ingested as the root ingests a snapshot.
func shared(s monitor.Snapshot) *kit.Shared {
	lipgloss.SetColorProfile(termenv.Ascii)
	keys := uitest.KeyMap()
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &keys, Now: func() time.Time { return now },
		Log: &kit.Journal{}, Clipboard: func(string) {}}
	sh.Data, _ = kit.Ingest(s, nil)
	return sh
}

// TestMain silences go-redis's log of failed dials: the idle locker's absent masters cause them on purpose.
func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{})
	os.Exit(m.Run())
}

// quietLogger discards go-redis's log lines.
type quietLogger struct{}

// Printf discards the line.
func (quietLogger) Printf(context.Context, string, ...any) {}

// idleLocker is a Redlock client whose masters are never dialled (clients connect lazily): the write keys
// need one to act, and no test using it sends a command.
func idleLocker(t *testing.T) *redlock.Client {
	var clients []*redis.Client
	for i := range 3 {
		c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", 1+i), ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = c.Close() })
		clients = append(clients, c)
	}
	l, err := redlock.New(clients)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// press is the key a user types: a rune, or a named key.
func press(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// opened runs key k on the lock commands and returns the modal they ask the root to open.
func opened(t *testing.T, sh *kit.Shared, ops *lockcmd.LockOps, k string) kit.Modal {
	t.Helper()
	sh.Outbox = nil
	ops.Run(press(k))
	for _, msg := range sh.Outbox {
		if o, ok := msg.(kit.OpenModalMsg); ok {
			o.M.SetSize(80, 24)
			return o.M
		}
	}
	t.Fatalf("%s opened no dialog; told %#v", k, sh.Outbox)
	return nil
}

// typeInto hands m each key in turn.
func typeInto(m kit.Modal, keys ...string) {
	for _, k := range keys {
		m.Update(press(k))
	}
}

// TestGoldenAcquireForm renders the acquire form the acquire key opens (through the lock commands' own key
// table, with a Redlock client), as the dialog the root draws over the panels: typed, with a TTL refused
// (the form's answer to enter), and running, its request started.
func TestGoldenAcquireForm(t *testing.T) {
	sh := shared(fleet())
	ops := lockcmd.NewLockOps(sh, idleLocker(t), nil, context.Background(), false, 10*time.Second)
	for _, tc := range []struct {
		name string
		keys []string
		msgs []tea.Msg
		want string
	}{
		{"typed", []string{"o", "r", "d", "e", "r", "s", ":", "7"}, nil, "enter acquire"},
		{"ttl_refused", []string{"o", "r", "d", "e", "r", "s", ":", "7", "tab", "backspace", "backspace",
			"backspace", "4", "8", "h", "enter"}, nil, "the TTL must be at most 24h"},
		{"running", []string{"o", "r", "d", "e", "r", "s", ":", "7"},
			[]tea.Msg{kit.AcquireStartedMsg{Req: 1, Started: now.Add(-2 * time.Second)}}, "acquiring… 2.0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := opened(t, sh, ops, "a")
			if _, ok := f.(*lockcmd.AcquireForm); !ok {
				t.Fatalf("the acquire key opened a %T", f)
			}
			typeInto(f, tc.keys...)
			for _, msg := range tc.msgs {
				f.Update(msg)
			}
			view := f.View()
			if !strings.Contains(view, "orders:7") || !strings.Contains(view, tc.want) {
				t.Errorf("the form lacks orders:7 or %q:\n%s", tc.want, view)
			}
			if strings.Contains(view, "\x1b") {
				t.Errorf("an ASCII screen holds escape sequences: %q", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestGoldenDeleteConfirm renders the force-delete confirmation that Delete opens on the split lock selected
// in the locks panel: the tokens it would delete, with how many masters hold each, and the name to type.
func TestGoldenDeleteConfirm(t *testing.T) {
	sh := shared(fleet())
	ops := lockcmd.NewLockOps(sh, idleLocker(t), nil, context.Background(), false, 10*time.Second)
	var row *kit.LockRow
	for _, r := range sh.Data.Locks {
		if r.Name == "ledger:settle" {
			row = r
		}
	}
	ops.Update(kit.StateMsg{Mode: kit.Mode{Focus: kit.FocusLocks}, Row: row})
	c := opened(t, sh, ops, "D")
	typeInto(c, "l", "e", "d")
	view := c.View()
	if !strings.Contains(view, "ledger:settle") || !strings.Contains(view, "on 1 master") {
		t.Errorf("the confirmation lacks the lock or its tokens:\n%s", view)
	}
	golden.RequireEqual(t, []byte(view))
}
