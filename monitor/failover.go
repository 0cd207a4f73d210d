package monitor

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Failovers. A master of a Redlock set may be a primary with replicas that Sentinels fail over
// (redlock.NewFailoverClient). A lock its primary granted reaches the replicas a moment later, so a failover in
// that moment hands the name to a primary without the lock, which can grant it again: the algorithm page's
// replication race. The monitor tells a failover from a restart by what the servers and the Sentinels say, and
// warns of the race until the longest lock TTL has passed since it saw the failover, as the restart rule does.
// A replica given as a master is named with its primary.

// EventMasterFailover is the event of a master whose primary changed: the Sentinels name another, or the
// server answering is a replica of the former one that took over (its INFO master_replid2 is the former's
// master_replid).
const EventMasterFailover EventKind = "master-failover"

// WarnFailover is the warning of a master whose primary changed less than the longest lock TTL ago.
const WarnFailover = "failover"

// failoverRace is the warning's text before the details.
const failoverRace = "failover: locks not yet replicated to the new primary may be lost (the algorithm page's replication race)"

// failedOver reports whether the server behind r took over from the one behind p: the Sentinels name another
// primary, or it is a new server whose replication history continues the former's (a promoted replica).
func failedOver(p *MasterStatus, r Reading) bool {
	if p.Primary != "" && r.Primary != "" && p.Primary != r.Primary {
		return true
	}
	return p.RunID != "" && r.RunID != "" && p.RunID != r.RunID && p.hist.replID != "" && r.ReplID2 == p.hist.replID
}

// noteFailover records on ms, the status from r that followed p, a failover seen at now, and returns its event.
func (ms *MasterStatus) noteFailover(p *MasterStatus, r Reading, now time.Time) Event {
	ms.LastFailover, ms.FormerPrimary = now, p.Primary
	ms.forgetDrift() // another server, with its own clock
	text := fmt.Sprintf("failover: primary %s -> %s", p.Primary, r.Primary)
	if p.Primary == "" || r.Primary == "" {
		text = fmt.Sprintf("failover: run_id %s -> %s, a replica of the former primary took over", p.RunID, r.RunID)
	}
	return Event{Time: now, Kind: EventMasterFailover, Master: r.Addr, Text: text}
}

// inReplicationRace reports whether m failed over less than longest (the longest lock TTL) before now: locks
// its former primary granted may be missing on the new one.
func (m *MasterStatus) inReplicationRace(now time.Time, longest time.Duration) bool {
	return !m.LastFailover.IsZero() && now.Sub(m.LastFailover) < longest
}

// warnFailover appends to ws the warning of a master in a failover's replication race.
func warnFailover(ws []Warning, m MasterStatus, longest time.Duration, now time.Time) []Warning {
	if !m.inReplicationRace(now, longest) {
		return ws
	}
	change := "to " + m.Primary
	if m.FormerPrimary != "" && m.Primary != "" {
		change = "primary " + m.FormerPrimary + " -> " + m.Primary
	} else if m.Primary == "" {
		change = "to run_id " + m.RunID
	}
	return append(ws, warn(SeverityError, WarnFailover, m.Addr, fmt.Sprintf("%s: %s %s ago, less than the longest TTL (%s)",
		failoverRace, change, vocab.ShortDuration(now.Sub(m.LastFailover)), vocab.ShortDuration(longest))))
}

// replicaText is the warning about a master that is a replica, naming its primary when INFO tells it.
func replicaText(m MasterStatus) string {
	if m.ReplicaOf != "" {
		return "is a replica of " + m.ReplicaOf + ": Redlock needs independent masters"
	}
	return "is a replica: Redlock needs independent masters"
}

// RoleText is m's role for the table, with the server behind it: "master at 10.0.0.2:6379" for a master named
// through Sentinels, "slave of 10.0.0.2:6379" for a replica whose INFO names its primary.
func (m MasterStatus) RoleText() string {
	switch {
	case m.Role == "slave" && m.ReplicaOf != "":
		return m.Role + " of " + m.ReplicaOf
	case m.Primary != "":
		return m.Role + " at " + m.Primary
	}
	return m.Role
}

// countUnsafe counts the masters of s that answer but cannot be counted on: replicas, and primaries in a
// failover's replication race. The header does not say OK while there are any.
func (s *Snapshot) countUnsafe(now time.Time) {
	s.Unsafe = 0
	for _, m := range s.Masters {
		if m.health.sameAs == "" && (m.Up && m.Role == "slave" || m.inReplicationRace(now, s.maxTTL)) {
			s.Unsafe++
		}
	}
}
