package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestOnceWatchKeepsALockItsHoldersLeft is issue 34's item 2 as it was seen: three `run --wait` loops hand
// o1:hot back and forth, holding it 400ms each, for a few seconds, and stop. --once --watch 12s, in JSON and
// as a Markdown report, has a record of o1:hot: free, with the holders it had, where it said "Locks: none"
// above its taken-over events.
func TestOnceWatchKeepsALockItsHoldersLeft(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second) // the loops' time
	defer stop()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				runBinary(t, bin, nil, "run", "--masters", addrs, "--wait", "3s", "--ttl", "10s", "o1:hot", "--", "sleep", "0.4")
			}
		})
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	outs := make([]result, 2)
	var once sync.WaitGroup
	for i, format := range []string{"--json", "--markdown"} {
		once.Go(func() {
			code, stdout, stderr := runBinary(t, bin, nil, "--once", format, "--watch", "12s", "--poll", "200ms", "--masters", addrs)
			outs[i] = result{code, stdout, stderr}
		})
	}
	once.Wait()
	wg.Wait()
	for _, r := range outs {
		if r.code != cli.ExitOK {
			t.Fatalf("--once: exit %d, stderr %q", r.code, r.stderr)
		}
	}
	var doc struct {
		Locks []struct {
			Resource   string `json:"resource"`
			State      string `json:"state"`
			Contention *struct {
				Window struct {
					Acquisitions int `json:"acquisitions"`
				} `json:"window"`
				Intervals []struct {
					Ended string `json:"ended"`
				} `json:"intervals"`
			} `json:"contention"`
		} `json:"locks"`
	}
	if err := json.Unmarshal([]byte(outs[0].stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, outs[0].stdout)
	}
	if len(doc.Locks) != 1 || doc.Locks[0].Resource != "o1:hot" || doc.Locks[0].State != "free" || doc.Locks[0].Contention == nil ||
		doc.Locks[0].Contention.Window.Acquisitions < 2 || len(doc.Locks[0].Contention.Intervals) < 2 {
		t.Errorf("--once --json --watch 12s: want o1:hot, free, with the holders the loops had:\n%s", outs[0].stdout)
	}
	report := outs[1].stdout
	if !strings.Contains(report, "| o1:hot | free | - | 0 of 3, quorum 2 |") || strings.Contains(report, "| none |") {
		t.Errorf("--once --markdown --watch 12s: want o1:hot listed free:\n%s", report)
	}
}
