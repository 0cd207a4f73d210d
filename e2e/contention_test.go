package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestOnceWatchGivesContentionAndMarkdown: --once --watch polls for the time given and then prints each lock's
// contention, whose intervals are the tokens really set; --once --markdown prints the incident report.
func TestOnceWatchGivesContentionAndMarkdown(t *testing.T) {
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	ctx, stop := context.WithCancel(context.Background())
	var mu sync.Mutex
	set := map[string]bool{}
	done := make(chan struct{})
	go func() { // a new holder of jobs:nightly every 600ms, on all three masters
		defer close(done)
		for n := 0; ctx.Err() == nil; n++ {
			token := fmt.Sprintf("job-token-%04d-5f1c9a", n)
			mu.Lock()
			set[token] = true
			mu.Unlock()
			for _, c := range clients {
				_ = c.Set(ctx, "jobs:nightly", token, 5*time.Second).Err()
			}
			select {
			case <-ctx.Done():
			case <-time.After(600 * time.Millisecond):
			}
		}
	}()
	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--watch", "12s", "--poll", "200ms", "--masters", addrs)
	stop()
	<-done
	if code != cli.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var out struct {
		Locks []struct {
			Resource   string `json:"resource"`
			Contention *struct {
				WatchedMS int64 `json:"watched_ms"`
				Window    struct {
					Acquisitions int `json:"acquisitions"`
				} `json:"window"`
				Intervals []struct {
					Token string `json:"token"`
				} `json:"intervals"`
			} `json:"contention"`
		} `json:"locks"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Locks) != 1 || out.Locks[0].Contention == nil {
		t.Fatalf("want jobs:nightly with its contention:\n%s", stdout)
	}
	c := out.Locks[0].Contention
	if c.WatchedMS < 12000 || c.Window.Acquisitions < 10 {
		t.Errorf("watched %dms, %d acquisitions; want 12s or more, and a new holder each 600ms seen at least 10 times", c.WatchedMS, c.Window.Acquisitions)
	}
	for _, iv := range c.Intervals {
		if !set[iv.Token] {
			t.Errorf("interval of %q, a token nobody set", iv.Token)
		}
	}

	code, stdout, _ = runBinary(t, bin, nil, "--once", "--markdown", "--pattern", "jobs:*", "--masters", addrs)
	for _, want := range []string{"# Redlock incident report", "## Masters", "## Locks", "| jobs:nightly |", "locks matching --pattern jobs:\\*", "## Last events"} {
		if code != cli.ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("--once --markdown: exit %d, no %q in:\n%s", code, want, stdout)
		}
	}
}
