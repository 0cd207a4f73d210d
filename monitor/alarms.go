package monitor

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// alarm is a set of the lock conditions that are errors, and so are confirmed before they are raised.
type alarm uint8

// Alarms.
const (
	alarmQuorumLost alarm = 1 << iota // the holder's key gone early on some masters, alive on fewer than a quorum
	alarmSplit                        // two or more tokens, none on a quorum
	alarmLost                         // our lock on no quorum
)

// alarmStep is what becomes of an alarm that this poll shows. An alarm is raised when two polls in a row show
// it (see "Alarms are confirmed by the next poll" in the package documentation): the first leaves it pending
// and shows the lock unconfirmed, the second confirms it if it still holds.
type alarmStep uint8

// Alarm steps.
const (
	alarmPends  alarmStep = iota // new, or not shown the same way as before: pending, the lock unconfirmed
	alarmRaised                  // pending before and shown the same way again: confirmed now, with its event
	alarmStands                  // confirmed before: it stands, without a new event
)

// confirm is the step of alarm a, which this poll shows (same: the same way as the poll that left it
// pending), after the previous poll left the lock's history prev.
func confirm(prev lockHistory, a alarm, same bool) alarmStep {
	switch {
	case prev.standing&a != 0:
		return alarmStands
	case prev.pending&a != 0 && same:
		return alarmRaised
	}
	return alarmPends
}

// alarmRules are the alarms of a decided lock, in the order their events are told. When a poll shows each,
// when two polls show it the same way, and its event's text are lockMove.shows, sameAsBefore and alarmText:
//
//	alarm        shown when                                     the same way when                  event
//	quorum lost  the last holder's key lives on, below quorum   always                             quorum-lost
//	split        the lock is split                              two tokens or more both polls saw  lock-split
//	lost         our lock is lost                               always                             lock-lost
var alarmRules = [...]struct {
	alarm alarm
	kind  EventKind
}{
	{alarmQuorumLost, EventQuorumLost},
	{alarmSplit, EventLockSplit},
	{alarmLost, EventLockLost},
}

// shows reports whether this poll, at now, shows alarm a.
func (m lockMove) shows(a alarm, now time.Time) bool {
	switch a {
	case alarmQuorumLost:
		return quorumLostShown(m.v, m.p, now)
	case alarmSplit:
		return m.v.State == StateSplit
	case alarmLost:
		return m.v.State == StateLost
	}
	return false
}

// sameAsBefore reports whether this poll shows alarm a the same way as the previous one. A split is the same
// only by tokens both polls saw: contention shows a new pair at each attempt.
func (m lockMove) sameAsBefore(a alarm) bool {
	if a == alarmSplit {
		return sharedTokens(m.p, m.v) >= 2
	}
	return true
}

// alarmText is the text of the event that raises alarm a at now.
func (m lockMove) alarmText(a alarm, now time.Time) string {
	switch a {
	case alarmQuorumLost:
		last := m.v.hist.lastHolder
		return fmt.Sprintf("holder %s lost its quorum: its key lives on %s", vocab.Quote(last),
			vocab.Count(liveOn(m.v, last, now), "master"))
	case alarmSplit:
		return fmt.Sprintf("split: %d tokens, none on a quorum", len(m.v.hist.tokens))
	case alarmLost:
		return "our lock is on no quorum"
	}
	return ""
}

// quorumLostShown reports whether v shows its last holder's quorum lost: nobody holds it, and the last
// holder's key lives on, but on fewer than a quorum, because some of its keys went before their TTL; its holder
// may still believe it holds the lock while another client can take it. It is judged against the last decided
// state: after polls that could not decide (a master not answering), a master back without the key it held
// takes that key from the count. Our own locks have their own alarm (lost). A sorted-set lock's holders are
// not judged by it: their members, not the key, expire.
func quorumLostShown(v, p *LockView, now time.Time) bool {
	last := v.hist.lastHolder
	if v.Holder != "" || v.Mine || last == "" || v.Holders != nil || liveOn(v, last, now) == 0 {
		return false
	}
	return (p.hist.standing|p.hist.pending)&alarmQuorumLost != 0 || p.hist.heldBy == last && vanishedEarly(p, v, last, now)
}

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
