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
	heldBy     string      // the holder as of the last snapshot that decided the state ("" not held), kept while unknown
	pending    alarm       // alarms seen by this poll alone, which the next poll confirms or dismisses
	standing   alarm       // alarms confirmed and still true (a quorum lost is LockView.QuorumLost)
}

// alarm is a set of the lock conditions that are errors, and so are confirmed before they are raised.
type alarm uint8

// Alarms.
const (
	alarmQuorumLost alarm = 1 << iota // the holder's key gone early on some masters, alive on fewer than a quorum
	alarmSplit                        // two or more tokens, none on a quorum
	alarmLost                         // our lock on no quorum
)
