package record

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestAReplaysAlarmsHoldEveryWarningAndTheRestartWithinTTL records three real masters started moments ago,
// with a 10-minute lock on them, one of which is then restarted: the replay's alarms (its moments, and where
// its jumps stop) hold the first poll's young-master warnings, which no event told, and the error of the
// restart seen within the longest TTL (issue 42).
func TestAReplaysAlarmsHoldEveryWarningAndTheRestartWithinTTL(t *testing.T) {
	t.Parallel() // it owns its masters
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (a restart, INFO run_id)")
	}
	servers := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{})
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	clients := redlocktest.Clients(t, masters)
	cfg := monitor.Config{}
	mon, err := monitor.New(clients, redlocktest.Addrs(masters), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Close() })
	r := recordLive(t, mon, "restart.rec", redlocktest.Addrs(masters), cfg, nil)
	ctx := context.Background()
	for _, c := range clients {
		if err := c.Set(ctx, "jobs:long", "T0123456789abcdef", 10*time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	mon.Poll(ctx)
	if err := servers[1].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := servers[1].Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		if s := mon.Poll(ctx); s.Masters[1].Up && s.Masters[1].RunID != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the restarted master did not answer again within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	p := NewPlayer(r.closeAndOpen(), nil)
	alarms := p.Alarms()
	young, restart := 0, false
	for _, a := range alarms {
		if !strings.Contains(a.Text, "restart: ") {
			continue
		}
		switch {
		case a.Severity == monitor.SeverityWarning && a.Time.Equal(p.Time(0)):
			young++
		case a.Severity == monitor.SeverityError && a.Subject == servers[1].Addr() && strings.Contains(a.Text, "seen restarting"):
			restart = true
		}
	}
	if young != 3 || !restart {
		t.Errorf("replay's alarms: %d young-master warnings at the first poll (want 3), the restart's error %v (want it):\n%+v",
			young, restart, alarms)
	}
}
