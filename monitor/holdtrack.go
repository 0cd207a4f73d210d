package monitor

import (
	"slices"
	"time"
)

// goneEnds maps the events of a lock gone from every master to how its holder's interval ended.
var goneEnds = map[EventKind]EndKind{EventLockReleased: EndReleased, EventLockExpired: EndExpired, EventLockDeleted: EndDeleted,
	EventLockEvicted: EndEvicted, EventLockFlushed: EndFlushed}

// goneKinds returns, by resource, how each lock gone in this poll went, from its events.
func goneKinds(events []Event) map[string]EndKind {
	var gone map[string]EndKind
	for _, e := range events {
		if k, ok := goneEnds[e.Kind]; ok && e.Resource != "" {
			if gone == nil {
				gone = map[string]EndKind{}
			}
			gone[e.Resource] = k
		}
	}
	return gone
}

// holderStep is one resource's step of the hold logs: its log in prev (nil: none), its view in the previous
// snapshot and in this one (nil: not shown), and the times the step needs.
type holderStep struct {
	log     *HoldLog
	p, v    *LockView
	prevAt  time.Time // the previous snapshot's time
	now     time.Time
	since   time.Time // the start of the window
	limit   int       // Config.MaxIntervals
	newLock bool      // the lock is seen for the first time by the first polls: a holder's start is not known
	prevSeq uint64    // the previous snapshot's sequence number: a lock p it did not build, it took as it was
}

// trackHolders moves every resource's hold log from prev to s: a holder change decided by this poll closes the
// open interval and opens the next; a lock gone from every master closes it as its event says (gone); a poll
// that did not decide (unknown, unconfirmed) changes nothing. Logs with nothing left in the window are
// dropped. It sets each shown lock's History.
func (s *Snapshot) trackHolders(prev *Snapshot, gone map[string]EndKind, cfg Config) {
	var logs []*HoldLog
	var prevLocks []*LockView
	prevAt := s.Time
	firstSweep := prev == nil || !prev.Swept
	if prev != nil {
		logs, prevLocks, prevAt = prev.holdLogs, prev.Locks, prev.Time
	}
	out := make([]*HoldLog, 0, max(len(logs), len(s.Locks)))
	li, pi, vi := 0, 0, 0
	for li < len(logs) || vi < len(s.Locks) {
		res := nextResource(logs, li, s.Locks, vi)
		st := holderStep{prevAt: prevAt, now: s.Time, since: s.Time.Add(-cfg.History), limit: cfg.MaxIntervals}
		if prev != nil {
			st.prevSeq = prev.Seq
		}
		if li < len(logs) && logs[li].Resource == res {
			st.log = logs[li]
			li++
		}
		for pi < len(prevLocks) && prevLocks[pi].Resource < res {
			pi++
		}
		if pi < len(prevLocks) && prevLocks[pi].Resource == res {
			st.p = prevLocks[pi]
		}
		if vi < len(s.Locks) && s.Locks[vi].Resource == res {
			st.v = s.Locks[vi]
			vi++
		}
		st.newLock = st.p == nil && st.log == nil && firstSweep
		if log := s.stepHolder(st, vi-1, gone); log != nil {
			out = append(out, log)
		}
	}
	s.holdLogs = out
	s.logsIdleAt = farFuture
	for _, log := range out {
		s.logsIdleAt = earlier(s.logsIdleAt, log.IdleAt(cfg.History))
	}
}

// stepHolder moves st's log by this poll (its holders, then its trouble spans) and makes it the History of
// st.v, at i in s.Locks; it returns the log, nil when nothing of it is left in the window.
func (s *Snapshot) stepHolder(st holderStep, i int, gone map[string]EndKind) *HoldLog {
	log := st.trackTrouble(st.move(gone))
	if log != nil && log.IdleSince(st.since) {
		log = nil // nothing left in the window
	}
	if st.v != nil && st.v.History != log {
		s.ownView(i).History = log
	}
	return log
}

// nextResource is the smaller of the resources at logs[li] and locks[vi], where either may be past its end.
func nextResource(logs []*HoldLog, li int, locks []*LockView, vi int) string {
	switch {
	case li >= len(logs):
		return locks[vi].Resource
	case vi >= len(locks):
		return logs[li].Resource
	}
	return min(logs[li].Resource, locks[vi].Resource)
}

// decided reports whether v's poll decided who holds it: the lock is shown, and neither unknown nor awaiting
// confirmation.
func decided(v *LockView) bool {
	return v != nil && v.State != StateUnknown && v.State != StateUnconfirmed
}

// move returns the resource's log after this poll, recording in v, when this poll built it, when the lock
// was last decided: a lock taken as it was keeps its view (an earlier snapshot's), whose decidedAt a later
// poll reads only while it is undecided, and then it is what it was.
func (st holderStep) move(gone map[string]EndKind) *HoldLog {
	lastDecided := st.prevAt                                                // a lock not shown before was decided free (absent) by the previous poll
	if st.p != nil && !(st.p.hist.builtIn != st.prevSeq && decided(st.p)) { // a poll decided every decided lock it took as it was
		lastDecided = st.p.hist.decidedAt
	}
	built := st.v != nil && st.v.hist.builtIn == st.prevSeq+1
	if built {
		st.v.hist.decidedAt = lastDecided
	}
	log := st.log
	open, held := log.Open()
	if st.v == nil || st.v.hist.free { // no key: gone, or listed free for this log
		if built && decided(st.v) {
			st.v.hist.decidedAt = st.now
		}
		switch {
		case log.LastLost():
			return log.WithGone(st.now) // the key that outlived its quorum is gone: the trouble ended
		case held:
			end, ok := gone[log.Resource]
			if !ok {
				end = EndReleased // no longer shown (a key without a TTL on one master): not held
			}
			return log.WithClosed(st.now, st.now.Sub(lastDecided), end, st.since, st.limit)
		}
		return log
	}
	if !decided(st.v) {
		return log
	}
	v := st.v
	if built {
		v.hist.decidedAt = st.now
	}
	slack := st.now.Sub(lastDecided)
	if held && open.Token != v.Holder {
		log = log.WithClosed(st.now, slack, endOf(v, open.Token), st.since, st.limit)
	}
	if v.Holder == "" {
		return log
	}
	mask := mastersHolding(v)
	if held && open.Token == v.Holder {
		if open.Masters|mask != open.Masters {
			open.Masters |= mask
			log = log.WithOpen(v.Resource, open)
		}
		return log
	}
	iv := Interval{Token: v.Holder, Start: st.now, StartSlack: slack, StartKnown: !st.newLock, Masters: mask}
	if st.newLock {
		iv.StartSlack = 0
	}
	return log.WithOpen(v.Resource, iv)
}

// endOf says how token's tenure of v ended, in a poll that decided v is not held by it: taken over when
// another holds it, its quorum lost when its key lives on some master, released otherwise.
func endOf(v *LockView, token string) EndKind {
	switch {
	case v.Holder != "":
		return EndTakenOver
	case v.QuorumLost:
		return EndQuorumLost
	}
	for _, c := range v.Masters {
		if c.Holds(token) {
			return EndQuorumLost
		}
	}
	return EndReleased
}

// mastersHolding returns the masters (the first 64) on which v's holder was seen in this poll, as bits; for a
// lock several may hold, those on which one of its held holders was.
func mastersHolding(v *LockView) uint64 {
	var mask uint64
	for j, c := range v.Masters {
		if j < 64 && c.Holds(v.Holder) {
			mask |= 1 << j
		}
	}
	for _, h := range v.Holders {
		for j, c := range h.Masters {
			if j < 64 && h.State == StateHeld && c.State == CellSeen {
				mask |= 1 << j
			}
		}
	}
	return mask
}

// troubled reports whether v's poll decided it split or without a quorum.
func troubled(v *LockView) bool {
	return decided(v) && v.Holder == "" && (v.State == StateSplit || v.State == StateLost || v.QuorumLost)
}

// trackTrouble returns log after this poll's step of its trouble spans: a poll that decides the lock split or
// without quorum opens a span, one that decides otherwise, or no longer shows the lock, closes it; a poll that
// does not decide changes nothing.
func (st holderStep) trackTrouble(log *HoldLog) *HoldLog {
	open := log.TroubleOpen()
	switch {
	case st.v != nil && !decided(st.v):
		return log
	case !open && troubled(st.v):
		trs := append(slices.Clip(log.Troubles(st.since)), Trouble{Start: st.now})
		return log.WithTrouble(st.v.Resource, trs, st.since, st.limit)
	case open && !troubled(st.v):
		trs := log.Troubles(time.Time{})
		trs[len(trs)-1].End = st.now
		return log.WithTrouble(log.Resource, trs, st.since, st.limit)
	}
	return log
}
