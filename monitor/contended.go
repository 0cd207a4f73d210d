package monitor

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Tokens contending with no quorum known: two tokens each on 2 of 5 masters, the fifth not read (down, or
// its poll ran out of time). The lock is unknown, rightly: the fifth decides whether one of them holds it. But
// two clients both wrote their token where the other's could not be, and at most one of them can hold the lock;
// if the fifth has neither, none does and both are waiting on their retries. That is a warning, raised as a
// split is, when two polls in a row show the same two tokens or more (contention shows a new pair at each
// attempt), and standing, in the banner too, until a poll decides the lock.

// EventLockContended is the kind of the event of tokens contending with no quorum known.
const EventLockContended EventKind = "lock-contended"

// alarmContended is the alarm of tokens contending on an undecided lock: a warning, kept apart from
// alarmRules, whose alarms are of decided locks.
const alarmContended alarm = 1 << 7

// troubleContended is the banner's warning of a lock whose tokens contend with no quorum known.
var troubleContended = lockTrouble{SeverityWarning, WarnContended, "locks contended with no quorum known"}

// contendedTokens counts the tokens read on the masters that answered for v, and the masters of each, in the
// order first read; duplicates of another master (masters) are left out.
func contendedTokens(v *LockView, masters []MasterStatus) []tokenCount {
	var counts []tokenCount
	for j, c := range v.Masters {
		if c.State != CellSeen || j < len(masters) && masters[j].health.sameAs != "" {
			continue
		}
		k := 0
		for k < len(counts) && counts[k].token != c.Token {
			k++
		}
		if k == len(counts) {
			counts = append(counts, tokenCount{token: c.Token})
		}
		counts[k].count++
	}
	return counts
}

// contend moves the contended alarm of an undecided lock (v unknown): shown when two tokens or more were read,
// raised with its event when the poll before showed it with two of the same tokens, standing after that.
func (m lockMove) contend(events []Event, now time.Time) []Event {
	v, p := m.v, m.p
	counts := contendedTokens(v, m.masters)
	if len(counts) < 2 {
		return events
	}
	switch {
	case p.hist.standing&alarmContended != 0:
		v.hist.standing |= alarmContended
	case p.hist.pending&alarmContended != 0 && sharedTokens(p, v) >= 2:
		v.hist.standing |= alarmContended
		parts := make([]string, len(counts))
		for k, tc := range counts {
			parts[k] = fmt.Sprintf("%s on %s", vocab.Quote(tc.token), vocab.Count(tc.count, "master"))
		}
		events = m.event(events, now, EventLockContended, fmt.Sprintf("contended: %s, none on a quorum; %s not read "+
			"decide whether one holds it", strings.Join(parts, ", "), vocab.Count(v.Unknown, "master")))
	default:
		v.hist.pending |= alarmContended
	}
	return events
}

// contendedText is the banner's warning of l, whose tokens contend.
func contendedText(l *LockView) string {
	return fmt.Sprintf("lock %s: %d tokens contend, none on a quorum, and %s not read decide whether one holds it",
		vocab.Quote(l.Resource), len(l.hist.tokens), vocab.Count(l.Unknown, "master"))
}
