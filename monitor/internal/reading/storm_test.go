package reading

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

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
		if why := tr.pollingFor(tr.retryAt.Add(-time.Millisecond)); !strings.HasPrefix(why, StormWhy) {
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
