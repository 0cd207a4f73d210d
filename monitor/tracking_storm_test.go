package monitor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTrackingStormRetriesAfterBackoff storms a tracked master (its tracking table shrunk below the locks
// watched): it is polled, with the warning, and says when tracking is tried again; after the backoff it is
// tracked again, every key read anew; the storm, still there, turns it to polling again for twice as long.
func TestTrackingStormRetriesAfterBackoff(t *testing.T) {
	c, _ := trackedCluster(t, "lock:0")
	track := c.mon.pollers[0].(*poller).track
	track.backoff = 2 * time.Second // the poller's: no poll runs now
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
		if !strings.HasPrefix(why, stormWhy) || !strings.Contains(why, "tracking tried again after "+wait+", at ") {
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

// TestTrackingStormBackoffDoublesUpToAnHour storms a tracker again and again: each storm waits twice as long
// as the one before, up to an hour; the master is polled until the wait has passed, and tracked after.
func TestTrackingStormBackoffDoublesUpToAnHour(t *testing.T) {
	tr := &tracker{backoff: stormRetryFirst}
	read, before := make([]KeyReading, stormMinKeys), map[string]cachedKey{}
	for i := range read {
		read[i] = KeyReading{Key: "lock:" + strconv.Itoa(i), Value: "token", PTTL: NoTTL}
		before[read[i].Key] = cachedOf(&read[i])
	}
	for _, want := range []time.Duration{10 * time.Minute, 20 * time.Minute, 40 * time.Minute, time.Hour, time.Hour} {
		for i := range stormPolls {
			if got := tr.stormed(read, before); got != (i == stormPolls-1) {
				t.Fatalf("poll %d of a storm: stormed %v", i+1, got)
			}
		}
		stormAt := time.Now()
		if wait := tr.retryAt.Sub(stormAt); wait > want || wait < want-time.Minute {
			t.Fatalf("tracking tried again after %v, want %v", wait, want)
		}
		if why := tr.pollingFor(tr.retryAt.Add(-time.Millisecond)); !strings.HasPrefix(why, stormWhy) {
			t.Fatalf("just before the retry the master is polled because %q", why)
		}
		if why := tr.pollingFor(tr.retryAt); why != "" {
			t.Fatalf("at the retry the master is still polled: %q", why)
		}
	}
	tr.off, tr.retryAt = "CLIENT refused: NOPERM", time.Time{}
	if why := tr.pollingFor(time.Now().Add(24 * time.Hour)); why != tr.off {
		t.Fatalf("a refusal was lifted: %q", why)
	}
}
