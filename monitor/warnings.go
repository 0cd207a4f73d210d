package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// maxLockWarnings caps the warnings of one kind naming locks; the rest are counted in one.
const maxLockWarnings = 10

// warnings computes the current warnings of s, whose masters and locks are set, given how its clocks were
// judged: about the set of masters, the locks, each master, then the clocks. It changes nothing: Aggregate
// hands each master the texts about it (textsAbout).
func warnings(s *Snapshot, clocks clockJudgement, now time.Time, cfg Config) []Warning {
	ws := warnSet(nil, s, cfg)
	ws = append(ws, s.lockWarnings...)
	ws = warnMasters(ws, s.Masters, s.maxTTL, now)
	ws = warnClusters(ws, s, now, cfg)
	return warnClocks(ws, s.Masters, clocks, cfg)
}

// warn is a warning about a master, or about the whole set when master is "".
func warn(sev Severity, kind, master, text string) Warning {
	return Warning{Severity: sev, Kind: kind, Master: master, Text: text}
}

// warnSet appends to ws what is wrong with the set of masters: too few answer for a quorum, their number,
// two addresses of one server, and more lock keys than are tracked.
func warnSet(ws []Warning, s *Snapshot, cfg Config) []Warning {
	n := len(s.Masters)
	if s.UpCount < s.Quorum {
		ws = append(ws, warn(SeverityError, WarnQuorumDown, "", fmt.Sprintf("only %d of %d masters answered, quorum is %d: no lock can be acquired", s.UpCount, n, s.Quorum)))
	}
	if (n < 3 || n%2 == 0) && !s.clusterOnly() { // a cluster is one lock service, of one master
		ws = append(ws, warn(SeverityWarning, WarnMasterCount, "", fmt.Sprintf("%s: use an odd number, at least 3", vocab.Count(n, "master"))))
	}
	for _, m := range s.Masters {
		if m.health.sameAs != "" {
			ws = append(ws, warn(SeverityError, WarnDuplicate, m.Addr, fmt.Sprintf("%s (run_id %s): counted once", SameServerText(m.health.sameAs), m.RunID)))
		}
	}
	if s.Unread > 0 {
		ws = append(ws, warn(SeverityWarning, WarnUnread, "", fmt.Sprintf("%s not read on every master that answered "+
			"in the last poll (%s): shown as last seen", vocab.Count(s.Unread, "lock"), unreadWhy(s))))
	}
	if s.Truncated {
		ws = append(ws, warn(SeverityWarning, WarnTruncated, "", fmt.Sprintf("%s more lock keys not tracked: more than "+
			"--max-keys %s", vocab.Thousands(s.Untracked), vocab.Thousands(cfg.MaxKeys))))
	}
	return ws
}

// lockTrouble is one kind of trouble a lock can be in, as warned about: at most maxLockWarnings locks are
// named, the rest counted in one more warning.
type lockTrouble struct {
	sev  Severity
	kind string
	more string // what the "and N more ..." warning counts
}

// The kinds of lock trouble, in the order a lock is checked for them: the first that fits is the one told.
var (
	troubleLost       = lockTrouble{SeverityError, WarnLockLost, "of our locks with no quorum"}
	troubleExpired    = lockTrouble{SeverityWarning, WarnOwnExpired, "of our locks that expired"}
	troubleQuorumLost = lockTrouble{SeverityError, WarnQuorumLost, "locks that lost their quorum"}
	troubleStuck      = lockTrouble{SeverityError, WarnStuck, "locks without a TTL"}
	troubleForeign    = lockTrouble{SeverityWarning, WarnForeignTokens, "held locks with another token on some master"}
	lockTroubles      = []lockTrouble{troubleLost, troubleExpired, troubleQuorumLost, troubleStuck, troubleForeign, troubleContended}
)

// warnLocks appends to ws a warning for each lock in trouble (s.troubled), capped per kind of trouble.
func warnLocks(ws []Warning, s *Snapshot) []Warning {
	counts := map[string]int{}
	for _, res := range s.troubled {
		l := s.Lock(res)
		trouble, text, _ := lockTroubleOf(l, s.Masters)
		if counts[trouble.kind]++; counts[trouble.kind] <= maxLockWarnings {
			ws = append(ws, Warning{Severity: trouble.sev, Kind: trouble.kind, Resource: l.Resource, Text: text})
		}
	}
	for _, trouble := range lockTroubles {
		if n := counts[trouble.kind]; n > maxLockWarnings {
			ws = append(ws, warn(trouble.sev, trouble.kind, "", fmt.Sprintf("and %d more %s", n-maxLockWarnings, trouble.more)))
		}
	}
	return ws
}

// troubledLocks returns, sorted, the resources of s's locks in trouble (lockTroubleOf): those of prev, less
// the ones a poll with changes looked at again, and those of these in trouble now; when changes is nil, every
// lock's.
func (s *Snapshot) troubledLocks(prev *Snapshot, changes *lockChanges) []string {
	var out []string
	inTrouble := func(l *LockView) bool {
		_, _, ok := lockTroubleOf(l, s.Masters)
		return ok
	}
	if changes == nil {
		for _, l := range s.Locks {
			if inTrouble(l) {
				out = append(out, l.Resource)
			}
		}
		return out
	}
	for _, res := range prev.troubled {
		if _, looked := slices.BinarySearch(changes.resources, res); !looked {
			out = append(out, res)
		}
	}
	for _, res := range changes.resources {
		if l := s.Lock(res); l != nil && inTrouble(l) {
			out = append(out, res)
		}
	}
	slices.Sort(out)
	return out
}

// lockTroubleOf is the trouble lock l is in, with the warning's text; false when it is in none.
func lockTroubleOf(l *LockView, masters []MasterStatus) (lockTrouble, string, bool) {
	switch {
	case l.State == StateLost:
		return troubleLost, "our lock on " + vocab.Quote(l.Resource) + " has no quorum", true
	case l.Expired:
		return troubleExpired, "our lock on " + vocab.Quote(l.Resource) + " expired: its TTL ran out before it was released " +
			"or extended; release it to clear this", true
	case l.QuorumLost:
		return troubleQuorumLost, "lock " + vocab.Quote(l.Resource) + " lost its quorum: its holder may still believe it holds it while another client can take it", true
	case l.State == StateStuck:
		return troubleStuck, stuckWarningText(l, masters), true
	case l.Foreign:
		var others []string
		for j, c := range l.Masters {
			if c.Present() && c.Token != l.Holder {
				others = append(others, masters[j].Addr)
			}
		}
		return troubleForeign, fmt.Sprintf("lock %s is held but another token is on %s", vocab.Quote(l.Resource), strings.Join(others, ", ")), true
	case l.hist.standing&alarmContended != 0:
		return troubleContended, contendedText(l), true
	}
	return lockTrouble{}, "", false
}

// warnMasters appends to ws what is wrong with each master: not answering or down; and, for one that
// answers, a first scan not finished, being a replica or having some, a restart or a failover more recent
// than the longest TTL seen (longest), and a maxmemory-policy that may evict lock keys.
func warnMasters(ws []Warning, masters []MasterStatus, longest time.Duration, now time.Time) []Warning {
	for _, m := range masters {
		switch m.health.state {
		case healthUp:
		case healthDown:
			ws = append(ws, warn(SeverityWarning, WarnMasterDown, m.Addr, string(MasterDown)+": "+m.Err))
			continue
		default:
			ws = append(ws, warn(SeverityWarning, WarnMasterDown, m.Addr, fmt.Sprintf("%s (%s missed): %s", MasterSilent, vocab.Count(m.health.missed, "poll"), m.Err)))
			continue
		}
		if m.Sweep.Completed == 0 {
			ws = append(ws, warn(SeverityWarning, WarnSweeping, m.Addr, "first scan in progress ("+m.Sweep.Progress()+"): locks it has not reached are not shown yet"))
		}
		if m.Role == "slave" {
			ws = append(ws, warn(SeverityError, WarnReplica, m.Addr, replicaText(m)))
		}
		if m.Replicas > 0 {
			ws = append(ws, warn(SeverityWarning, WarnHasReplicas, m.Addr, fmt.Sprintf("has %d replicas: a failover can break mutual exclusion", m.Replicas)))
		}
		if !m.LastRestart.IsZero() && now.Sub(m.LastRestart) < longest {
			ws = append(ws, restartWarning(m, longest, now))
		}
		ws = warnFailover(ws, m, longest, now)
		ws = warnRefresh(ws, m)
		if w, ok := evictionWarning(&m); ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// warnClocks appends to ws the clock warnings: one about our own clock when every master is off, or
// drifts, the same way (see judgeClocks); otherwise one per master beyond the allowance.
func warnClocks(ws []Warning, masters []MasterStatus, c clockJudgement, cfg Config) []Warning {
	if c.offsetOurs {
		ws = append(ws, warn(SeverityWarning, WarnClockOffset, "", fmt.Sprintf("our clock is %s every master's: the offset is this machine's; "+
			"harmless alone (Redlock needs clocks to tick at the same rate, not to agree)", vocab.AheadOrBehind(-c.offsetSign))))
	}
	if c.driftOurs {
		ws = append(ws, warn(SeverityWarning, WarnClockDrift, "", fmt.Sprintf("our clock runs %s than every master's: the drift is this "+
			"machine's, and it shortens or stretches the validity this program computes", vocab.FasterOrSlower(-c.driftSign))))
	}
	for i, m := range masters {
		if c.offsetOf(i) {
			ws = append(ws, warn(SeverityWarning, WarnClockOffset, m.Addr, fmt.Sprintf("clock %s %s ours: harmless alone (Redlock needs "+
				"clocks to tick at the same rate, not to agree), but a clock set by hand may jump", vocab.ShortDuration(abs(m.ClockOffset)),
				vocab.AheadOrBehind(sign(float64(m.ClockOffset))))))
		}
		if c.driftOf(i) {
			ws = append(ws, warn(SeverityWarning, WarnClockDrift, m.Addr, fmt.Sprintf("clock runs %s than ours by %s: more than the drift "+
				"factor %g allows; its keys expire early or late", vocab.FasterOrSlower(sign(m.DriftPPM)), vocab.DriftSize(m.DriftPPM, m.DriftUncertPPM), cfg.DriftFactor)))
		}
	}
	return ws
}

// textsAbout returns the texts of the warnings of ws about master addr, nil when there are none.
func textsAbout(ws []Warning, addr string) []string {
	var texts []string
	for _, w := range ws {
		if w.Master == addr {
			texts = append(texts, w.Text)
		}
	}
	return texts
}
