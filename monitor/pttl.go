package monitor

import "time"

// PTTLAt is the key's remaining TTL at now, counted from when it was read: PTTL less the time since ReadAt, and
// never below zero; NoTTL for a key that never expires. A cell a tracked master did not read again keeps the
// PTTL of its last read, so every surface that shows a TTL shows this rather than PTTL.
func (c MasterLock) PTTLAt(now time.Time) time.Duration {
	if c.PTTL == NoTTL || c.ReadAt.IsZero() {
		return c.PTTL
	}
	return max(c.PTTL-now.Sub(c.ReadAt), 0)
}
