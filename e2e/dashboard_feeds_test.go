package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freeLoopbackPort returns a port nothing listens on at the moment.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestDashboardServesMetricsAndWritesEventsWhileItRuns(t *testing.T) {
	t.Parallel()
	port := freeLoopbackPort(t)
	stream := filepath.Join(t.TempDir(), "events.jsonl")
	s, clients, addrs := startDashboard(t, fmt.Sprintf("--metrics 127.0.0.1:%d --events %s", port, stream))
	for _, c := range clients {
		if err := c.Set(context.Background(), "orders:7", "token-orders-7", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	h := &headless{t: t, metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", port)}
	eventually(t, "metrics of the dashboard's masters and the planted lock", func() (bool, string) {
		m, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		ok := m[`redlock_locks{state="held"}`] == 1
		for _, a := range addrs {
			ok = ok && m[fmt.Sprintf(`redlock_master_up{master=%q}`, a)] == 1
		}
		return ok, fmt.Sprint(m)
	})
	eventually(t, "the lock's appearance in the event stream", func() (bool, string) {
		b, err := os.ReadFile(stream)
		return err == nil && strings.Contains(string(b), `"resource":"orders:7"`), string(b)
	})
	// The dashboard's own actions are in the stream too, as its Redlock client reports them.
	acquireWithKeys(s, "jobs:mine")
	eventually(t, "the dashboard's acquisition in the event stream", func() (bool, string) {
		b, err := os.ReadFile(stream)
		return err == nil && strings.Contains(string(b), `"source":"dashboard","kind":"acquired","severity":"info","resource":"jobs:mine"`), string(b)
	})
	s.keys("q")
	s.waitFor("the question before quitting with a lock held", func(screen string) bool {
		return strings.Contains(screen, "Quit redlock-tui?")
	})
	s.keys("Enter")
	if _, status := waitForExit(s); status != "0" {
		t.Errorf("exit status %s, want 0", status)
	}
}
