package ui_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestAnAcquisitionFromTheDashboardSaysHowLongItWaited: a lock held by another is acquired from the dashboard
// once the other lets it go, after a failed round; the acquisition says how long it waited and in how many rounds.
func TestAnAcquisitionFromTheDashboardSaysHowLongItWaited(t *testing.T) {
	c := newCluster(t, redlock.WithRetries(100), redlock.WithRetryDelay(50*time.Millisecond, 100*time.Millisecond))
	for _, cl := range c.clients {
		if err := cl.Set(context.Background(), "jobs:queued", "held-by-another-0123456789", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	sink := &recordSink{}
	d := c.dashboard(ui.Options{Events: sink, TTL: 10 * time.Second})
	start := time.Now()
	d.submitAcquire("jobs:queued")
	d.waitView("round 1 failed")
	for _, cl := range c.clients {
		if err := cl.Del(context.Background(), "jobs:queued").Err(); err != nil {
			t.Fatal(err)
		}
	}
	d.waitView("acquired jobs:queued")
	wall := time.Since(start)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	for _, r := range sink.records {
		if r.Kind != events.KindAcquired {
			continue
		}
		m := regexp.MustCompile(`^acquired jobs:queued after (\d+) rounds \(([^)]+)\)`).FindStringSubmatch(r.Text)
		if m == nil {
			t.Fatalf("acquired record %q does not say how long it waited", r.Text)
		}
		waited, err := time.ParseDuration(m[2])
		rounds, _ := strconv.Atoi(m[1])
		// The text rounds the wait to the millisecond: it may say up to half of one more than it was.
		if err != nil || waited <= 0 || waited > wall+time.Millisecond/2 || rounds < 2 {
			t.Errorf("waited %s in %s rounds; want within the %v it took, and more than one round (the lock was held)", m[2], m[1], wall)
		}
		return
	}
	t.Fatalf("no acquired record among %+v", sink.records)
}
