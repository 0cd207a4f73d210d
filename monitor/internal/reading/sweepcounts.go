package reading

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// lockShaped reports whether a key that discovery found, read as k, may be a lock under the default pattern:
// a hash lock, a sorted set (judged by lockshape.SetShapeOf, under any pattern), a key without a TTL (judged by the
// stuck-lock rule instead), or a string whose value is lock-shaped.
func lockShaped(k KeyReading) bool {
	return k.Fields != nil || k.Set != nil || k.PTTL == NoTTL || lockshape.LockShapedValue(k.Key, k.Value)
}

// sweepCounts are what the current sweep of one master passed over, so far.
type sweepCounts struct {
	notLockShaped int64 // keys with a TTL that are not lock-shaped (default pattern only)
	refused       int64 // keys whose read the master refused (the user's ACL key patterns)
}

// count adds what one discovery step passed over to the current sweep, and publishes the larger of this
// sweep's count so far and the last full sweep's in d.sweep, so the figure does not drop to 0 as a sweep
// starts again.
func (d *discovery) count(notLockShaped, refused int64) {
	d.counts.notLockShaped += notLockShaped
	d.counts.refused += refused
	d.sweep.NotLockShaped = max(d.sweep.NotLockShaped, d.counts.notLockShaped)
	d.sweep.Refused = max(d.sweep.Refused, d.counts.refused)
}

// sweepDone publishes the counts of the sweep that just ended and starts the next sweep's at zero.
func (d *discovery) sweepDone() {
	d.sweep.NotLockShaped, d.sweep.Refused = d.counts.notLockShaped, d.counts.refused
	d.counts = sweepCounts{}
}

// Sweep is the progress of discovery on one master: SCAN continues from poll to poll under the work budget,
// so a full sweep of a large keyspace spreads over several polls.
type Sweep struct {
	Scanned       int64     // keys scanned in the current sweep
	Total         int64     // keys in the database (DBSIZE) at the last poll; -1 unknown
	Started       time.Time // when the current sweep began
	Completed     int       // full sweeps finished since the monitor started
	LastCompleted time.Time // when the last full sweep finished; zero if none
	// NotLockShaped and Refused are the keys the last full sweep (before one has finished: the current one
	// so far) passed over: keys with a TTL that are not lock-shaped (default pattern only, see lockshape), and
	// keys whose read the master refused (ACL key patterns).
	NotLockShaped int64
	Refused       int64
}

// Progress describes the sweep in a few words: "41% of 1,000,000 keys" or "12,000 keys".
func (w Sweep) Progress() string {
	if w.Total > 0 {
		return fmt.Sprintf("%d%% of %s keys", min(100, w.Scanned*100/w.Total), vocab.Thousands(w.Total))
	}
	return vocab.Thousands(w.Scanned) + " keys"
}
