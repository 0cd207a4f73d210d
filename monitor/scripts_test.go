package monitor

import (
	"context"
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
// Redis 7 does reads a Redisson hash lock too; one that runs them as before Redis 7 (forced here: the pause
// holds such scripts) reads the string lock with plain commands, and the hash lock is unknown, never absent.
func TestWritePauseKeepsReadingTheMaster(t *testing.T) {
	tests := []struct {
		name     string
		scripts  scriptVariant
		hashRead bool // the hash lock is read on the paused master
	}{
		{"scripts flagged no-writes", scriptsNoWrites, true},
		{"plain scripts, as before Redis 7", scriptsCompat, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers := realServers(t, 3)
			masters := make([]redlocktest.Master, len(servers))
			for i, s := range servers {
				masters[i] = s
			}
			c := watch(t, masters, Config{NoTracking: true})
			t.Cleanup(func() { _ = c.mon.Close() })
			c.mon.pollers[0].(*poller).scripts = tt.scripts
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
				if cell := l.Masters[0]; cell.State != CellSeen || cell.Token != token || cell.ReadAt.Before(before) {
					t.Fatalf("poll %d into the write pause: the paused master's cell is %+v, want %q read in this poll (after %s)",
						polls, cell, token, before.Format("15:04:05.000"))
				}
				switch cell := h.Masters[0]; {
				case cell.State == CellAbsent:
					t.Fatalf("poll %d into the write pause: the hash lock is absent from the paused master", polls)
				case tt.hashRead && (cell.State != CellSeen || cell.ReadAt.Before(before)):
					t.Fatalf("poll %d into the write pause: the paused master's hash lock cell is %+v, want it read in this poll", polls, cell)
				}
				for _, e := range s.Events {
					if e.Resource != "" && e.Time.After(pausedAt) {
						t.Fatalf("poll %d into the write pause raised %s: %s", polls, e.Kind, e.Text)
					}
				}
			}
			if polls < 2 {
				t.Fatalf("only %d polls in the %s write pause", polls, pausedWritesFor)
			}
		})
	}
}
