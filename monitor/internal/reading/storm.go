package reading

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// An invalidation storm: a master whose tracking table is over its tracking-table-max-keys evicts keys from
// it and invalidates them although they did not change; re-reading them tracks them again and evicts others,
// so every poll re-reads thousands of unchanged keys, at more cost than polling. stormPolls polls in a row
// with at least stormMinKeys re-read keys unchanged, and most of them, turn the master to polling.
const (
	stormMinKeys = 100
	stormPolls   = 3
)

// A master an invalidation storm turned to polling tries tracking again after stormRetryFirst, a wait doubled
// on each new storm up to stormRetryMax (tracker.backoff).
const (
	stormRetryFirst = 10 * time.Minute
	stormRetryMax   = time.Hour
)

// StormWhy begins the reason of a master polled after an invalidation storm.
const StormWhy = "invalidation storm"

// stormWatch counts the polls in a row that looked like a storm.
type stormWatch struct {
	polls     int
	unchanged int
}

// stormed reports, after a poll read keys (read) of which those invalidated had the readings before, whether
// the invalidations have looked like a storm for stormPolls polls; it then turns tracking off until the
// backoff has passed, and doubles the next one.
func (t *tracker) stormed(read []KeyReading, before map[string]cachedKey) bool {
	reread, unchanged := 0, 0
	for i := range read {
		if b, ok := before[read[i].Key]; ok {
			reread++
			if sameReading(b, cachedOf(&read[i]), read[i].ReadWithin) {
				unchanged++
			}
		}
	}
	w := &t.storm
	if unchanged < stormMinKeys || 2*unchanged < reread {
		*w = stormWatch{}
		return false
	}
	w.polls++
	w.unchanged += unchanged
	if w.polls < stormPolls {
		return false
	}
	wait := t.backoff
	t.retryAt, t.backoff = time.Now().Add(wait), min(2*wait, stormRetryMax)
	_ = t.turnOff(fmt.Sprintf("%s: %d invalidations of unchanged keys in %d polls (is the master's tracking-table-max-keys below the keys watched?); polled instead, tracking tried again after %s, at %s",
		StormWhy, w.unchanged, w.polls, vocab.ShortDuration(wait), t.retryAt.Format("15:04:05")))
	return true
}

// pollingFor returns why the master is polled at now, "" when tracking may be used: once the wait after an
// invalidation storm has passed, tracking is tried again (started anew, with every key read). A refusal stays.
func (t *tracker) pollingFor(now time.Time) string {
	if t.off != "" && !t.retryAt.IsZero() && !now.Before(t.retryAt) {
		t.off, t.retryAt, t.storm = "", time.Time{}, stormWatch{}
	}
	return t.off
}

// sameReading reports whether two reads of a key saw the same thing: the same value and the same expiry, to
// within the reads' uncertainty, each taken as within (the later read's: the tracker keeps no other).
func sameReading(a, b cachedKey, within time.Duration) bool {
	if a.sum != b.sum {
		return false
	}
	diff := time.Duration(a.end - b.end)
	return diff.Abs() <= 2*within+2*time.Millisecond // PTTL is in milliseconds
}
