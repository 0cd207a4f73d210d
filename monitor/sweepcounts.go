package monitor

import (
	"fmt"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
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

// NotLockShaped is how many keys with a TTL the masters hold that are not lock-shaped, so not listed (default
// pattern only): the sum over distinct servers of their last full sweep's count (or, before one finished,
// the count so far).
func (s Snapshot) NotLockShaped() int64 {
	var n int64
	for _, m := range s.Masters {
		if m.DuplicateOf == "" {
			n += m.Sweep.NotLockShaped
		}
	}
	return n
}

// notLockShapedText is the line that tells how many keys were left out as not lock-shaped, "" for none.
func notLockShapedText(n int64) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "1 key with a TTL is not lock-shaped: --pattern shows it"
	}
	return fmt.Sprintf("%s keys with a TTL are not lock-shaped: --pattern shows them", textfmt.Thousands(int(n)))
}
