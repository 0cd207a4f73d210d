package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestDashboardAcquireNamesReplicasAndRefuses: with two of three servers replicas, the dashboard's acquire
// used to say "acquired ... M1 ok", then "lock-lost" (issue 17). It must refuse, and say which are replicas.
func TestDashboardAcquireNamesReplicasAndRefuses(t *testing.T) {
	t.Parallel()
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	addrs := redlocktest.Addrs(servers)
	redlocktest.ReplicasOf(t, servers[0], servers[1:]...)
	clients := make([]*redis.Client, len(servers))
	for i, s := range servers {
		clients[i] = s.NewClient()
		t.Cleanup(func() { _ = clients[i].Close() })
	}
	c := clusterOver(t, clients, clients, addrs)
	d := c.dashboard(ui.Options{TTL: 10 * time.Second})
	d.submitAcquire("replicated:job")
	d.waitView("not acquired")
	view := d.m.View()
	if strings.Contains(view, "acquired replicated:job") {
		t.Errorf("the dashboard says it acquired the lock with one master:\n%s", view)
	}
	for _, want := range []string{"M2 replica", "M3 replica"} {
		if !strings.Contains(view, want) {
			t.Errorf("the acquire form does not say %q:\n%s", want, view)
		}
	}
}
