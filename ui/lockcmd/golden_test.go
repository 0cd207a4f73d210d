package lockcmd_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/lockcmd"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// The fixed clock, the fleet, the program context and the box check the rooms' goldens share (uitest).
var (
	now    = uitest.Now
	fleet  = uitest.Fleet
	shared = uitest.Shared
)

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
