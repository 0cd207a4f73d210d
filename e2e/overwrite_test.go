package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestPlainSETOverRunsLockIsOverwritten: issue 42, item 1. A live lock held by `redlock-tui run`, then a plain
// `SET key tokB PX 60000` (no NX, the classic unsafe client) on every master: the headless monitor's event
// stream tells it as `overwritten`, naming both tokens, not as a routine handover.
func TestPlainSETOverRunsLockIsOverwritten(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	file := filepath.Join(t.TempDir(), "events.jsonl")
	h := startHeadless(t, bin, "--masters", addrs, "--poll", "200ms", "--events", file)
	eventually(t, "the first poll", func() (bool, string) {
		s, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		return s["redlock_masters_up"] == 3, fmt.Sprintf("%v masters up", s["redlock_masters_up"])
	})

	const resource = "pay:1"
	dir := t.TempDir()
	p := startRun(t, bin, dir, "run", "-m", addrs, "--ttl", "60s", resource, "--", "sh", "-c",
		`echo "$REDLOCK_TOKEN" > "$D/token"; `+waitScript)
	tokA := readFileEventually(t, filepath.Join(dir, "token"))
	kindFor := func(kind string) func() (bool, string) {
		return func() (bool, string) {
			for _, e := range readEvents(t, file) {
				if e.Kind == kind && e.Resource == resource {
					return true, ""
				}
			}
			return false, fmt.Sprintf("events %+v", readEvents(t, file))
		}
	}
	eventually(t, "the monitor sees run's lock", kindFor("lock-appeared"))

	const tokB = "tokB-plain-set-0123456789"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range clients {
		if err := c.Set(ctx, resource, tokB, time.Minute).Err(); err != nil { // SET pay:1 tokB PX 60000, no NX
			t.Fatal(err)
		}
	}
	eventually(t, "an overwritten event", kindFor("overwritten"))
	for _, e := range readEvents(t, file) {
		if e.Resource != resource {
			continue
		}
		if e.Kind == "overwritten" && (!strings.Contains(e.Text, tokA) || !strings.Contains(e.Text, tokB)) {
			t.Errorf("the overwritten event does not name both tokens %q and %q: %q", tokA, tokB, e.Text)
		}
		if e.Kind == "taken-over" {
			t.Errorf("the overwrite is also told as a routine handover: %+v", e)
		}
	}
	touch(t, filepath.Join(dir, "go"))
	p.wait(30 * time.Second) // run finds its lock gone; how it exits is run's own tests' business
}
