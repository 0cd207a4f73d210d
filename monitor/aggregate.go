package monitor

import "time"

// Aggregate computes the snapshot that follows prev (nil for the first) given one reading per master, in the
// order of the masters, the locks registered as ours (by resource) and the current time. It is pure: all
// history it needs comes from prev, which it does not modify.
func Aggregate(prev *Snapshot, readings []Reading, own map[string]OwnLock, now time.Time, cfg Config) Snapshot {
	cfg = cfg.WithDefaults()
	s := Snapshot{Seq: 1, Time: now, Quorum: len(readings)/2 + 1}
	var events []Event
	if prev != nil {
		s.Seq = prev.Seq + 1
		s.maxTTL = prev.maxTTL
	}

	s.Masters = make([]MasterStatus, len(readings))
	for i, r := range readings {
		var p *MasterStatus
		if prev != nil && i < len(prev.Masters) && prev.Masters[i].Addr == r.Addr {
			p = &prev.Masters[i]
		}
		var ev []Event
		s.Masters[i], ev = masterStatus(p, r, now, cfg)
		events = append(events, ev...)
		s.Truncated = s.Truncated || r.Truncated
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

	var lockEvents []Event
	readings, fences := splitFences(prev, readings, cfg.FenceSuffix)
	s.Locks, s.tracked, lockEvents = aggregateLocks(prev, readings, s.Masters, own, now, cfg)
	events = append(events, lockEvents...)
	s.fenceSuffix = cfg.FenceSuffix
	fenceWarnings, fenceEvents := s.applyFences(prev, fences, now)
	events = append(events, fenceEvents...)
	for _, l := range s.Locks {
		for j, c := range l.Masters {
			if c.Present() {
				s.Masters[j].Keys++
			}
		}
	}
	for _, r := range readings {
		for _, k := range r.Keys {
			s.maxTTL = max(s.maxTTL, k.PTTL)
		}
	}
	for _, o := range own {
		s.maxTTL = max(s.maxTTL, o.TTL)
	}

	clocks := judgeClocks(s.Masters, s.maxTTL, cfg.DriftFactor)
	s.Warnings = warnings(&s, clocks, now, cfg)
	for i := range s.Masters {
		s.Masters[i].Warnings = textsAbout(s.Warnings, s.Masters[i].Addr)
	}
	s.Warnings = append(s.Warnings, fenceWarnings...)
	events = append(events, clockEvents(s.Masters, clocks, now)...)
	s.Events = appendEvents(prev, events, cfg.MaxEvents)
	return s
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
