package monitor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// pausedWritesFor is how long the write-pause tests pause writes on a master: longer than the test clients'
// read timeout (500ms) and than three polls, after which a master that does not answer is declared down.
const pausedWritesFor = 3 * time.Second

// TestWritePauseKeepsReadingTheMaster pauses writes on one of three real masters (CLIENT PAUSE WRITE, as a
// failover or a resharding does) and requires every poll meanwhile to show that master up with the lock read
// there in that very poll: a read must not wait for the pause to end. A master that runs the read scripts as
// Redis 7 does (flagged no-writes) reads a Redisson hash lock too. One that runs them as before Redis 7, whose
// scripts the pause holds, is read with plain commands: reading's TestWritePauseKeepsReadingWithScriptsAsBeforeRedis7.
func TestWritePauseKeepsReadingTheMaster(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		hashRead bool // the hash lock is read on the paused master
		tracked  bool // only what changes is read: no cell need be read in every poll
	}{
		{"scripts flagged no-writes", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			servers := realServers(t, 3)
			masters := make([]redlocktest.Master, len(servers))
			for i, s := range servers {
				masters[i] = s
			}
			// An interval of 2s: a poll waits up to that (the read timeout) for a master that is slow to answer on
			// a loaded machine, still less than the pause, which a held read would outlast.
			c := watch(t, masters, Config{NoTracking: !tt.tracked, Interval: 2 * time.Second})
			t.Cleanup(func() { _ = c.mon.Close() })
			const key, token, hashKey = "orders:paused", "token-paused-0123456789", "reports:paused"
			c.set(t, key, token, time.Minute, 0, 1, 2)
			ctx := context.Background()
			holder := uuid4() + ":1"
			for _, a := range c.admin {
				if err := a.HSet(ctx, hashKey, holder, 1).Err(); err != nil {
					t.Fatal(err)
				}
				if err := a.PExpire(ctx, hashKey, time.Minute).Err(); err != nil {
					t.Fatal(err)
				}
			}
			pollUntil(t, c.mon, 20*time.Second, "both locks held on 3 masters, swept", func(s Snapshot) bool {
				l, h := s.Lock(key), s.Lock(hashKey)
				return s.Swept && l != nil && l.State == StateHeld && l.Count == 3 && h != nil && h.Count == 3
			})
			const short = "orders:short" // its TTL runs out in the pause
			c.set(t, short, "token-short-0123456789", pausedWritesFor/2, 0, 1, 2)
			if err := c.admin[0].Do(ctx, "client", "pause", pausedWritesFor.Milliseconds(), "write").Err(); err != nil {
				t.Fatalf("CLIENT PAUSE WRITE: %v", err)
			}
			pausedAt := time.Now()
			t.Cleanup(func() { _ = c.admin[0].Do(context.Background(), "client", "unpause").Err() })
			polls := 0
			for time.Since(pausedAt) < pausedWritesFor-200*time.Millisecond {
				before := time.Now()
				s := c.mon.Poll(ctx)
				polls++
				m := s.Masters[0]
				if !m.Up || m.Down || m.Missed > 0 {
					t.Fatalf("poll %d, %s into the write pause: master %s up %v down %v missed %d: %s", polls,
						time.Since(pausedAt).Round(time.Millisecond), m.Addr, m.Up, m.Down, m.Missed, m.Err)
				}
				l, h := s.Lock(key), s.Lock(hashKey)
				if l == nil || h == nil {
					t.Fatalf("poll %d into the write pause shows %s: %v, %s: %v", polls, key, l != nil, hashKey, h != nil)
				}
				if cell := l.Masters[0]; cell.State != CellSeen || cell.Token != token || cell.ReadAt.Before(before) && !tt.tracked {
					t.Fatalf("poll %d into the write pause: the paused master's cell is %+v, want %q read in this poll (after %s)",
						polls, cell, token, before.Format("15:04:05.000"))
				}
				switch cell := h.Masters[0]; {
				case cell.State == CellAbsent:
					t.Fatalf("poll %d into the write pause: the hash lock is absent from the paused master", polls)
				case tt.hashRead && (cell.State != CellSeen || cell.ReadAt.Before(before) && !tt.tracked):
					t.Fatalf("poll %d into the write pause: the paused master's hash lock cell is %+v, want it read in this poll", polls, cell)
				}
				for _, e := range s.Events {
					if e.Resource != "" && e.Resource != short && e.Time.After(pausedAt) {
						t.Fatalf("poll %d into the write pause raised %s: %s", polls, e.Kind, e.Text)
					}
				}
			}
			if polls < 2 {
				t.Fatalf("only %d polls in the %s write pause", polls, pausedWritesFor)
			}
			if s := c.mon.Poll(ctx); !noKey(s, short) {
				t.Errorf("%s, whose TTL ran out in the pause, is still shown: %+v", short, s.Lock(short).Masters)
			}
		})
	}
}

// TestMasterWithoutScriptsIsNamed starts one of three real masters with script commands renamed away in its
// configuration (rename-command EVAL ""), a string lock and a Redisson hash lock on every master: the master
// is named at once in an error warning (no Redlock client can release or extend a lock there), and the
// monitor still reads it: with EVAL_RO where only EVAL is gone, with plain commands where every script command
// is, the hash lock then unknown there, never absent.
func TestMasterWithoutScriptsIsNamed(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (rename-command)")
	}
	renamed := func(cmds ...string) []string {
		var args []string
		for _, c := range cmds {
			args = append(args, "--rename-command", c, "")
		}
		return args
	}
	tests := []struct {
		name     string
		args     []string
		text     string // in the warning
		hashRead bool   // the hash lock is read there
	}{
		{"EVAL renamed", renamed("EVAL"), "cannot run Lua scripts (EVAL", true},
		{"EVAL and EVALSHA renamed", renamed("EVAL", "EVALSHA"), "cannot run Lua scripts (EVAL", true},
		{"EVALSHA renamed", renamed("EVALSHA"), "cannot run Lua scripts by their SHA1 (EVALSHA", true},
		{"every script command renamed", renamed("EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO"), "cannot run Lua scripts (EVAL", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers := append(redlocktest.StartServers(t, 1, redlocktest.ServerOptions{Args: tt.args}),
				redlocktest.StartServers(t, 2, redlocktest.ServerOptions{})...)
			masters := make([]redlocktest.Master, len(servers))
			for i, s := range servers {
				masters[i] = s
			}
			c := watch(t, masters, Config{})
			t.Cleanup(func() { _ = c.mon.Close() })
			const key, token, hashKey = "orders:noscripts", "token-noscripts-0123456789", "reports:noscripts"
			c.set(t, key, token, time.Minute, 0, 1, 2)
			ctx := context.Background()
			holder := uuid4() + ":1"
			for _, a := range c.admin {
				if err := a.HSet(ctx, hashKey, holder, 1).Err(); err != nil {
					t.Fatal(err)
				}
				if err := a.PExpire(ctx, hashKey, time.Minute).Err(); err != nil {
					t.Fatal(err)
				}
			}
			named := func(s Snapshot) bool {
				for _, w := range s.Warnings {
					if w.Kind == WarnNoScripts && w.Master == servers[0].Addr() && w.Severity == SeverityError && strings.Contains(w.Text, tt.text) &&
						strings.Contains(w.Text, "locks taken there can never be released or extended by Redlock clients") {
						return true
					}
				}
				return false
			}
			s := c.mon.Poll(ctx)
			if !named(s) && tt.args[1] == "EVAL" {
				t.Fatalf("the first poll does not name the master without EVAL: warnings %v", s.Warnings)
			}
			s = pollUntil(t, c.mon, 20*time.Second, "the master named, both locks read, swept", func(s Snapshot) bool {
				l, h := s.Lock(key), s.Lock(hashKey)
				return named(s) && s.Swept && l != nil && l.Count == 3 && h != nil && (h.Count == 3 || !tt.hashRead)
			})
			for _, w := range s.Warnings {
				if w.Kind == WarnNoScripts && w.Master != servers[0].Addr() {
					t.Errorf("a master with every script command is named: %v", w)
				}
			}
			if got := s.Masters[0].MissingCommands; len(got) == 0 {
				t.Errorf("MissingCommands of the master without scripts is empty")
			}
			if got := s.Masters[0].PlainReads; got == tt.hashRead {
				t.Errorf("PlainReads of the master without scripts is %v", got)
			}
			for range 3 {
				s = c.mon.Poll(ctx)
				switch cell := s.Lock(hashKey).Masters[0]; {
				case cell.State == CellAbsent:
					t.Fatalf("the hash lock is absent from the master without scripts: %+v", cell)
				case tt.hashRead && cell.State != CellSeen:
					t.Fatalf("the hash lock is not read on the master without EVAL: %+v", cell)
				}
				if cell := s.Lock(key).Masters[0]; cell.State != CellSeen || cell.Token != token {
					t.Fatalf("the string lock on the master without scripts: %+v", cell)
				}
			}
		})
	}
}
