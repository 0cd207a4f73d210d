package monitor

import "time"

// masterHistory is what Aggregate carries from one snapshot to the next for a master, beyond its visible fields.
type masterHistory struct {
	infoUptime  time.Duration // last uptime read from INFO, -1 unknown
	driftRef    time.Duration // clock offset at the start of the drift window
	driftRefUnc time.Duration // its uncertainty
	driftRefAt  time.Time     // local time of that sample; zero when no window is open
	clockWarned bool          // a clock warning was raised in the previous snapshot
}

// tokenSeen records when a token was first seen on a resource.
type tokenSeen struct {
	token string
	since time.Time
}

// lockHistory is what Aggregate carries from one snapshot to the next for a resource.
type lockHistory struct {
	tokens     []tokenSeen // tokens present in that snapshot with their first sighting
	lastHolder string      // the most recent holder, kept while the lock is partial or split
}
