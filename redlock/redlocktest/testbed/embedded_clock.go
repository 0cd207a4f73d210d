package testbed

import "time"

// ResetClock sets this master's clock back to real time, running at real speed, as an operator who fixes a
// clock that jumped or ran fast would. Keys keep the TTL they have left: setting the clock back does not
// give them back what a jump took.
func (e *Embedded) ResetClock() {
	e.clockMu.Lock()
	defer e.clockMu.Unlock()
	now := time.Now()
	e.realBase, e.virtBase, e.rate = now, now, 1
	e.mr.SetTime(now)
}
