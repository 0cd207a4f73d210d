package monitor

import "time"

// alarm is a set of the lock conditions that are errors, and so are confirmed before they are raised.
type alarm uint8

// Alarms.
const (
	alarmQuorumLost alarm = 1 << iota // the holder's key gone early on some masters, alive on fewer than a quorum
	alarmSplit                        // two or more tokens, none on a quorum
	alarmLost                         // our lock on no quorum
)

// sharedTokens counts the tokens that both p and v saw.
func sharedTokens(p, v *LockView) int {
	n := 0
	for _, t := range v.hist.tokens {
		for _, pt := range p.hist.tokens {
			if pt.token == t.token {
				n++
				break
			}
		}
	}
	return n
}

// vanishedEarly reports whether token, seen on some master in p (or last seen there, when p could not read
// it), is now read there as gone or replaced while its TTL had time left.
func vanishedEarly(p, v *LockView, token string, now time.Time) bool {
	for j, pc := range p.Masters {
		if j >= len(v.Masters) || pc.State == CellAbsent || pc.Token != token || pc.PTTL == NoTTL {
			continue
		}
		c := v.Masters[j]
		if c.State != CellUnknown && !c.Holds(token) && pc.ReadAt.Add(pc.PTTL).After(now.Add(expiryTolerance)) {
			return true
		}
	}
	return false
}

// liveOn counts the masters where token was seen in this poll with time left.
func liveOn(v *LockView, token string, now time.Time) int {
	n := 0
	for _, c := range v.Masters {
		if c.Holds(token) && (c.PTTL == NoTTL || c.PTTL+c.ReadAt.Sub(now) > 0) {
			n++
		}
	}
	return n
}
