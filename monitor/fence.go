package monitor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// DefaultFenceSuffix names a resource's fence counter: the client's own (redlock.DefaultFenceSuffix), so the
// counter of "orders" is "orders:fence".
const DefaultFenceSuffix = redlock.DefaultFenceSuffix

// WarnFenceBackwards is the warning kind of a fence counter lower on a master than it was there: the master
// lost it (a restart without persistence, a flush), and fenced tokens may repeat once a quorum has.
const WarnFenceBackwards = "fence-backwards"

// EventFenceBackwards is the event of a fence counter going backwards on a master.
const EventFenceBackwards EventKind = "fence-backwards"

// fenceCounters is what one poll read of the fence counters: per resource, per master, the value (0 for a
// master that answered without the key) and whether it was read.
type fenceCounters map[string]*fenceState

// fenceState is one resource's counters: as read now, and the highest each master has shown.
type fenceState struct {
	now, high []uint64
	read      []bool
}

// zero reports whether no master has shown f a counter: every reading and the highest are 0.
func (f *fenceState) zero() bool {
	return !slices.ContainsFunc(f.now, func(v uint64) bool { return v != 0 }) &&
		!slices.ContainsFunc(f.high, func(v uint64) bool { return v != 0 })
}

// splitFences takes the fence counter keys out of readings, so that they are never shown as locks: a key
// with the suffix whose value is an unsigned integer without a TTL, or an absent one that was no lock. It
// returns the readings left (the same slice when there was no counter) and the counters read.
func splitFences(prev *Snapshot, readings []Reading, suffix string) ([]Reading, fenceCounters) {
	var prevLocks map[string]bool // made on demand: most polls read no absent counter
	wasLock := func(key string) bool {
		if prev == nil {
			return false
		}
		if prevLocks == nil {
			prevLocks = make(map[string]bool, len(prev.Locks))
			for _, l := range prev.Locks {
				prevLocks[l.Resource] = true
			}
		}
		return prevLocks[key]
	}
	var fences fenceCounters
	out := readings
	for j, r := range readings {
		var keep []KeyReading
		for i, k := range r.Keys {
			res, ok := strings.CutSuffix(k.Key, suffix)
			var v uint64
			if ok && !k.Absent {
				var err error
				v, err = strconv.ParseUint(k.Value, 10, 64)
				ok = err == nil && k.PTTL == NoTTL && k.Fields == nil
			}
			if ok && k.Absent {
				ok = !wasLock(k.Key)
			}
			if !ok {
				if keep != nil {
					keep = append(keep, k)
				}
				continue
			}
			if keep == nil {
				keep = append(make([]KeyReading, 0, len(r.Keys)), r.Keys[:i]...)
			}
			if fences == nil {
				fences = fenceCounters{}
				out = append([]Reading(nil), readings...)
			}
			f := fences[res]
			if f == nil {
				f = &fenceState{now: make([]uint64, len(readings)), read: make([]bool, len(readings))}
				fences[res] = f
			}
			f.now[j], f.read[j] = v, true
		}
		if keep != nil {
			out[j].Keys = keep
		}
	}
	return out, fences
}

// applyFences sets each lock's Fence, carries the highest counter each master has shown, and warns about the
// counters now below it.
func (s *Snapshot) applyFences(prev *Snapshot, fences fenceCounters, now time.Time) ([]Warning, []Event) {
	var prevHigh map[string]*fenceState
	if prev != nil {
		prevHigh = prev.fences
	}
	s.fences = make(map[string]*fenceState, len(fences))
	for res, p := range prevHigh {
		if _, read := fences[res]; !read && s.Lock(res) != nil {
			s.fences[res] = p
		}
	}
	var (
		warns  []Warning
		events []Event
	)
	for res, f := range fences {
		f.high = make([]uint64, len(f.now))
		p := prevHigh[res]
		for j := range f.now {
			if p != nil && j < len(p.high) {
				f.high[j] = p.high[j]
			}
			if !f.read[j] && p != nil && j < len(p.now) {
				f.now[j] = p.now[j]
			}
			if !f.read[j] || f.now[j] >= f.high[j] {
				f.high[j] = max(f.high[j], f.now[j])
				continue
			}
			addr := s.Masters[j].Addr
			text := fmt.Sprintf("fence counter of %s went back from %d to %d: the master lost it (restart without "+
				"persistence?); fenced tokens may now repeat or go backwards", vocab.Quote(res), f.high[j], f.now[j])
			warns = append(warns, Warning{Severity: EventFenceBackwards.Severity(), Kind: WarnFenceBackwards, Master: addr, Resource: res, Text: text})
			if p == nil || j >= len(p.now) || p.now[j] >= f.high[j] {
				events = append(events, Event{Time: now, Kind: EventFenceBackwards, Resource: res, Master: addr,
					Text: text})
			}
		}
		if !f.zero() { // never a counter there: as if none was read (100,000 unfenced locks read theirs absent)
			s.fences[res] = f
		}
	}
	for res, f := range s.fences {
		if i, ok := s.lockIndex(res); ok {
			high := s.Locks[i].Fence
			for _, v := range f.now {
				high = max(high, v)
			}
			if high != s.Locks[i].Fence {
				s.ownView(i).Fence = high
			}
		}
	}
	return warns, events
}
