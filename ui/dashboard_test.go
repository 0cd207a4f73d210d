package ui_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
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

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
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

// newDashboard returns a dashboard with the real key bindings, the fixed clock and the ASCII colour profile,
// sized w by h.
func newDashboard(o ui.Options, w, h int) *ui.Model {
	lipgloss.SetColorProfile(termenv.Ascii)
	o.Keys = uitest.KeyMap()
	if o.Now == nil {
		o.Now = func() time.Time { return testNow }
	}
	if o.Title == "" {
		o.Title = "3 masters"
	}
	if o.Clipboard == nil {
		o.Clipboard = func(string) {} // not the test's terminal
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
			Replicas: 0, Keys: 5, Refresh: monitor.RefreshTracking,
		}
	}
	for _, i := range down {
		ms[i] = monitor.MasterStatus{Addr: ms[i].Addr, Down: true, Missed: 3, Err: "dial tcp " + ms[i].Addr + ": connect: connection refused",
			Uptime: monitor.UnknownUptime, Replicas: -1, Role: "unknown"}
	}
	return ms
}

// on is a key holding token with the given PTTL on one master.
func on(token string, pttl time.Duration) monitor.MasterLock {
	return monitor.MasterLock{State: monitor.CellSeen, Token: token, PTTL: pttl, ReadAt: testNow}
}

// none is a master without the key; gone is a master that did not answer.
var (
	none = monitor.MasterLock{State: monitor.CellAbsent}
	gone = monitor.MasterLock{State: monitor.CellUnknown}
)

// lockOf builds a lock view the way the monitor classifies it: held when a token is on a quorum of masters.
func lockOf(resource string, quorum int, validity time.Duration, cells ...monitor.MasterLock) monitor.LockView {
	counts := map[string]int{}
	for _, c := range cells {
		if c.Present() {
			counts[c.Token]++
		}
	}
	lead, best := "", 0
	for t, n := range counts {
		if n > best || n == best && t < lead {
			lead, best = t, n
		}
	}
	lv := monitor.LockView{Resource: resource, Masters: cells, Count: best, FirstSeen: testNow.Add(-90 * time.Second)}
	switch {
	case best >= quorum:
		lv.State, lv.Holder, lv.Foreign = monitor.StateHeld, lead, len(counts) > 1
		lv.SetValidity(testNow, validity)
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
	return monitor.Snapshot{Seq: 42, Time: testNow, Quorum: len(ms)/2 + 1, UpCount: up, Servers: len(ms), Masters: ms, Locks: monitortest.Views(locks),
		Warnings: warnings, Swept: true}
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
	s.Locks = []*monitor.LockView{s.Locks[0], s.Locks[1], s.Locks[2], &split, &stray}
	s.Warnings = []monitor.Warning{{Severity: monitor.SeverityWarning, Kind: monitor.WarnForeignTokens,
		Text: `lock "orders:7" is held but another token is on 10.0.0.2:6379`}}
	s.Events = []monitor.Event{{Time: testNow.Add(-time.Second), Kind: monitor.EventLockSplit,
		Resource: "ledger:settle", Text: "no token on a quorum: 3 tokens"}}
	return s
}

// longToken is a 40-character token, as redsync and node-redlock write them (hex or base64 of 20+ bytes): too
// long for a table cell, and what an operator must read in full before deleting.
const longToken = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"

// longTokenSnapshot has a lock held by the long token, and a stray other token on the third master.
func longTokenSnapshot() monitor.Snapshot {
	s := time.Second
	lv := lockOf("payments:settlement:2025-06-01", 2, 9*s, on(longToken, 10*s), on(longToken, 10*s),
		on(tokB, 4*s))
	lv.Family = "redsync"
	lv.Fence = 1207
	return snapshotOf(mastersUp(3), nil, lv)
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

// prodProfileOptions are the dashboard's options as main gives them for a production profile: read-only.
var prodProfileOptions = ui.Options{Profile: "prod-eu", ProfileColor: "#ff5f5f", Production: true, ReadOnly: true}

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
		{"master_not_answering", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: silentMasterSnapshot()}}},
		{"stuck_lock", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: stuckSnapshot()}, keys("j")}},
		{"quorum_lost", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: quorumLostSnapshot()}}},
		{"quorum_unconfirmed", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: quorumUnconfirmedSnapshot()}}},
		{"quorum_unconfirmed_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: quorumUnconfirmedSnapshot()}}},
		{"sweep_in_progress", ui.Options{}, 120, 36, []tea.Msg{ui.SnapshotMsg{Snapshot: sweepingSnapshot()}}},
		{"lock_drilldown_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: longTokenSnapshot()},
			keys("enter")}},
		{"master_drilldown_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: masterDownSnapshot()},
			keys("shift+tab", "j", "enter")}},
		{"help_scrolled_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()},
			keys("?", "pgdown")}},
		{"event_log_search_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: eventfulSnapshot()},
			keys("tab", "tab", "/", "r", "3")}},
		{"force_delete_wrapped_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: longTokenSnapshot()},
			keys("D")}},
		{"profile_production_80x24", prodProfileOptions, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}}},
		{"profile_production_120x40", prodProfileOptions, 120, 40, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}}},
		{"refresh_modes_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: refreshModesSnapshot()}}},
		// Issue 34's first screen: the header is the worst of what is shown; each master's own error first, the
		// selected one's whole with its next step.
		{"unreachable_masters_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: unreachableSnapshot()}}},
		{"unreachable_masters_120x40", ui.Options{}, 120, 40, []tea.Msg{ui.SnapshotMsg{Snapshot: unreachableSnapshot()}}},
		{"unreachable_masters_second_selected_80x24", ui.Options{}, 80, 24, []tea.Msg{
			ui.SnapshotMsg{Snapshot: unreachableSnapshot()}, keys("shift+tab", "j")}},
		{"restarted_master_80x24", ui.Options{}, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: restartedSnapshot()}}},
		{"restarted_master_120x40", ui.Options{}, 120, 40, []tea.Msg{ui.SnapshotMsg{Snapshot: restartedSnapshot()}}},
		// Issue 34: a refusal is read to its way out, on the help's line while it is fresh.
		{"read_only_refusal_80x24", prodProfileOptions, 80, 24, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}, keys("a")}},
		{"read_only_refusal_120x40", prodProfileOptions, 120, 40, []tea.Msg{ui.SnapshotMsg{Snapshot: normalSnapshot()}, keys("a")}},
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
			if strings.Contains(view, "\x1b") {
				t.Errorf("a screen without colour (NO_COLOR, ASCII profile) holds escape sequences: %q", view)
			}
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

// driver runs a dashboard as Bubble Tea would, minus the terminal: keys and messages go through Update in the
// test's goroutine, commands run in their own goroutines and their messages come back through Update.
type driver struct {
	t    testing.TB
	m    *ui.Model
	msgs chan tea.Msg
	done chan struct{}
	quit bool
}

// drive starts a driver for m.
func drive(t testing.TB, m *ui.Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	t.Cleanup(func() { close(d.done) })
	return d
}

// exec runs a command in the background; its message, or each of a batch's, comes back to Update.
func (d *driver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.exec(c)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

// update hands msg to Update and runs the command it returns.
func (d *driver) update(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		d.quit = true
		return
	}
	_, cmd := d.m.Update(msg)
	d.exec(cmd)
}

// press presses keys by name.
func (d *driver) press(names ...string) {
	for _, n := range names {
		d.update(keyMsg(n))
	}
}

// typeText types s one character at a time.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// waitFor delivers messages until cond holds for the screen, failing after 10 seconds.
func (d *driver) waitFor(what string, cond func(view string) bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond(d.m.View()) {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, d.m.View())
		}
	}
}

// waitView waits until the screen shows text.
func (d *driver) waitView(text string) {
	d.t.Helper()
	d.waitFor(fmt.Sprintf("%q on screen", text), func(v string) bool { return strings.Contains(v, text) })
}

// cluster is three real masters (redis-server, or embedded ones where it is missing) with a Redlock client and
// a monitor over them.
type cluster struct {
	t       *testing.T
	clients []*redis.Client
	locker  *redlock.Client
	mon     *monitor.Monitor
	own     *monitor.Ownership // our locks, as the program keeps them: the monitor reads it, the dashboard writes it
}

// newCluster starts three masters.
func newCluster(t *testing.T, opts ...redlock.Option) *cluster {
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := make([]string, len(masters))
	for i, m := range masters {
		addrs[i] = m.Addr()
	}
	// A generous node timeout: the suite runs beside others under -race on two cores.
	opts = append([]redlock.Option{redlock.WithNodeTimeout(500 * time.Millisecond)}, opts...)
	locker, err := redlock.New(clients, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locker.Close)
	return watched(t, clients, addrs, locker, monitor.Config{})
}

// watched is the cluster of locker and a monitor reading clients with cfg, which share a register of our locks
// as the program wires them (internal/app's Watch).
func watched(t *testing.T, clients []*redis.Client, addrs []string, locker *redlock.Client, cfg monitor.Config) *cluster {
	own := monitor.NewOwnership()
	cfg.Owner = own
	mon, err := monitor.New(clients, addrs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mon.Observe(own.Settle)
	return &cluster{t: t, clients: clients, locker: locker, mon: mon, own: own}
}

// dashboard returns a driven dashboard over the cluster, with the real clock, sized 140 by 44.
func (c *cluster) dashboard(o ui.Options) *driver {
	o.Monitor, o.Locker, o.Ownership, o.Now = c.mon, c.locker, c.own, time.Now
	return drive(c.t, newDashboard(o, 140, 44))
}

// poll hands the dashboard a fresh snapshot.
func (c *cluster) poll(d *driver) {
	d.update(ui.SnapshotMsg{Snapshot: c.mon.Poll(context.Background())})
}

// values returns what each master holds for key ("" where absent).
func (c *cluster) values(key string) []string {
	c.t.Helper()
	out := make([]string, len(c.clients))
	for i, cl := range c.clients {
		v, err := cl.Get(context.Background(), key).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			c.t.Fatalf("GET %s on master %d: %v", key, i+1, err)
		}
		out[i] = v
	}
	return out
}

// set writes key=value with a TTL on the masters listed (all when none).
func (c *cluster) set(key, value string, ttl time.Duration, masters ...int) {
	c.t.Helper()
	if len(masters) == 0 {
		masters = []int{0, 1, 2}
	}
	for _, i := range masters {
		if err := c.clients[i].Set(context.Background(), key, value, ttl).Err(); err != nil {
			c.t.Fatal(err)
		}
	}
}

// acquire acquires resource through the form, with the default TTL, and waits for it.
func (d *driver) acquire(resource string) {
	d.t.Helper()
	d.submitAcquire(resource)
	d.waitView("acquired " + resource)
}

// submitAcquire opens the acquire form, types resource and submits it with the default TTL.
func (d *driver) submitAcquire(resource string) {
	d.t.Helper()
	d.press("a")
	d.typeText(resource)
	d.press("enter")
}

// heldEverywhere fails unless every master comes to hold the same token for key within a few seconds: a round
// is decided at quorum, so the last master's SET may still be on its way when the dashboard says "acquired".
func (c *cluster) heldEverywhere(key string) string {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		vals := c.values(key)
		same := true
		for _, v := range vals {
			same = same && v != "" && v == vals[0]
		}
		switch {
		case same:
			return vals[0]
		case time.Now().After(deadline):
			c.t.Fatalf("%s is not held with one token on every master: %q", key, vals)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// goneEverywhere fails unless no master holds key within a few seconds: a master whose release answer came
// late, on a loaded machine, is cleaned up in the background.
func (c *cluster) goneEverywhere(key string) {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := slices.IndexFunc(c.values(key), func(v string) bool { return v != "" })
		switch {
		case left < 0:
			return
		case time.Now().After(deadline):
			c.t.Fatalf("%s is still on master %d (%q)", key, left+1, c.values(key)[left])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAcquireExtendAutoExtendRelease(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{TTL: 10 * time.Second})

	d.submitAcquire("jobs:build")
	if v := d.m.View(); !strings.Contains(v, "acquiring") {
		t.Fatalf("no progress shown while acquiring:\n%s", v)
	}
	d.waitView("acquired jobs:build")
	token := c.heldEverywhere("jobs:build")

	c.poll(d)
	view := d.m.View()
	if !strings.Contains(view, "jobs:build") || !strings.Contains(view, "you") {
		t.Fatalf("the lock is not shown as ours in the locks panel:\n%s", view)
	}
	if !regexp.MustCompile(`ext 0\s+acquire [✓?]{3}`).MatchString(view) {
		t.Errorf("our locks panel does not show the acquire round's outcome per master:\n%s", view)
	}

	d.press("e") // the locks panel's cursor is on our lock: e applies to it
	d.waitView("extended jobs:build")
	if !strings.Contains(d.m.View(), "ext 1") {
		t.Errorf("the extension is not counted:\n%s", d.m.View())
	}

	d.press("tab") // to our locks
	d.press("x")
	d.waitView("auto-extend on for jobs:build")
	if !strings.Contains(d.m.View(), "auto-extending") {
		t.Errorf("auto-extension is not shown:\n%s", d.m.View())
	}
	d.press("x")
	d.waitView("auto-extend off for jobs:build")

	d.press("r")
	d.waitView("released jobs:build")
	c.goneEverywhere("jobs:build")
	if strings.Contains(d.m.View(), "Our locks 1") {
		t.Errorf("the released lock is still listed as ours:\n%s", d.m.View())
	}
	if got := c.values("jobs:build"); got[0] == token {
		t.Errorf("token still present: %q", got)
	}
}

func TestAcquireFailureShowsEachMastersOutcome(t *testing.T) {
	c := newCluster(t, redlock.WithRetries(1), redlock.WithRetryDelay(10*time.Millisecond, 20*time.Millisecond))
	c.set("busy", "someone-else", time.Minute, 0, 1)
	d := c.dashboard(ui.Options{})
	d.submitAcquire("busy")
	d.waitView("not acquired")
	view := d.m.View()
	for _, want := range []string{"M1 held by another token", "M2 held by another token", "after 2 attempts"} {
		if !strings.Contains(view, want) {
			t.Errorf("the failed acquire does not show %q:\n%s", want, view)
		}
	}
	if got := c.values("busy"); got[2] != "" {
		t.Errorf("the failed acquire left its key on master 3: %q", got)
	}
}

func TestAcquireKeepsTheScreenLiveAndCanBeCancelled(t *testing.T) {
	c := newCluster(t, redlock.WithRetries(1000), redlock.WithRetryDelay(50*time.Millisecond, 50*time.Millisecond))
	c.set("contended", "someone-else", time.Minute)
	d := c.dashboard(ui.Options{})
	d.submitAcquire("contended")
	d.waitView("acquiring…")

	s := noQuorumSnapshot() // the screen keeps following snapshots while the acquire retries
	s.Time = time.Now()
	d.update(ui.SnapshotMsg{Snapshot: s})
	if v := d.m.View(); !strings.Contains(v, "NO QUORUM") || !strings.Contains(v, "acquiring…") {
		t.Fatalf("a snapshot during the acquire was not shown:\n%s", v)
	}

	d.press("esc")
	d.waitView("acquire of contended cancelled; nothing held")
	if got := c.values("contended"); got[0] != "someone-else" || got[1] != "someone-else" || got[2] != "someone-else" {
		t.Errorf("the cancelled acquire touched the other holder's keys: %q", got)
	}
}

func TestAcquireShowsEachFailedRoundWhileRetrying(t *testing.T) {
	c := newCluster(t, redlock.WithRetries(1000), redlock.WithRetryDelay(20*time.Millisecond, 20*time.Millisecond))
	c.set("contended", "someone-else", time.Minute, 0, 1)
	d := c.dashboard(ui.Options{})
	d.submitAcquire("contended")
	d.waitView("round 2 failed")
	view := d.m.View()
	for _, want := range []string{"acquiring…", "M1 held by another token", "M2 held by another token"} {
		if !strings.Contains(view, want) {
			t.Errorf("the retrying acquire does not show %q:\n%s", want, view)
		}
	}
	for _, size := range [][2]int{{80, 24}, {64, 16}, {200, 60}} {
		d.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, d.m.View(), size[0], size[1])
	}
	d.press("esc")
	d.waitView("acquire of contended cancelled; nothing held")
}

func TestForceDeleteAsksForTheNameAndDeletesOnlyThatToken(t *testing.T) {
	c := newCluster(t)
	c.set("stale:lock", "crashed-holder", time.Minute)
	d := c.dashboard(ui.Options{})
	c.poll(d)

	d.press("D")
	d.waitView("Force-delete a lock that is not ours")
	d.typeText("stale:lok")
	d.press("enter")
	d.waitView("the name does not match: nothing deleted")
	c.heldEverywhere("stale:lock")

	d.press("ctrl+u")
	d.typeText("stale:lock")
	d.press("enter")
	d.waitView("force-delete stale:lock: 3 keys deleted")
	c.goneEverywhere("stale:lock")
}

// Observation 7 of issue 18: the dashboard's own force-delete is logged as a deletion by this dashboard, not
// as a release by the lock's holder.
func TestForceDeleteIsLoggedAsADeletionNotARelease(t *testing.T) {
	c := newCluster(t)
	c.set("stale:lock", "crashed-holder", time.Minute)
	d := c.dashboard(ui.Options{})
	c.poll(d)
	d.press("D")
	d.typeText("stale:lock")
	d.press("enter")
	d.waitView("force-delete stale:lock: 3 keys deleted")
	s := c.mon.Poll(context.Background())
	var kinds []string
	for _, e := range s.Events {
		if e.Resource == "stale:lock" {
			kinds = append(kinds, string(e.Kind)+": "+e.Text)
		}
	}
	if len(kinds) != 1 || !strings.HasPrefix(kinds[0], string(monitor.EventLockDeleted)+": ") {
		t.Errorf("events of the force-deleted lock: %q; want one deletion by this dashboard, not a release by its holder", kinds)
	}
}

func TestForceDeleteNeverTouchesANewerHolder(t *testing.T) {
	c := newCluster(t)
	c.set("stale:lock", "crashed-holder", time.Minute)
	d := c.dashboard(ui.Options{})
	c.poll(d)

	// The holder changes while the operator types: the confirmation is withdrawn.
	d.press("D")
	d.typeText("stale:lock")
	c.set("stale:lock", "new-holder", time.Minute)
	c.poll(d)
	d.waitView("the lock changed holder while you confirmed: nothing deleted")
	if c.heldEverywhere("stale:lock") != "new-holder" {
		t.Fatal("the new holder lost its lock")
	}

	// The holder changes after the confirmation went out: the delete names the old token only.
	c.set("stale:lock", "crashed-again", time.Minute)
	c.poll(d)
	d.press("D")
	d.typeText("stale:lock")
	_, cmd := d.m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("confirming issued no command")
	}
	c.set("stale:lock", "newest-holder", time.Minute)
	d.update(cmd())
	d.waitView("nothing deleted: no master held those tokens any more")
	if c.heldEverywhere("stale:lock") != "newest-holder" {
		t.Fatal("the delete removed a newer holder's key")
	}
}

func TestDeleteRefusesOurOwnLock(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{})
	d.acquire("mine")
	c.poll(d)
	d.press("D")
	d.waitView("delete: mine is ours: r releases it")
	c.heldEverywhere("mine")
}

func TestLateResultsApplyToTheLockTheyAnswer(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{})
	d.acquire("first")
	d.acquire("second")
	d.press("tab") // our locks, cursor on "first"

	// An extension issued for "first" arrives after the cursor moved to "second".
	_, extendFirst := d.m.Update(keyMsg("e"))
	if extendFirst == nil {
		t.Fatal("e issued no command")
	}
	d.press("down")
	d.update(extendFirst())
	d.waitView("extended first")
	for _, line := range strings.Split(d.m.View(), "\n") {
		line = ansi.Truncate(line, 70, "") // our locks panel only: the log beside it names both locks
		switch {
		case strings.Contains(line, "first") && strings.Contains(line, "ext "):
			if !strings.Contains(line, "ext 1") {
				t.Errorf("first's extension was not applied to it: %q", line)
			}
		case strings.Contains(line, "second") && strings.Contains(line, "ext "):
			if !strings.Contains(line, "ext 0") {
				t.Errorf("first's extension was applied to second: %q", line)
			}
		}
	}

	// An extension of "second" that arrives after "second" was released is not applied to anything.
	_, extendSecond := d.m.Update(keyMsg("e"))
	d.press("r")
	d.waitView("released second")
	d.update(extendSecond())
	d.waitView("extend result for second arrived after it was")
	if strings.Contains(d.m.View(), "Our locks 2") {
		t.Errorf("the late result brought second back:\n%s", d.m.View())
	}
	c.goneEverywhere("second")
	c.heldEverywhere("first")
}

// TestKeeperLossShowsTheLockLost: a lock the keeper finds gone or another's is shown lost, and the screen says
// how (issue 33: deleted or taken over, as redlock tells them).
func TestKeeperLossShowsTheLockLost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(c *redis.Client) error
		want  string
	}{
		{"deleted", func(c *redis.Client) error { return c.Del(context.Background(), "short").Err() }, "lost short: deleted"},
		{"taken over", func(c *redis.Client) error {
			return c.Set(context.Background(), "short", "someone-else", time.Minute).Err()
		}, "lost short: taken over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			d := c.dashboard(ui.Options{TTL: 900 * time.Millisecond})
			d.acquire("short")
			d.press("tab", "x")
			d.waitView("auto-extend on for short")
			for _, cl := range c.clients { // someone deletes or takes the key behind our back
				if err := tc.fault(cl); err != nil {
					t.Fatal(err)
				}
			}
			d.waitView("lost short")
			if view := d.m.View(); !strings.Contains(view, "LOST") || !strings.Contains(view, tc.want) {
				t.Errorf("the screen does not show the loss as LOST and say %q:\n%s", tc.want, view)
			}
		})
	}
}

func TestQuitReleasesOurLocks(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{})
	d.acquire("q:one")
	d.acquire("q:two")
	d.press("tab", "x")
	d.waitView("auto-extend on for q:one")
	d.press("q", "enter") // quitting while holding locks asks first
	d.waitFor("quit", func(string) bool { return d.quit })
	if got, want := d.m.Summary(), "released 2 locks; 0 still held"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	c.goneEverywhere("q:one")
	c.goneEverywhere("q:two")
}

func TestQuitWithoutLocks(t *testing.T) {
	for _, tc := range []struct {
		readOnly bool
		want     string
	}{{false, "no locks held"}, {true, "read-only: no locks taken"}} {
		m := newDashboard(ui.Options{ReadOnly: tc.readOnly, Locker: idleLocker(t)}, 100, 30)
		_, cmd := m.Update(keyMsg("ctrl+c"))
		if cmd == nil {
			t.Fatal("ctrl+c returned no command")
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("ctrl+c with no locks did not quit at once")
		}
		if got := m.Summary(); got != tc.want {
			t.Errorf("summary %q, want %q", got, tc.want)
		}
	}
}

func TestReadOnlyRefusesEveryWriteAndSaysWhy(t *testing.T) {
	c := newCluster(t)
	c.set("foreign", "someone-else", time.Minute)
	d := c.dashboard(ui.Options{ReadOnly: true})
	c.poll(d)
	tests := []struct{ key, want string }{
		{"a", "acquiring is disabled: the dashboard runs read-only"},
		{"e", "extending is disabled: the dashboard runs read-only"},
		{"r", "releasing is disabled: the dashboard runs read-only"},
		{"x", "auto-extending is disabled: the dashboard runs read-only"},
		{"D", "force-deleting is disabled: the dashboard runs read-only"},
	}
	for _, tc := range tests {
		_, cmd := d.m.Update(keyMsg(tc.key))
		if cmd != nil {
			t.Errorf("%s issued a command in read-only mode", tc.key)
		}
		view := d.m.View()
		if !strings.Contains(view, tc.want) {
			t.Errorf("%s: the screen does not say %q:\n%s", tc.key, tc.want, view)
		}
		if strings.Contains(view, "Acquire a lock") || strings.Contains(view, "Force-delete") {
			t.Errorf("%s opened a form in read-only mode", tc.key)
		}
	}
	footer := d.m.View()
	footer = footer[strings.LastIndex(footer, "\n"):]
	for _, hidden := range []string{"acquire", "delete", "release"} {
		if strings.Contains(footer, hidden) {
			t.Errorf("the help line offers %q in read-only mode: %q", hidden, footer)
		}
	}
	if got := c.values("foreign"); got[0] != "someone-else" {
		t.Errorf("read-only mode changed a key: %q", got)
	}
}

func TestWriteKeysExplainWhyTheyDoNothing(t *testing.T) {
	m := newDashboard(ui.Options{Locker: idleLocker(t)}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	tests := []struct{ keys, want string }{
		{"e", "extend: the selected lock is not ours"},
		{"r", "release: the selected lock is not ours"},
		{"x", "auto-extend: the selected lock is not ours"},
		{"tab e", "extend: we hold no lock"},
		{"tab D", "delete: select a lock in the locks panel first"},
	}
	for _, tc := range tests {
		m := newDashboard(ui.Options{Locker: idleLocker(t)}, 120, 36)
		m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
		var cmd tea.Cmd
		for _, k := range strings.Fields(tc.keys) {
			_, cmd = m.Update(keyMsg(k))
		}
		if cmd != nil {
			t.Errorf("%q issued a command", tc.keys)
		}
		if v := m.View(); !strings.Contains(v, tc.want) {
			t.Errorf("%q: the screen does not say %q:\n%s", tc.keys, tc.want, v)
		}
	}
}

// hostile is a key name that would clear the screen, retitle the terminal, break the line and reverse the text
// if it reached the terminal as it is.
const hostile = "evil\x1b[2J\x1b]0;pwned\x07\nname\u202e\u200bgnp.exe"

// hostileShown is how the dashboard shows it: escaped and marked.
const hostileShown = `‽evil\x1b[2J\x1b]0;pwned\a\nname\u202e\u200bgnp.exe`

func TestHostileKeyNameRendersEscaped(t *testing.T) {
	s := normalSnapshot()
	evil := lockOf(hostile, 2, 5*time.Second, on("tok\x1b[31m", 6*time.Second), on("tok\x1b[31m", 6*time.Second),
		none)
	s.Locks = append([]*monitor.LockView{&evil}, s.Locks...)
	s.Masters[2].Err, s.Masters[2].Up = "ERR \x1b[H\x1b[2Jgotcha\r\n", false
	s.Warnings = []monitor.Warning{{Kind: "x", Text: "bad \x1b[5m text"}}
	s.Events = []monitor.Event{{Time: testNow, Kind: monitor.EventLockAppeared, Resource: hostile, Text: "appeared"}}
	m := newDashboard(ui.Options{Locker: idleLocker(t)}, 160, 40)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	m.Update(keyMsg("j")) // listed by resource: billing:invoice:42, cache:warmup, evil...
	m.Update(keyMsg("j"))
	view := m.View()
	checkScreen(t, view, 160, 40)
	if strings.ContainsAny(view, "\x1b\a\r\u202e\u200b") {
		t.Fatalf("a control character reached the screen:\n%q", view)
	}
	if !strings.Contains(view, hostileShown[:40]) {
		t.Errorf("the locks panel does not show the escaped, marked name %q:\n%s", hostileShown[:40], view)
	}
	if !strings.Contains(view, `resource  `+hostileShown[:36]) || !strings.Contains(view, hostileShown[36:]) {
		t.Errorf("the detail panel does not show the whole escaped name:\n%s", view)
	}
	if !strings.Contains(view, `‽ERR \x1b[H\x1b[2Jgotcha\r\n`) {
		t.Errorf("the master's error is not escaped:\n%s", view)
	}

	// The delete confirmation shows the name escaped and accepts it typed as shown.
	m.Update(keyMsg("D"))
	view = m.View()
	checkScreen(t, view, 160, 40)
	if !strings.Contains(view, "type it as shown, without ‽") {
		t.Errorf("the confirmation does not explain how to type an escaped name:\n%s", view)
	}
	for _, r := range strings.TrimPrefix(hostileShown, "‽") {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Errorf("the escaped name typed as shown was not accepted:\n%s", m.View())
	}
}

func TestHostileKeyOnARealMasterRendersEscaped(t *testing.T) {
	c := newCluster(t)
	// A hostile value that is still lock-shaped (the default pattern lists only those): Redlock-cs's token is a
	// GUID's 16 raw bytes, version 4 at byte 7 and variant 10 at byte 8.
	c.set(hostile, "to\x1b[31m\x41\x9b\n\r\x07\x1b[2J", time.Minute)
	d := c.dashboard(ui.Options{})
	c.poll(d)
	view := d.m.View()
	checkScreen(t, view, 140, 44)
	if strings.ContainsAny(view, "\x1b\a\r\u202e\u200b") {
		t.Fatalf("a control character from the master reached the screen:\n%q", view)
	}
	if !strings.Contains(view, hostileShown[:30]) {
		t.Errorf("the hostile key is not shown escaped:\n%s", view)
	}
}

func TestAnySizeRendersAFullScreen(t *testing.T) {
	states := map[string][]string{
		"panels":  nil,
		"help":    {"?"},
		"form":    {"a", "x", "y"},
		"confirm": {"D", "b"},
		"filter":  {"/", "o", "r"},
		"lock":    {"enter", "pgdown"},
		"master":  {"shift+tab", "enter", "G"},
	}
	modal := map[string]bool{"help": true, "form": true, "filter": true, "confirm": true, "lock": true, "master": true}
	for name, keys := range states {
		// One dashboard per state, opened at a usual size and then resized through every size: the state
		// survives resizing, and the test stays fast under -race on a loaded machine.
		m := newDashboard(ui.Options{Locker: idleLocker(t)}, 120, 40)
		m.Update(ui.SnapshotMsg{Snapshot: splitSnapshot()})
		for _, k := range keys {
			m.Update(keyMsg(k))
		}
		for w := 0; w <= 200; w += 7 {
			for h := 0; h <= 60; h += 5 {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				view := m.View()
				if w == 0 || h == 0 {
					if view != "" {
						t.Errorf("%s at %dx%d: a screen of no size is not empty", name, w, h)
					}
					continue
				}
				checkScreen(t, view, w, h)
				// Below the panels' minimum, the compact view (the header's health word) where it fits and
				// nothing is open that needs the room; the request for a larger window otherwise.
				small := w < 64 || h < 16
				compact := small && w >= 40 && h >= 12 && !modal[name]
				if got := strings.Contains(view, "Enlarge the window"); got != (small && !compact) && w >= 20 {
					t.Errorf("%s at %dx%d: enlarge message shown %v, want %v", name, w, h, got, small && !compact)
				}
				if compact && (!strings.Contains(view, "DEGRADED") || !strings.Contains(view, "LOCKS IN TROUBLE")) {
					t.Errorf("%s at %dx%d: the compact view lacks the health word or the locks in trouble:\n%s", name, w, h, view)
				}
			}
		}
	}
}

func TestSnapshotHandling(t *testing.T) {
	lost := normalSnapshot()
	lost.Locks[2].State, lost.Locks[2].Holder, lost.Locks[2].Count = monitor.StateLost, "", 1
	lost.Locks[2].Masters = []monitor.MasterLock{on(tokC, time.Second), none, none}
	lost.Warnings = []monitor.Warning{{Severity: monitor.SeverityError, Kind: monitor.WarnLockLost,
		Text: `our lock "jobs:nightly-report" lost its quorum (1 of 3)`}}
	lost.Events = []monitor.Event{{Time: testNow, Kind: monitor.EventLockLost, Resource: "jobs:nightly-report",
		Text: "lost its quorum"}}

	many := normalSnapshot()
	for i := range 5 {
		many.Warnings = append(many.Warnings, monitor.Warning{Severity: monitor.SeverityWarning,
			Kind: monitor.WarnClockOffset, Master: fmt.Sprintf("10.0.0.%d:6379", i), Text: "clock offset 40ms"})
	}

	tests := []struct {
		name string
		s    monitor.Snapshot
		want []string
	}{
		{"lost lock", lost, []string{"LOST", "(1 mine, 1 lost, 1 partial)", `✖ error: our lock "jobs:nightly-report" lost`,
			"lock-lost jobs:nightly-report: lost its quorum", "│ UNSAFE │ masters 3/3 up"}}, // the header: the banner's worst, an error
		{"master down", masterDownSnapshot(), []string{"M2  10.0.0.2:6379          down", "connection refused",
			"● ? ●", "DEGRADED", "▲ warning: 10.0.0.2:6379: down"}},
		{"no quorum", noQuorumSnapshot(), []string{"NO QUORUM", "masters 1/3 up", "✖ error: 1 of 3 masters up"}},
		{"many warnings", many, []string{"▲ warning: 10.0.0.0:6379", "▲ warning: 10.0.0.1:6379",
			"▲ 3 more warnings: see the event log"}},
		{"split", splitSnapshot(), []string{"split", "held*", "○  ○  ●"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newDashboard(ui.Options{}, 140, 40)
			m.Update(ui.SnapshotMsg{Snapshot: tc.s})
			view := m.View()
			for _, want := range tc.want {
				if !strings.Contains(strings.ReplaceAll(view, "  ", " "), strings.ReplaceAll(want, "  ", " ")) {
					t.Errorf("the screen does not show %q:\n%s", want, view)
				}
			}
		})
	}
}

func TestNavigationFocusAndScrolling(t *testing.T) {
	ms := mastersUp(3)
	var locks []monitor.LockView
	for i := range 200 {
		locks = append(locks, lockOf(fmt.Sprintf("res:%03d", i), 2, time.Duration(i+1)*time.Second,
			on(tokA, time.Minute), on(tokA, time.Minute), on(tokA, time.Minute)))
	}
	m := newDashboard(ui.Options{}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: snapshotOf(ms, nil, locks...)})
	selected := func() string {
		v := m.View()
		i := strings.Index(v, "resource  ")
		return strings.Fields(v[i+len("resource  "):])[0]
	}
	steps := []struct {
		key, want string
	}{
		{"j", "res:001"}, {"down", "res:002"}, {"k", "res:001"}, {"G", "res:199"}, {"g", "res:000"},
		{"pgdown", "res:015"}, {"pgup", "res:000"}, {"end", "res:199"}, {"home", "res:000"},
	}
	for _, s := range steps {
		m.Update(keyMsg(s.key))
		if got := selected(); got != s.want {
			t.Fatalf("after %s the selected lock is %s, want %s", s.key, got, s.want)
		}
		checkScreen(t, m.View(), 120, 36)
	}
	m.Update(keyMsg("G"))
	if !strings.Contains(m.View(), "▸ res:199") {
		t.Errorf("the cursor row res:199 is not on screen after G:\n%s", m.View())
	}

	focused := func() string { // the panel with the heavy border
		v := m.View()
		i := strings.Index(v, "┏━ ")
		return strings.Fields(v[i+len("┏━ "):])[0]
	}
	for _, want := range []string{"Our", "Events", "Masters", "Locks"} {
		m.Update(keyMsg("tab"))
		if got := focused(); got != want {
			t.Fatalf("tab focused %s, want %s", got, want)
		}
	}
	m.Update(keyMsg("shift+tab"))
	if got := focused(); got != "Masters" {
		t.Fatalf("shift+tab focused %s, want Masters", got)
	}
}

func TestFilterSortPauseAndInterval(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	for _, k := range []string{"/", "o", "r", "d"} {
		m.Update(keyMsg(k))
	}
	v := m.View()
	if !strings.Contains(v, "Locks 1 of 4") || !strings.Contains(v, "filter /ord") || strings.Contains(v, "cache:warmup") {
		t.Fatalf("filter /ord does not keep only orders:7:\n%s", v)
	}
	m.Update(keyMsg("enter"))
	m.Update(keyMsg("j")) // navigation again, the filter stays
	if !strings.Contains(m.View(), "Locks 1 of 4") {
		t.Fatalf("the filter did not stay after enter:\n%s", m.View())
	}
	m.Update(keyMsg("esc"))
	if !strings.Contains(m.View(), "Locks 4 ·") {
		t.Fatalf("esc did not clear the filter:\n%s", m.View())
	}

	order := func() []string {
		var names []string
		for _, l := range strings.Split(m.View(), "\n") {
			for _, n := range []string{"billing:invoice:42", "cache:warmup", "jobs:nightly-report", "orders:7"} {
				if strings.Contains(ansi.Truncate(l, 30, ""), n) {
					names = append(names, n)
				}
			}
		}
		return names
	}
	wantOrders := map[string]string{
		"validity": "cache:warmup orders:7 billing:invoice:42 jobs:nightly-report",
		"state":    "cache:warmup billing:invoice:42 jobs:nightly-report orders:7",
		"changes":  "billing:invoice:42 cache:warmup jobs:nightly-report orders:7",
		"resource": "billing:invoice:42 cache:warmup jobs:nightly-report orders:7",
	}
	for _, mode := range []string{"validity", "state", "changes", "resource"} {
		m.Update(keyMsg("s"))
		if !strings.Contains(m.View(), "sort "+mode) {
			t.Fatalf("s did not switch to sort %s:\n%s", mode, m.View())
		}
		if got := strings.Join(order(), " "); got != wantOrders[mode] {
			t.Errorf("sorted by %s: %s, want %s", mode, got, wantOrders[mode])
		}
	}

	m.Update(keyMsg("p"))
	if !strings.Contains(m.View(), "poll 500ms PAUSED") {
		t.Errorf("p did not pause:\n%s", m.View())
	}
	m.Update(keyMsg("p"))
	m.Update(keyMsg("+"))
	if !strings.Contains(m.View(), "poll 200ms live") {
		t.Errorf("+ did not poll faster:\n%s", m.View())
	}
	m.Update(keyMsg("-"))
	m.Update(keyMsg("-"))
	if !strings.Contains(m.View(), "poll 1s live") {
		t.Errorf("- - did not poll slower:\n%s", m.View())
	}
}

func TestMonitorLoopFeedsTheScreen(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	m := newDashboard(ui.Options{Monitor: c.mon, Locker: c.locker, Now: time.Now, Poll: 100 * time.Millisecond},
		140, 44)
	d := drive(t, m)
	d.exec(m.Init())
	d.waitView("masters 3/3 up")
	c.set("appears:later", "someone", time.Minute)
	d.waitView("appears:later")
	d.press("p")
	d.waitView("PAUSED")
	d.press("q")
	d.waitFor("quit", func(string) bool { return d.quit })
}

// bigSnapshot is n held locks on five masters, one of them missing the key.
func bigSnapshot(n int) monitor.Snapshot {
	ms := mastersUp(5)
	locks := make([]monitor.LockView, n)
	cells := make([]monitor.MasterLock, 5*n)
	for i := range locks {
		token := fmt.Sprintf("%027d", i)
		c := cells[i*5 : i*5+5 : i*5+5]
		for j := range c {
			c[j] = on(token, time.Duration(1000+i%9000)*time.Millisecond)
		}
		c[i%5] = none
		locks[i] = monitor.LockView{Resource: fmt.Sprintf("tenant:%04d:job:%06d", i%1000, i), State: monitor.StateHeld,
			Holder: token, Count: 4, Masters: c, TTLSpread: time.Millisecond, Changes: i % 5, FirstSeen: testNow.Add(-time.Minute)}
		locks[i].SetValidity(testNow, time.Duration(900+i%9000)*time.Millisecond)
	}
	return snapshotOf(ms, nil, locks...)
}

// BenchmarkView100k measures one frame of the dashboard with 100,000 locks (target: under 5 ms).
func BenchmarkView100k(b *testing.B) {
	m := newDashboard(ui.Options{Locker: idleLocker(b)}, 200, 60)
	m.Update(ui.SnapshotMsg{Snapshot: bigSnapshot(100000)})
	m.Update(keyMsg("pgdown")) // somewhere in the middle of the list, scrolling
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Update(keyMsg("j"))
		_ = m.View()
	}
}

// BenchmarkSnapshot100k measures taking in a snapshot of 100,000 locks (sanitizing, counting, sorting), which
// happens once per poll, not per frame; the monitor loop does the sanitizing and counting off the event loop.
func BenchmarkSnapshot100k(b *testing.B) {
	m := newDashboard(ui.Options{Locker: idleLocker(b)}, 200, 60)
	s := bigSnapshot(100000)
	m.Update(keyMsg("s")) // sorted by validity
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Update(ui.SnapshotMsg{Snapshot: s})
	}
}

// BenchmarkSnapshotWithChanges100k measures taking in a snapshot of 100,000 locks sorted by resource after
// the one before it: sharing every view (a quiet poll), with 500 changed (a poll with 1,000 changes a second at
// the default 500ms: the others' views are the snapshot before's), and with every view new.
func BenchmarkSnapshotWithChanges100k(b *testing.B) {
	byResource := func(a, b *monitor.LockView) int { return strings.Compare(a.Resource, b.Resource) } // as a monitor's are
	base := bigSnapshot(100000)
	slices.SortFunc(base.Locks, byResource)
	changed := base
	changed.Locks = slices.Clone(base.Locks)
	for i := 0; i < len(changed.Locks); i += len(changed.Locks) / 500 {
		v := *changed.Locks[i]
		v.Masters = slices.Clone(v.Masters)
		v.Masters[0].Token, v.Holder = "a-new-holder", "a-new-holder"
		changed.Locks[i] = &v
	}
	allNew := bigSnapshot(100000)
	slices.SortFunc(allNew.Locks, byResource)
	for _, bc := range []struct {
		name string
		next monitor.Snapshot
	}{{"quiet", base}, {"changes-500", changed}, {"all-new", allNew}} {
		b.Run(bc.name, func(b *testing.B) {
			m := newDashboard(ui.Options{Locker: idleLocker(b)}, 200, 60)
			m.Update(ui.SnapshotMsg{Snapshot: base})
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; b.Loop(); n++ {
				s := base
				if n%2 == 0 {
					s = bc.next
				}
				m.Update(ui.SnapshotMsg{Snapshot: s})
			}
		})
	}
}

func TestColourScreenKeepsItsShape(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	m := ui.New(ui.Options{Keys: uitest.KeyMap(), Locker: idleLocker(t), Now: func() time.Time { return testNow }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	m.Update(ui.SnapshotMsg{Snapshot: splitSnapshot()})
	m.Update(keyMsg("j"))
	view := m.View()
	if !strings.Contains(view, "\x1b[") {
		t.Fatal("the colour profile produced no colour")
	}
	checkScreen(t, view, 120, 36)
	m.Update(keyMsg("a")) // a dialog drawn over coloured panels
	m.Update(keyMsg("x"))
	checkScreen(t, m.View(), 120, 36)
}

// eventfulSnapshot is the normal snapshot with 40 taken-over events, one a second, on r00 to r39.
func eventfulSnapshot() monitor.Snapshot {
	s := normalSnapshot()
	for i := range 40 {
		s.Events = append(s.Events, monitor.Event{Time: testNow.Add(time.Duration(i-40) * time.Second),
			Kind: monitor.EventTakenOver, Resource: fmt.Sprintf("r%02d", i), Text: "new holder"})
	}
	return s
}

func TestEventLogScrolls(t *testing.T) {
	s := eventfulSnapshot()
	m := newDashboard(ui.Options{}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	if !strings.Contains(m.View(), "r39: new holder") || strings.Contains(m.View(), "r00: new holder") {
		t.Fatalf("the log does not follow the newest entries:\n%s", m.View())
	}
	m.Update(keyMsg("tab"))
	m.Update(keyMsg("tab")) // the event log
	m.Update(keyMsg("g"))
	view := m.View()
	if !strings.Contains(view, "r00: new holder") || !strings.Contains(view, "newer ↓") {
		t.Fatalf("g in the log did not scroll to the oldest entry:\n%s", view)
	}
	m.Update(keyMsg("G"))
	if !strings.Contains(m.View(), "r39: new holder") || strings.Contains(m.View(), "newer ↓") {
		t.Fatalf("G in the log did not return to the newest entry:\n%s", m.View())
	}
}

// TestHeaderIsNotOKWhileKnownLocksWentUnread: every master up, but locks that one of them could not read in
// the last poll: the header says DEGRADED, not OK, and the banner says how many (issue 25).
func TestHeaderIsNotOKWhileKnownLocksWentUnread(t *testing.T) {
	s := normalSnapshot()
	m := newDashboard(ui.Options{}, 120, 40)
	m.Update(ui.SnapshotMsg{Snapshot: s})
	if h := headerLine(m); !strings.Contains(h, "OK") || strings.Contains(h, "DEGRADED") {
		t.Fatalf("every lock read: header %q, want OK", h)
	}
	s.Seq++
	s.Unread = 3
	s.Warnings = append(s.Warnings, monitor.Warning{Severity: monitor.SeverityWarning, Kind: monitor.WarnUnread,
		Text: "3 locks not read on every master that answered in the last poll (out of time): shown as last seen"})
	m.Update(ui.SnapshotMsg{Snapshot: s})
	view := m.View()
	if h := headerLine(m); !strings.Contains(h, "DEGRADED") {
		t.Errorf("3 locks unread: header %q, want DEGRADED", h)
	}
	if !strings.Contains(view, "3 locks not read") {
		t.Errorf("the banner does not count the unread locks:\n%s", view)
	}
}

// recordSink keeps the records the dashboard hands its event sink.
type recordSink struct {
	mu      sync.Mutex
	records []events.Record
}

// Emit keeps r.
func (s *recordSink) Emit(r events.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, r)
}

// TestEachActionHasOneTextOnScreenAndInTheStream: an acquisition and a release from the dashboard reach the
// event sink as dashboard records whose texts are the event log's lines, rated by their kinds (issue 19: one
// action used to have two texts, and the dashboard's records no severity).
func TestEachActionHasOneTextOnScreenAndInTheStream(t *testing.T) {
	c := newCluster(t)
	sink := &recordSink{}
	d := c.dashboard(ui.Options{Events: sink, TTL: 10 * time.Second})
	d.submitAcquire("jobs:mine")
	d.waitView("acquired jobs:mine")
	c.heldEverywhere("jobs:mine")
	d.press("tab") // our locks
	d.press("r")
	d.waitView("released jobs:mine")
	sink.mu.Lock()
	defer sink.mu.Unlock()
	kinds := map[string]events.Record{}
	for _, r := range sink.records {
		if r.Source != events.SourceDashboard || r.Resource != "jobs:mine" || r.Severity != monitor.SeverityInfo {
			t.Errorf("record %+v: want an info record of the dashboard about jobs:mine", r)
		}
		kinds[r.Kind] = r
	}
	view := d.m.View()
	for _, kind := range []string{events.KindAcquiring, events.KindAcquired, events.KindReleased} {
		r, ok := kinds[kind]
		switch {
		case !ok:
			t.Errorf("no %s record among %+v", kind, sink.records)
		case !strings.Contains(view, r.Text[:min(len(r.Text), 40)]):
			t.Errorf("the %s record's text %q is not the event log's:\n%s", kind, r.Text, view)
		case kind != events.KindAcquiring && r.Token == "":
			t.Errorf("the %s record names no token", kind)
		}
	}
}
