package monitor

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// maxLockWarnings caps the warnings of one kind naming locks; the rest are counted in one.
const maxLockWarnings = 10

// warnings computes the current warnings of s (whose masters and locks are set), adds the per-master ones to
// its masters, and returns the clock-warning events of masters that were not warned about before.
func warnings(s *Snapshot, now time.Time, cfg Config) ([]Warning, []Event) {
	var ws []Warning
	var events []Event
	add := func(sev Severity, kind, master, text string) {
		ws = append(ws, Warning{Severity: sev, Kind: kind, Master: master, Text: text})
	}
	n := len(s.Masters)
	if s.UpCount < s.Quorum {
		add(SeverityError, WarnQuorumDown, "", fmt.Sprintf("only %d of %d masters answered, quorum is %d: no lock can be acquired", s.UpCount, n, s.Quorum))
	}
	if n < 3 || n%2 == 0 {
		add(SeverityWarning, WarnMasterCount, "", fmt.Sprintf("%s: use an odd number, at least 3", textfmt.Plural(n, "master")))
	}
	for _, m := range s.Masters {
		if m.health.sameAs != "" {
			add(SeverityError, WarnDuplicate, m.Addr, fmt.Sprintf("same server as %s (run_id %s): counted once", m.health.sameAs, m.RunID))
		}
	}
	if s.Truncated {
		add(SeverityWarning, WarnTruncated, "", fmt.Sprintf("more than %d lock keys: the rest are not tracked", cfg.MaxKeys))
	}
	lockWarning := func(counter *int, sev Severity, kind, resource, text string) {
		if *counter++; *counter <= maxLockWarnings {
			ws = append(ws, Warning{Severity: sev, Kind: kind, Resource: resource, Text: text})
		}
	}
	var foreign, lost, quorumLost, stuck int
	for _, l := range s.Locks {
		switch {
		case l.State == StateLost:
			lockWarning(&lost, SeverityError, WarnLockLost, l.Resource, fmt.Sprintf("our lock on %q has no quorum", l.Resource))
		case l.QuorumLost:
			lockWarning(&quorumLost, SeverityError, WarnQuorumLost, l.Resource, fmt.Sprintf("lock %q lost its quorum: its holder may still believe it holds it while another client can take it", l.Resource))
		case l.State == StateStuck:
			lockWarning(&stuck, SeverityWarning, WarnStuck, l.Resource, fmt.Sprintf("lock %q has no TTL on %s: it is never released by expiry", l.Resource, textfmt.Plural(l.Count, "master")))
		case l.Foreign:
			var others []string
			for j, c := range l.Masters {
				if c.Present() && c.Token != l.Holder {
					others = append(others, s.Masters[j].Addr)
				}
			}
			lockWarning(&foreign, SeverityWarning, WarnForeignTokens, l.Resource, fmt.Sprintf("lock %q is held but another token is on %s", l.Resource, strings.Join(others, ", ")))
		}
	}
	for _, more := range []struct {
		n    int
		sev  Severity
		kind string
		what string
	}{
		{lost, SeverityError, WarnLockLost, "of our locks with no quorum"},
		{quorumLost, SeverityError, WarnQuorumLost, "locks that lost their quorum"},
		{stuck, SeverityWarning, WarnStuck, "locks without a TTL"},
		{foreign, SeverityWarning, WarnForeignTokens, "held locks with another token on some master"},
	} {
		if more.n > maxLockWarnings {
			add(more.sev, more.kind, "", fmt.Sprintf("and %d more %s", more.n-maxLockWarnings, more.what))
		}
	}

	allowance := redlock.DriftAllowance(s.maxTTL, cfg.DriftFactor)
	longest := s.maxTTL
	for i := range s.Masters {
		m := &s.Masters[i]
		if m.health.state != healthUp {
			switch m.health.state {
			case healthDown:
				add(SeverityWarning, WarnMasterDown, m.Addr, "down: "+m.Err)
			default:
				add(SeverityWarning, WarnMasterDown, m.Addr, fmt.Sprintf("not answering (%s missed): %s", textfmt.Plural(m.health.missed, "poll"), m.Err))
			}
			continue
		}
		if m.Sweep.Completed == 0 {
			add(SeverityWarning, WarnSweeping, m.Addr, "first scan in progress ("+m.Sweep.Progress()+"): locks it has not reached are not shown yet")
		}
		if m.Role == "slave" {
			add(SeverityError, WarnReplica, m.Addr, "is a replica: Redlock needs independent masters")
		}
		if m.Replicas > 0 {
			add(SeverityWarning, WarnHasReplicas, m.Addr, fmt.Sprintf("has %d replicas: a failover can break mutual exclusion", m.Replicas))
		}
		if !m.LastRestart.IsZero() && now.Sub(m.LastRestart) < longest {
			add(SeverityError, WarnRestart, m.Addr, fmt.Sprintf("started %s ago, less than the longest TTL (%s): it may grant a lock others still hold",
				ShortDuration(now.Sub(m.LastRestart)), ShortDuration(longest)))
		}
	}
	// Clocks. Redlock needs the masters' clocks to tick at the same rate as the clients' (drift), not to agree
	// (offset): an offset alone is harmless, and is only told because a clock set by hand may also jump. When
	// every master is off, or drifts, the same way, the clock at fault is ours: one warning says so instead of
	// one per master.
	offset := func(m *MasterStatus) bool {
		return m.health.state == healthUp && m.ClockKnown && s.maxTTL > 0 && abs(m.ClockOffset)-m.ClockUncertainty > allowance
	}
	drifting := func(m *MasterStatus) bool {
		return m.health.state == healthUp && m.DriftKnown && driftTooFast(m.DriftPPM, s.maxTTL, cfg.DriftFactor)
	}
	offsetOurs, offsetSign := sameWay(s.Masters, offset, func(m *MasterStatus) float64 { return float64(m.ClockOffset) })
	driftOurs, driftSign := sameWay(s.Masters, drifting, func(m *MasterStatus) float64 { return m.DriftPPM })
	if offsetOurs {
		add(SeverityWarning, WarnClockOffset, "", fmt.Sprintf("our clock is %s every master's: the offset is this machine's; "+
			"harmless alone (Redlock needs clocks to tick at the same rate, not to agree)", aheadOrBehind(-offsetSign)))
	}
	if driftOurs {
		add(SeverityWarning, WarnClockDrift, "", fmt.Sprintf("our clock runs %s than every master's: the drift is this "+
			"machine's, and it shortens or stretches the validity this program computes", fasterOrSlower(-driftSign)))
	}
	for i := range s.Masters {
		m := &s.Masters[i]
		var why []string
		if offset(m) && !offsetOurs {
			why = append(why, "offset")
			add(SeverityWarning, WarnClockOffset, m.Addr, fmt.Sprintf("clock %s %s ours: harmless alone (Redlock needs "+
				"clocks to tick at the same rate, not to agree), but a clock set by hand may jump", ShortDuration(abs(m.ClockOffset)),
				aheadOrBehind(sign(float64(m.ClockOffset)))))
		}
		if drifting(m) && !driftOurs {
			why = append(why, "drift")
			add(SeverityWarning, WarnClockDrift, m.Addr, fmt.Sprintf("clock runs %s than ours by %s: more than the drift "+
				"factor %g allows; its keys expire early or late", fasterOrSlower(sign(m.DriftPPM)), ppm(m.DriftPPM), cfg.DriftFactor))
		}
		clock := len(why) > 0
		if clock && !m.hist.clockWarned {
			events = append(events, Event{Time: now, Kind: EventClockWarning, Master: m.Addr,
				Text: "clock " + strings.Join(why, " and ") + " beyond the allowance"})
		}
		m.hist.clockWarned = clock
	}
	for i := range s.Masters {
		m := &s.Masters[i]
		for _, w := range ws {
			if w.Master == m.Addr {
				m.Warnings = append(m.Warnings, w.Text)
			}
		}
	}
	return ws, events
}
