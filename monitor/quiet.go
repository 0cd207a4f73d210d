package monitor

import (
	"maps"
	"slices"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/holds"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// A quiet poll: every master is tracked and told the monitor that nothing changed, so the locks of the snapshot
// before still stand. Such a poll shares them (and their hold logs, fence counters and warnings) instead of
// building 100,000 views again; only what depends on time alone could change them, and Snapshot.quietUntil
// is the first time it could: a key's TTL, counted from its read, running out, or a holder's validity. A lock
// whose state waits on another poll (unknown, unconfirmed), a lock several may hold (each holder its own
// expiry) and a Redisson lock (its waiters are read every poll) make no poll quiet.

// farFuture stands for "never" in quietUntil.
var farFuture = holds.Never

// carryQuiet makes s share prev's locks when this poll is quiet (see above), and reports whether it did.
func (s *Snapshot) carryQuiet(prev *Snapshot, readings []Reading, delta []bool, own map[string]OwnLock) bool {
	if !quietAfter(prev, s, readings, delta, own) || !s.Time.Before(prev.logsIdleAt) { // a log leaving the window is dropped by a full poll
		return false
	}
	s.Locks, s.hidden, s.holdLogs, s.fences = prev.Locks, prev.hidden, prev.holdLogs, prev.fences
	s.lockWarnings, s.quietUntil, s.logsIdleAt, s.maxTTL, s.quiet = prev.lockWarnings, prev.quietUntil, prev.logsIdleAt, prev.maxTTL, true
	s.leads, s.quietEnds, s.shared, s.troubled, s.freeLocks = prev.leads, prev.quietEnds, prev.shared, prev.troubled, prev.freeLocks
	for j := range s.Masters {
		s.Masters[j].Keys = prev.Masters[j].Keys
	}
	return true
}

// quietAfter reports whether the poll that made s (its masters) from readings (delta: which are deltas of prev's) is
// quiet after prev.
func quietAfter(prev, s *Snapshot, readings []Reading, delta []bool, own map[string]OwnLock) bool {
	if prev == nil || !s.Time.Before(prev.quietUntil) || prev.Unread > 0 || len(prev.Masters) != len(readings) ||
		!maps.EqualFunc(prev.own, own, sameOwnLock) {
		return false
	}
	for j, r := range readings {
		if !delta[j] || len(r.Keys) > 0 || len(r.Unread) > 0 || len(r.Waiters) > 0 || !s.Masters[j].Up ||
			s.Masters[j].health.sameAs != prev.Masters[j].health.sameAs {
			return false
		}
	}
	return true
}

// sameOwnLock reports whether two records of one of our locks are the same.
func sameOwnLock(a, b OwnLock) bool {
	return a.Token == b.Token && a.AcquiredAt.Equal(b.AcquiredAt) && a.TTL == b.TTL && a.ValidUntil.Equal(b.ValidUntil) &&
		slices.Equal(a.Deleted, b.Deleted)
}

// noteQuietUntil sets s.quietEnds, each lock's quietEnd, and s.quietUntil: the first time the state of one
// of its locks could change with nothing read; the zero time when one waits on the next poll. ends has those
// of the locks a poll with changes took as they were (changes: what it built); nil when it built them all.
func (s *Snapshot) noteQuietUntil(ends []int64, changes *lockChanges) {
	if changes == nil {
		ends = make([]int64, len(s.Locks))
		for i := range s.Locks {
			ends[i] = nanosOf(quietEnd(s.Locks[i]))
		}
	} else {
		for _, i := range changes.built {
			ends[i] = nanosOf(quietEnd(s.Locks[i]))
		}
	}
	s.quietEnds = ends
	s.quietUntil = farFuture
	if len(ends) > 0 {
		s.quietUntil = timeOf(slices.Min(ends))
	}
	for i := range s.hidden {
		s.quietUntil = earlier(s.quietUntil, cellsQuietEnd(s.hidden[i].Masters))
	}
}

// quietEnd is the first time v could change with nothing read: a cell's TTL running out, the holder's
// validity, or a free lock's hold log leaving the window; the zero time for a lock whose state waits on the
// next poll.
func quietEnd(v *LockView) time.Time {
	if v.State == StateUnknown || v.State == StateUnconfirmed || v.Holders != nil || v.WaitersKnown ||
		v.hist.overwrite != nil { // the next poll confirms it (confirmOverwrite)
		return time.Time{}
	}
	end := cellsQuietEnd(v.Masters)
	if v.hist.free {
		end = earlier(end, timeOf(v.hist.freeUntil))
	}
	if v.Expired {
		end = earlier(end, v.expiredUntil)
	}
	if !v.validEnd.IsZero() {
		// ValidityAt reaches 0 where the time left equals the drift allowance: before validEnd by at most
		// the fixed allowance over (1 - factor); a millisecond earlier covers the rounding.
		fixed := time.Duration(float64(redlock.DriftAllowance(0, 0)) / max(1-v.driftFactor, 0.01))
		end = earlier(end, v.validEnd.Add(-fixed-time.Millisecond))
	}
	return end
}

// cellsQuietEnd is the first time a cell of cells expires, counted from its read; the zero time when one is
// unknown.
func cellsQuietEnd(cells []MasterLock) time.Time {
	end := farFuture
	for _, c := range cells {
		switch {
		case c.State == CellUnknown:
			return time.Time{}
		case c.State == CellSeen && c.PTTL != NoTTL:
			end = earlier(end, c.ReadAt.Add(c.PTTL))
		}
	}
	return end
}

// earlier is the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
