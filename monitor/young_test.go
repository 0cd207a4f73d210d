package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// restartSeverity is the severity of s's restart warning about addr, and whether there is one.
func restartSeverity(s Snapshot, addr string) (Severity, bool) {
	for _, w := range s.Warnings {
		if w.Kind == WarnRestart && w.Master == addr {
			return w.Severity, true
		}
	}
	return 0, false
}

// TestYoungMasterIsAWarningAndARestartSeenAnError: masters started moments ago, with a 10-minute lock on them,
// are first seen young: a warning each, not an error (nothing says any lost a key); one then seen restarting
// (its run_id changed) within the longest TTL is an error, the others still warnings (issue 42).
func TestYoungMasterIsAWarningAndARestartSeenAnError(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 3)
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	c := watch(t, masters, Config{})
	c.set(t, "long", "T0123456789abcdef", 10*time.Minute, 0, 1, 2)
	ctx := context.Background()
	s := c.mon.Poll(ctx)
	for _, srv := range servers {
		if sev, ok := restartSeverity(s, srv.Addr()); !ok || sev != SeverityWarning {
			t.Errorf("first poll, %s started moments ago: restart warning %v (%s), want a warning: %v", srv.Addr(), ok, sev, s.Warnings)
		}
	}
	if s.Health() == HealthUnsafe {
		t.Errorf("young masters never seen restarting make the header %s", s.Health())
	}
	if err := servers[1].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := servers[1].Start(); err != nil {
		t.Fatal(err)
	}
	s = pollUntil(t, c.mon, 20*time.Second, "the restarted master answering again", func(s Snapshot) bool { return s.Masters[1].Up })
	if sev, ok := restartSeverity(s, servers[1].Addr()); !ok || sev != SeverityError {
		t.Errorf("restart seen within the longest TTL: %v (%s), want an error: %v", ok, sev, s.Warnings)
	}
	for _, i := range []int{0, 2} {
		if sev, _ := restartSeverity(s, servers[i].Addr()); sev != SeverityWarning {
			t.Errorf("%s, never seen restarting: %s, want a warning", servers[i].Addr(), sev)
		}
	}
}
