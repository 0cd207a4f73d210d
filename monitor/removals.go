package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// How a lock key goes before its TTL. Its holder's release deletes it; so does a master that evicts keys to
// make room (maxmemory-policy allkeys-*, volatile-*: volatile ones evict keys with a TTL, such as every lock,
// first), and FLUSHALL or FLUSHDB. The last two take a lock from under a holder that still runs, and they are
// not the holder's doing: telling them apart from a release is telling an error from the ordinary life of a
// lock. The master counts what it evicted (INFO stats evicted_keys) and the commands it ran (INFO commandstats:
// FLUSHALL, FLUSHDB, and DEL, UNLINK, GETDEL, also when a script runs them), which every poll reads in the
// round trip of its INFO, for about 16µs of the master's time: a lock gone from every master before its TTL is
// evicted when every master it went from evicted keys since its last answer, flushed when they were flushed,
// and released otherwise (history.go): also where a master's counters were not read (INFO refused, which its
// warning says is off) or are another server's (a restart, a failover). A release while the master evicts
// other keys is told as evicted (that is the side of caution), and its text says that a DEL ran there too. INFO memory's maxmemory_policy (no CONFIG permission needed) says whether a
// master may evict at all: one that may is warned about, naming the policy and the fix.

// removals are what a master's counters say of the keys that went from it between its last two answers.
type removals struct {
	known   bool // both answers had their counters, of one server, and none went back (CONFIG RESETSTAT)
	evicted bool // it evicted keys
	flushed bool // FLUSHALL or FLUSHDB ran, and its keys fell
	deleted bool // DEL, UNLINK or GETDEL ran (a client's, or a script's)
	expired bool // it expired keys
	// since is when the poll of its earlier answer began (Reading.Sent): a key read after it was read after the
	// earlier counters, so what became of it since is in these (handover.go); zero when not known.
	since time.Time
	// tracked is that both answers refreshed its keys by CLIENT TRACKING: a key not re-read was not written
	// since it was read, so its cell is as current as the earlier answer.
	tracked bool
}

// removalsBetween compares a master's counters and keys (DBSIZE; -1 unknown) at its last answer (was) and now.
func removalsBetween(was, is KeyCounters, keysWas, keysIs int64) removals {
	if !was.Known || !is.Known || is.Evicted < was.Evicted || is.Expired < was.Expired || is.Flushes < was.Flushes ||
		is.Deletes < was.Deletes {
		return removals{}
	}
	fell := keysWas < 0 || keysIs < 0 || keysIs < keysWas // a FLUSHDB of another database leaves this one
	return removals{known: true, evicted: is.Evicted > was.Evicted, flushed: is.Flushes > was.Flushes && fell,
		deleted: is.Deletes > was.Deletes, expired: is.Expired > was.Expired}
}

// noteRemovals sets what m's counters say of the keys that went from it since its last answer (p: nil when it
// is first seen), carrying its counters, and returns the event of a flush, if there was one. Another server
// behind the address (a restart, a failover: another run_id) has counters of its own: nothing is said.
func (m *MasterStatus) noteRemovals(p *MasterStatus, r Reading) (Event, bool) {
	if p == nil || p.RunID != "" && r.RunID != "" && p.RunID != r.RunID {
		m.hist.counters, m.hist.countersSent, m.removed = r.Counters, r.Sent, removals{}
		return Event{}, false
	}
	m.removed = removalsBetween(p.hist.counters, r.Counters, p.Sweep.Total, r.Sweep.Total)
	if m.removed.known {
		m.removed.since = p.hist.countersSent
		m.removed.tracked = p.Refresh == RefreshTracking && m.Refresh == RefreshTracking
	}
	if r.Counters.Known {
		m.hist.counters, m.hist.countersSent = r.Counters, r.Sent
	}
	if !m.removed.flushed {
		return Event{}, false
	}
	text := "flushed: FLUSHALL or FLUSHDB ran there"
	if p.Sweep.Total >= 0 && r.Sweep.Total >= 0 {
		text += fmt.Sprintf(", its keys went from %s to %s", vocab.Count(p.Sweep.Total, "key"), vocab.Thousands(int(r.Sweep.Total)))
	}
	return Event{Kind: EventMasterFlushed, Master: m.Addr, Text: text + ": every lock it held is gone from it"}, true
}

// evictingPolicy reports whether a maxmemory-policy may evict lock keys: every allkeys-* and volatile-* one.
func evictingPolicy(policy string) bool {
	return strings.HasPrefix(policy, "allkeys-") || strings.HasPrefix(policy, "volatile-")
}

// WarnEvictionPolicy is the kind of the warning about a master whose maxmemory-policy may evict lock keys.
const WarnEvictionPolicy = "eviction-policy"

// evictionWarning returns the warning about m's maxmemory-policy, and false when it evicts nothing (noeviction)
// or is unknown.
func evictionWarning(m *MasterStatus) (Warning, bool) {
	if !evictingPolicy(m.EvictionPolicy) {
		return Warning{}, false
	}
	which := "any key, locks too,"
	if strings.HasPrefix(m.EvictionPolicy, "volatile-") {
		which = "keys with a TTL, such as every lock, first"
	}
	text := fmt.Sprintf("maxmemory-policy %s evicts %s when memory is full: a lock then vanishes while its holder "+
		"still runs; set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and in its configuration file)",
		m.EvictionPolicy, which)
	switch {
	case m.MaxMemory == 0:
		text += "; no maxmemory is set, so nothing is evicted until one is"
	case m.EvictedKeys > 0:
		text += fmt.Sprintf("; it has evicted %s since it started", vocab.Count(m.EvictedKeys, "key"))
	}
	return warn(SeverityWarning, WarnEvictionPolicy, m.Addr, text), true
}

// serverRemoval returns the kind and text of the event of p, a lock gone from every master before its TTL, when
// the masters it went from in this poll removed it themselves: each evicted keys or was flushed since its last
// answer (masters, this snapshot's). It returns false when one of them did neither, or did not say (its
// counters unknown: INFO refused, whose warning says so; another server): a client deleted it there, or may
// have.
func serverRemoval(p *LockView, masters []MasterStatus) (kind EventKind, text string, ok bool) {
	var evicted, flushed, deletedToo, policies []string
	other := false
	for j, c := range p.Masters {
		if c.State == CellAbsent || c.Token == "" || j >= len(masters) {
			continue
		}
		m := &masters[j]
		switch g := m.removed; {
		case !g.known:
			other = true
		case g.flushed:
			flushed = append(flushed, m.Addr)
		case g.evicted:
			evicted = append(evicted, m.Addr)
			if g.deleted {
				deletedToo = append(deletedToo, m.Addr)
			}
			if m.EvictionPolicy != "" && !slices.Contains(policies, m.EvictionPolicy) {
				policies = append(policies, m.EvictionPolicy)
			}
		default:
			other = true
		}
	}
	if other || len(evicted)+len(flushed) == 0 {
		return "", "", false
	}
	if len(evicted) == 0 {
		return EventLockFlushed, "flushed from " + strings.Join(flushed, ", ") + " (FLUSHALL or FLUSHDB)", true
	}
	text = "evicted from " + strings.Join(evicted, ", ")
	if len(policies) > 0 {
		text += " (maxmemory-policy " + strings.Join(policies, ", ") + ")"
	}
	if len(flushed) > 0 {
		text += ", flushed from " + strings.Join(flushed, ", ")
	}
	if len(deletedToo) > 0 {
		text += "; a DEL ran there too, so it may have been released"
	}
	return EventLockEvicted, text, true
}
