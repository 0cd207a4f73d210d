package monitor

import (
	"time"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// Drift measurement: the rate is reported once the offset has been followed for driftMinWindow, and only when
// the two samples' uncertainties bound its error to a quarter of the rate the drift factor allows (a slow round
// trip is not taken for drift); the window restarts after driftMaxWindow so the figure follows the current rate.
const (
	driftMinWindow = 2 * time.Second
	driftMaxWindow = time.Minute
)

// sameWay reports whether every master that answers with a known value (two at least) is flagged by bad, in
// the same direction of value; it returns that direction's sign.
func sameWay(ms []MasterStatus, bad func(*MasterStatus) bool, value func(*MasterStatus) float64) (bool, float64) {
	n, dir := 0, 0.0
	for i := range ms {
		m := &ms[i]
		if !m.Up || !m.ClockKnown {
			continue
		}
		if !bad(m) {
			return false, 0
		}
		sg := sign(value(m))
		if n > 0 && sg != dir {
			return false, 0
		}
		n, dir = n+1, sg
	}
	return n >= 2, dir
}

// sign is -1, 0 or 1.
func sign(x float64) float64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// driftTooFast reports whether a clock drifting ppm would, over ttl, drift more than the allowance for ttl
// (with no TTL seen: whether it is faster than the drift factor).
func driftTooFast(ppm float64, ttl time.Duration, factor float64) bool {
	rate := ppm / 1e6
	if rate < 0 {
		rate = -rate
	}
	if ttl <= 0 {
		return rate > factor
	}
	return time.Duration(rate*float64(ttl)) > redlock.DriftAllowance(ttl, factor)
}

// abs returns |d|.
func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
