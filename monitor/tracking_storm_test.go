package monitor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
)

// TestTrackingStormRetriesAfterBackoff storms a tracked master (its tracking table shrunk below the locks
// watched): it is polled, with the warning, and says when tracking is tried again; after the backoff it is
// tracked again, every key read anew; the storm, still there, turns it to polling again for twice as long.
func TestTrackingStormRetriesAfterBackoff(t *testing.T) {
	t.Parallel()
	c, _ := trackedCluster(t, "lock:0")
	reading.SetStormBackoff(c.mon.pollers[0], 2*time.Second) // the poller's: no poll runs now
	const locks = 400
	for i := 1; i < locks; i++ {
		c.set(t, fmt.Sprintf("lock:%d", i), "token-one-0123456789", time.Minute, 0)
	}
	pollUntil(t, c.mon, 20*time.Second, "all locks, quietly tracked", func(s Snapshot) bool {
		return len(s.Locks) == locks && quietlyTracked(s)
	})
	if err := c.admin[0].ConfigSet(context.Background(), "tracking-table-max-keys", "10").Err(); err != nil {
		t.Fatal(err)
	}
	stormedFor := func(wait string) {
		t.Helper()
		s := pollUntil(t, c.mon, 30*time.Second, "the master polled after a storm", func(s Snapshot) bool {
			return s.Masters[0].Refresh == RefreshPolling
		})
		why := s.Masters[0].RefreshWhy
		if !strings.HasPrefix(why, reading.StormWhy) || !strings.Contains(why, "tracking tried again after "+wait+", at ") {
			t.Fatalf("polled because %q, want a storm and tracking tried again after %s", why, wait)
		}
		if !s.Masters[0].TrackingFellBack() {
			t.Fatalf("a master polled after a storm does not say it fell back from tracking")
		}
		if !slices.ContainsFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnTrackingStorm && w.Text == why }) {
			t.Fatalf("no %s warning saying %q in %v", WarnTrackingStorm, why, s.Warnings)
		}
		if len(s.Locks) != locks || unknownCells(s) != 0 {
			t.Fatalf("after the storm: %d locks, %d unknown", len(s.Locks), unknownCells(s))
		}
	}
	stormedFor("2.0s")
	s := pollUntil(t, c.mon, 30*time.Second, "the master tracked again after the backoff", func(s Snapshot) bool {
		return s.Masters[0].Refresh == RefreshTracking
	})
	if why := s.Masters[0].RefreshWhy; why != "full re-read: tracking (re)started" {
		t.Fatalf("the first tracked poll after the backoff: %q, want a full re-read", why)
	}
	if len(s.Locks) != locks || unknownCells(s) != 0 || slices.ContainsFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnTrackingStorm }) {
		t.Fatalf("tracked again: %d locks, %d unknown, warnings %v", len(s.Locks), unknownCells(s), s.Warnings)
	}
	stormedFor("4.0s")
}
