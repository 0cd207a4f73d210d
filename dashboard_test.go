package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui"
)

// testNow is the fixed clock of the screen tests.
var testNow = time.Date(2025, 6, 1, 12, 0, 5, 0, time.UTC)

// Tokens as the Redlock client makes them (27 characters of URL-safe base64).
const (
	tokA = "q3VqG8cT1ZpXh0sQm4RkWc2YbLe"
	tokB = "Zx9LmPq2Rt7Vw0Yb3Nc5Hd8Jf1K"
	tokC = "Ab4De6Gh8Jk0Mn2Pq4St6Vw8Yz0"
	tokD = "Hk7Tg2Qp9Wx4Lm1Zc6Vb3Nr8Sd5"
)

// idleLocker is a Redlock client whose masters are never dialled (clients connect lazily): screens that show
// the write keys need one, and no test using it sends a command.
func idleLocker(t testing.TB) *redlock.Client {
	var clients []*redis.Client
	for i := range 3 {
		c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", 1+i)})
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

// newDashboard returns a dashboard with the real key bindings, the fixed clock and the ASCII colour profile,
// sized w by h.
func newDashboard(o ui.Options, w, h int) *ui.Model {
	lipgloss.SetColorProfile(termenv.Ascii)
	o.Keys = newKeyMap()
	if o.Now == nil {
		o.Now = func() time.Time { return testNow }
	}
	if o.Title == "" {
		o.Title = "3 masters"
	}
	m := ui.New(o)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// mastersUp returns n healthy masters with fixed health figures; the ones listed in down are down.
func mastersUp(n int, down ...int) []monitor.MasterStatus {
	ms := make([]monitor.MasterStatus, n)
	for i := range ms {
		ms[i] = monitor.MasterStatus{
			Addr: fmt.Sprintf("10.0.0.%d:6379", i+1), Up: true,
			RTT: time.Duration(300+i*40) * time.Microsecond, RTTSmoothed: 320 * time.Microsecond,
			ClockKnown: true, ClockOffset: time.Duration(i*700-300) * time.Microsecond,
			ClockUncertainty: 150 * time.Microsecond, DriftKnown: true, DriftPPM: float64(i*3 - 2),
			Role: "master", Version: "7.2.4", RunID: fmt.Sprintf("run%d", i), Uptime: time.Duration(i+2) * time.Hour,
			Replicas: 0, Keys: 5,
		}
	}
	for _, i := range down {
		ms[i] = monitor.MasterStatus{Addr: ms[i].Addr, Err: "dial tcp " + ms[i].Addr + ": connect: connection refused",
			Uptime: monitor.UnknownUptime, Replicas: -1, Role: "unknown"}
	}
	return ms
}

// on is a key holding token with the given PTTL on one master.
func on(token string, pttl time.Duration) monitor.MasterLock {
	return monitor.MasterLock{Present: true, Token: token, PTTL: pttl}
}

// none is a master without the key; gone is a master that is down.
var (
	none = monitor.MasterLock{}
	gone = monitor.MasterLock{Down: true}
)

// lockOf builds a lock view the way the monitor classifies it: held when a token is on a quorum of masters.
func lockOf(resource string, quorum int, validity time.Duration, cells ...monitor.MasterLock) monitor.LockView {
	counts := map[string]int{}
	for _, c := range cells {
		if c.Present {
			counts[c.Token]++
		}
	}
	lead, best := "", 0
	for t, n := range counts {
		if n > best || n == best && t < lead {
			lead, best = t, n
		}
	}
	lv := monitor.LockView{Resource: resource, Masters: cells, Count: best, HeldSince: testNow.Add(-90 * time.Second)}
	switch {
	case best >= quorum:
		lv.State, lv.Holder, lv.Validity, lv.Foreign = monitor.StateHeld, lead, validity, len(counts) > 1
		lv.TTLSpread = 3 * time.Millisecond
	case len(counts) == 1:
		lv.State = monitor.StatePartial
	default:
		lv.State = monitor.StateSplit
	}
	return lv
}

// snapshotOf assembles a snapshot at testNow.
func snapshotOf(ms []monitor.MasterStatus, warnings []monitor.Warning, locks ...monitor.LockView) monitor.Snapshot {
	up := 0
	for _, m := range ms {
		if m.Up {
			up++
		}
	}
	return monitor.Snapshot{Seq: 42, Time: testNow, Quorum: len(ms)/2 + 1, UpCount: up, Masters: ms, Locks: locks,
		Warnings: warnings}
}

// normalSnapshot is three healthy masters and a few locks in every state but lost.
func normalSnapshot() monitor.Snapshot {
	s := 1 * time.Second
	billing := lockOf("billing:invoice:42", 2, 7500*time.Millisecond, on(tokA, 8*s), on(tokA, 8*s), on(tokA, 8*s))
	billing.Changes, billing.LastChange = 2, testNow.Add(-90*time.Second)
	mine := lockOf("jobs:nightly-report", 2, 25*s, on(tokC, 26*s), on(tokC, 26*s), on(tokC, 26*s))
	mine.Mine = true
	return snapshotOf(mastersUp(3), nil,
		billing,
		lockOf("cache:warmup", 2, 0, on(tokD, 4*s), none, none),
		mine,
		lockOf("orders:7", 2, 2100*time.Millisecond, on(tokB, 3*s), none, on(tokB, 3*s)),
	)
}

// splitSnapshot adds a lock split three ways and a held lock with a stray token.
func splitSnapshot() monitor.Snapshot {
	s := normalSnapshot()
	split := lockOf("ledger:settle", 2, 0, on(tokA, 4*time.Second), on(tokB, 6*time.Second), on(tokD, 2*time.Second))
	split.Changes = 5
	stray := lockOf("orders:7", 2, 2100*time.Millisecond, on(tokB, 3*time.Second), on(tokC, 9*time.Second),
		on(tokB, 3*time.Second))
	s.Locks = []monitor.LockView{s.Locks[0], s.Locks[1], s.Locks[2], split, stray}
	s.Warnings = []monitor.Warning{{Severity: monitor.SeverityWarning, Kind: monitor.WarnForeignTokens,
		Text: `lock "orders:7" is held but another token is on 10.0.0.2:6379`}}
	s.Events = []monitor.Event{{Time: testNow.Add(-time.Second), Kind: monitor.EventLockSplit,
		Resource: "ledger:settle", Text: "no token on a quorum: 3 tokens"}}
	return s
}

// masterDownSnapshot has the second master down.
func masterDownSnapshot() monitor.Snapshot {
	s := 1 * time.Second
	return snapshotOf(mastersUp(3, 1), []monitor.Warning{{Severity: monitor.SeverityWarning,
		Kind: monitor.WarnMasterDown, Master: "10.0.0.2:6379", Text: "down: connection refused"}},
		lockOf("billing:invoice:42", 2, 7500*time.Millisecond, on(tokA, 8*s), gone, on(tokA, 8*s)),
		lockOf("orders:7", 2, 0, on(tokB, 3*s), gone, none),
	)
}

// noQuorumSnapshot has two of three masters down.
func noQuorumSnapshot() monitor.Snapshot {
	s := 1 * time.Second
	return snapshotOf(mastersUp(3, 1, 2), []monitor.Warning{
		{Severity: monitor.SeverityWarning, Kind: monitor.WarnMasterDown, Master: "10.0.0.2:6379", Text: "down"},
		{Severity: monitor.SeverityWarning, Kind: monitor.WarnMasterDown, Master: "10.0.0.3:6379", Text: "down"},
		{Severity: monitor.SeverityError, Kind: monitor.WarnQuorumDown,
			Text: "1 of 3 masters up, quorum needs 2: no lock can be acquired or extended"},
	},
		lockOf("billing:invoice:42", 2, 0, on(tokA, 8*s), gone, gone),
	)
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		o    ui.Options
		w, h int
		msgs []tea.Msg
	}{
		{"normal", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}}},
		{"normal_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}}},
		{"split_lock", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: splitSnapshot()},
			keys("j", "j", "j")}},
		{"master_down", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: masterDownSnapshot()}}},
		{"no_quorum", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: noQuorumSnapshot()}}},
		{"read_only", ui.Options{ReadOnly: true}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}}},
		{"help_open", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}, keys("?")}},
		{"tiny", ui.Options{}, 40, 10, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Locker = idleLocker(t)
			m := newDashboard(tc.o, tc.w, tc.h)
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(tc.w, tc.h))
			for _, msg := range tc.msgs {
				if batch, ok := msg.(keySeq); ok {
					for _, k := range batch {
						tm.Send(k)
					}
					continue
				}
				tm.Send(msg)
			}
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
			view := final.View()
			checkScreen(t, view, tc.w, tc.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// keySeq is a sequence of key presses for the golden tests.
type keySeq []tea.KeyMsg

// keys turns key names into a key sequence.
func keys(names ...string) keySeq {
	seq := make(keySeq, len(names))
	for i, n := range names {
		seq[i] = keyMsg(n)
	}
	return seq
}

// keyMsg is the key message for a key name: a special key (enter, esc, tab, arrows, ...) or one character.
func keyMsg(name string) tea.KeyMsg {
	special := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome,
		"end": tea.KeyEnd, "backspace": tea.KeyBackspace, "ctrl+c": tea.KeyCtrlC, "ctrl+u": tea.KeyCtrlU,
	}
	if t, ok := special[name]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// checkScreen fails unless view is exactly h lines of exactly w cells, free of control characters.
func checkScreen(t testing.TB, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("the screen is %d lines high, want %d:\n%s", len(lines), h, view)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i+1, got, w, l)
		}
		for _, r := range ansi.Strip(l) {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("line %d holds control character %U: %q", i+1, r, l)
			}
		}
	}
}
