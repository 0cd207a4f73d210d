package monitor

import "time"

// Aggregate computes the snapshot that follows prev (nil for the first) given one reading per master, in the
// order of the masters, the locks registered as ours (by resource) and the current time. It is pure: all
// history it needs comes from prev, which it does not modify. Its events are told in the order of its steps:
// the masters', the locks', the fence counters', the clocks'.
func Aggregate(prev *Snapshot, readings []Reading, own map[string]OwnLock, now time.Time, cfg Config) Snapshot {
	cfg = cfg.WithDefaults()
	s := Snapshot{Seq: 1, Time: now, Quorum: len(readings)/2 + 1,
		carried: carried{fenceSuffix: cfg.FenceSuffix, window: cfg.History}}
	if prev != nil {
		s.Seq = prev.Seq + 1
		s.maxTTL, s.watchedFrom = prev.maxTTL, prev.watchedFrom
	} else {
		s.watchedFrom = now
	}
	events := s.aggregateMasters(prev, readings, now, cfg)
	delta := deltas(prev, readings)
	for j, consistent := range delta {
		if readings[j].Delta && !consistent {
			s.Masters[j].readSeq = 0 // not applied: its keys not read are unknown, and its next reading whole
		}
	}
	s.own = own
	var fenceWarnings []Warning
	if !s.carryQuiet(prev, readings, delta, own) {
		var lockEvents, fenceEvents []Event
		lockEvents, fenceWarnings, fenceEvents = s.aggregateAllLocks(prev, readings, delta, own, now, cfg)
		events = append(append(events, lockEvents...), fenceEvents...)
	}
	s.countUnsafe(now)

	clocks := judgeClocks(s.Masters, s.maxTTL, cfg.DriftFactor)
	s.Warnings = append(warnings(&s, clocks, now, cfg), deploymentWarnings(&s, cfg)...)
	for i := range s.Masters {
		s.Masters[i].Warnings = textsAbout(s.Warnings, s.Masters[i].Addr)
	}
	s.noteClusterWarnings()
	s.Warnings = append(s.Warnings, fenceWarnings...)
	events = append(events, clockEvents(s.Masters, clocks, now)...)
	s.Events = appendEvents(prev, events, cfg.MaxEvents)
	return s
}

// aggregateAllLocks builds the locks of s from every reading (see Aggregate; delta says which are deltas of
// prev's, see deltas), with their hold logs, waiters,
// fence counters, the keys of each master and the longest TTL; it returns the lock events, and the fence
// counters' warnings and events.
func (s *Snapshot) aggregateAllLocks(prev *Snapshot, readings []Reading, delta []bool, own map[string]OwnLock, now time.Time, cfg Config) (lockEvents []Event, fenceWarnings []Warning, fenceEvents []Event) {
	readings, fences := splitFences(prev, readings, cfg.FenceSuffix)
	b, changes := aggregateLocks(prev, readings, delta, s.Masters, own, now, cfg)
	s.Locks, s.hidden, lockEvents, s.Unread, s.leads = b.views, b.hidden, b.events, b.unread, b.leads
	if changes != nil && s.Time.Before(prev.logsIdleAt) {
		s.trackChangedHolders(prev, changes, goneKinds(lockEvents), cfg)
	} else {
		s.trackHolders(prev, goneKinds(lockEvents), cfg)
	}
	s.countWaiters(readings)
	fenceWarnings, fenceEvents = s.applyFences(prev, fences, now)
	if changes != nil {
		s.shared = prev.shared + len(changes.resources)
		s.countChangedKeys(prev, changes)
		s.sameKeys = len(fences) == 0 && keysUnchanged(prev, s, changes)
	} else {
		s.countKeys()
	}
	s.countClusterKeys()
	s.noteLongestTTL(readings, own)
	s.troubled = s.troubledLocks(prev, changes)
	s.lockWarnings = warnLocks(nil, s)
	s.noteQuietUntil(b.quietEnds, changes)
	return lockEvents, fenceWarnings, fenceEvents
}

// aggregateMasters sets the masters of s from their readings and prev (a master is carried only where prev
// had the same address at the same place), with the counts of distinct servers, of those up and whether all
// of those have swept their keyspace; it returns the masters' events.
func (s *Snapshot) aggregateMasters(prev *Snapshot, readings []Reading, now time.Time, cfg Config) []Event {
	var events []Event
	s.Masters = make([]MasterStatus, len(readings))
	for i, r := range readings {
		var p *MasterStatus
		if prev != nil && i < len(prev.Masters) && prev.Masters[i].Addr == r.Addr {
			p = &prev.Masters[i]
		}
		var ev []Event
		s.Masters[i], ev = masterStatus(p, r, now, cfg)
		events = append(events, ev...)
		events = append(events, s.Masters[i].observeCluster(p, r, now, cfg)...)
		s.Untracked = max(s.Untracked, r.Untracked)
		s.Truncated = s.Untracked > 0
	}
	markDuplicates(s.Masters)
	s.Swept = true
	for _, m := range s.Masters {
		if m.health.sameAs != "" {
			continue
		}
		s.Servers++
		if m.health.state == healthUp {
			s.UpCount++
			s.Swept = s.Swept && m.Sweep.Completed > 0
		}
	}
	return events
}

// countKeys counts on each master the lock keys of s seen there in this poll, and the free locks of s.
func (s *Snapshot) countKeys() {
	for _, l := range s.Locks {
		if l.hist.free {
			s.freeLocks++
		}
		for j, c := range l.Masters {
			if c.Present() {
				s.Masters[j].Keys++
			}
		}
	}
}

// noteLongestTTL raises s.maxTTL to the longest TTL read in this poll, or given to one of our locks.
func (s *Snapshot) noteLongestTTL(readings []Reading, own map[string]OwnLock) {
	for _, r := range readings {
		for _, k := range r.Keys {
			s.maxTTL = max(s.maxTTL, k.PTTL)
		}
	}
	for _, o := range own {
		s.maxTTL = max(s.maxTTL, o.TTL)
	}
}

// appendEvents returns prev's events followed by the new ones, keeping the last maxEvents, in a new slice.
func appendEvents(prev *Snapshot, events []Event, maxEvents int) []Event {
	var old []Event
	if prev != nil {
		old = prev.Events
	}
	total := len(old) + len(events)
	if total > maxEvents {
		drop := total - maxEvents
		if drop >= len(old) {
			events = events[drop-len(old):]
			old = nil
		} else {
			old = old[drop:]
		}
	}
	out := make([]Event, 0, len(old)+len(events))
	return append(append(out, old...), events...)
}
