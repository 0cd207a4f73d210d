package holds

import (
	"math"
	"slices"
	"time"
)

// EndKind says how a holder's interval ended.
type EndKind uint8

// How an interval ends.
const (
	EndOpen       EndKind = iota // still held as of the snapshot
	EndReleased                  // the key went from every master before its TTL ran out
	EndExpired                   // the key went from every master at its TTL
	EndTakenOver                 // another token took the quorum
	EndDeleted                   // this process force-deleted it
	EndQuorumLost                // the token lives on, on fewer than a quorum of masters
	EndEvicted                   // the key went from every master before its TTL, evicted (EventLockEvicted)
	EndFlushed                   // the key went from every master before its TTL, flushed (EventLockFlushed)
)

// endNames are the EndKinds as written for people and programs.
var endNames = [...]string{"open", "released", "expired", "taken-over", "deleted", "quorum-lost", "evicted", "flushed"}

// String returns "open", "released", "expired", "taken-over", "deleted", "quorum-lost", "evicted" or "flushed".
func (k EndKind) String() string {
	if int(k) < len(endNames) {
		return endNames[k]
	}
	return "unknown"
}

// Interval is one holder's tenure of a lock as the polls saw it. A poll sees a moment: the tenure began
// within StartSlack before Start, and ended within EndSlack before End.
type Interval struct {
	Token      string
	Start      time.Time     // the first poll that saw this token hold the lock
	StartSlack time.Duration // how much earlier it may have begun: back to the last poll that decided otherwise
	StartKnown bool          // false: it already held when the monitor first saw the lock, so Start is not its start
	End        time.Time     // the first poll that decided it no longer holds; zero while open
	EndSlack   time.Duration // how much earlier it may have ended: back to the last poll that saw it hold
	Ended      EndKind
	Masters    uint64 // bit j: the token was seen holding on Snapshot.Masters[j] (the first 64 masters)
	// Gone is, for an interval that ended with its quorum lost, when the lock was first seen on no master
	// after it: the end of the trouble; zero while its key lived on until the next holder, or lives on now.
	Gone time.Time
}

// HeldFor is how long the interval was seen held: from Start to End, or to now while open.
func (iv Interval) HeldFor(now time.Time) time.Duration {
	if iv.Ended == EndOpen {
		return now.Sub(iv.Start)
	}
	return iv.End.Sub(iv.Start)
}

// Config defaults of the hold logs.
const (
	DefaultHistory      = 15 * time.Minute
	DefaultMaxIntervals = 256
)

// ChunkLen is how many closed intervals one chunk of a HoldLog holds. A full chunk is never changed again, so
// snapshots share them; a handover copies at most one chunk's worth of intervals.
const ChunkLen = 16

// HoldLog is the history of one lock's holders over the window (Config.History): its closed intervals, oldest
// first, at most Config.MaxIntervals of them, and the open one. It is immutable once in a snapshot: each
// change makes a new HoldLog that shares the full chunks of the old.
type HoldLog struct {
	Resource string
	chunks   [][]span  // full chunks of ChunkLen closed intervals, oldest first
	tail     []span    // closed intervals after the chunks, fewer than ChunkLen
	open     Interval  // the current holder; Token "" when the lock is not held
	troubles []Trouble // spans split or without quorum, oldest first, bounded like the intervals (trouble.go)
}

// span is a closed Interval as a HoldLog keeps it, in 64 bytes (and its token's) rather than 128: times in Unix
// nanoseconds, slacks in milliseconds (rounded up, so that a bracket never narrows).
type span struct {
	token                string
	start, end, gone     int64 // gone: 0 when Interval.Gone is zero
	masters              uint64
	startSlack, endSlack int32
	ended                EndKind
	startKnown           bool
}

// pack is iv as a span.
func pack(iv Interval) span {
	sp := span{token: iv.Token, start: iv.Start.UnixNano(), end: iv.End.UnixNano(), masters: iv.Masters,
		startSlack: slackMS(iv.StartSlack), endSlack: slackMS(iv.EndSlack), ended: iv.Ended, startKnown: iv.StartKnown}
	if !iv.Gone.IsZero() {
		sp.gone = iv.Gone.UnixNano()
	}
	return sp
}

// slackMS is d in whole milliseconds, rounded up, at most the largest an int32 holds (24 days).
func slackMS(d time.Duration) int32 {
	return int32(min((d+time.Millisecond-1)/time.Millisecond, math.MaxInt32))
}

// unpack is sp as an Interval.
func (sp span) unpack() Interval {
	iv := Interval{Token: sp.token, Start: time.Unix(0, sp.start), End: time.Unix(0, sp.end), Masters: sp.masters,
		StartSlack: time.Duration(sp.startSlack) * time.Millisecond, EndSlack: time.Duration(sp.endSlack) * time.Millisecond,
		Ended: sp.ended, StartKnown: sp.startKnown}
	if sp.gone != 0 {
		iv.Gone = time.Unix(0, sp.gone)
	}
	return iv
}

// Open returns the current holder's interval, and false when the lock was not held as of the last decision.
func (h *HoldLog) Open() (Interval, bool) {
	if h == nil || h.open.Token == "" {
		return Interval{}, false
	}
	return h.open, true
}

// Intervals returns the closed intervals that ended after since, and the open one last, oldest first, in a new
// slice.
func (h *HoldLog) Intervals(since time.Time) []Interval {
	if h == nil {
		return nil
	}
	var out []Interval
	after := since.UnixNano()
	for _, c := range h.chunks {
		if c[len(c)-1].end > after {
			out = appendAfter(out, c, after)
		}
	}
	out = appendAfter(out, h.tail, after)
	if h.open.Token != "" {
		out = append(out, h.open)
	}
	return out
}

// appendAfter appends to out the spans of sps that ended after after (Unix nanoseconds), as intervals.
func appendAfter(out []Interval, sps []span, after int64) []Interval {
	for _, sp := range sps {
		if sp.end > after {
			out = append(out, sp.unpack())
		}
	}
	return out
}

// closedCount is how many closed intervals h keeps.
func (h *HoldLog) closedCount() int { return len(h.chunks)*ChunkLen + len(h.tail) }

// last is the last closed interval, false when there is none.
func (h *HoldLog) last() (span, bool) {
	switch {
	case len(h.tail) > 0:
		return h.tail[len(h.tail)-1], true
	case len(h.chunks) > 0:
		return h.chunks[len(h.chunks)-1][ChunkLen-1], true
	}
	return span{}, false
}

// WithClosed returns a copy of h whose open interval is closed at end, as kind, and dropped from the open
// place; chunks that fall out of the window (ended before since) or beyond max intervals are dropped.
func (h *HoldLog) WithClosed(end time.Time, slack time.Duration, kind EndKind, since time.Time, limit int) *HoldLog {
	iv := h.open
	iv.End, iv.EndSlack, iv.Ended = end, slack, kind
	n := &HoldLog{Resource: h.Resource, chunks: h.chunks, troubles: h.troubles}
	tail := make([]span, len(h.tail)+1, ChunkLen)
	copy(tail, h.tail)
	tail[len(h.tail)] = pack(iv)
	if len(tail) == ChunkLen {
		n.chunks = append(slices.Clip(h.chunks), tail)
	} else {
		n.tail = tail
	}
	drop := 0
	for drop < len(n.chunks) && (n.chunks[drop][ChunkLen-1].end < since.UnixNano() || n.closedCount()-drop*ChunkLen > limit) {
		drop++
	}
	if drop > 0 {
		n.chunks = slices.Clone(n.chunks[drop:])
	}
	return n
}

// LastLost returns h's last closed interval when it ended with its quorum lost and the lock has not been seen
// gone since.
func (h *HoldLog) LastLost() bool {
	if h == nil || h.open.Token != "" {
		return false
	}
	last, ok := h.last()
	return ok && last.ended == EndQuorumLost && last.gone == 0
}

// WithGone returns a copy of h whose last closed interval was seen gone at t.
func (h *HoldLog) WithGone(t time.Time) *HoldLog {
	n := *h
	if len(h.tail) > 0 {
		n.tail = slices.Clone(h.tail)
		n.tail[len(n.tail)-1].gone = t.UnixNano()
		return &n
	}
	n.chunks = slices.Clone(h.chunks)
	last := slices.Clone(n.chunks[len(n.chunks)-1])
	last[ChunkLen-1].gone = t.UnixNano()
	n.chunks[len(n.chunks)-1] = last
	return &n
}

// WithOpen returns a copy of h (a new log of resource when h is nil) whose open interval is iv.
func (h *HoldLog) WithOpen(resource string, iv Interval) *HoldLog {
	n := &HoldLog{Resource: resource}
	if h != nil {
		*n = *h
	}
	n.open = iv
	return n
}

// IdleAt is the first time h is idle (IdleSince) over a window of window, with nothing new in it: never
// (Never) while it has a holder or a trouble lasts.
func (h *HoldLog) IdleAt(window time.Duration) time.Time {
	if h.open.Token != "" || h.TroubleOpen() {
		return Never
	}
	var latest int64
	if last, ok := h.last(); ok {
		latest = last.end
	}
	if len(h.troubles) > 0 {
		latest = max(latest, h.troubles[len(h.troubles)-1].End.UnixNano())
	}
	return time.Unix(0, latest).Add(window)
}

// IdleSince reports whether h has nothing left to tell after since: no holder, and no interval ended after it.
func (h *HoldLog) IdleSince(since time.Time) bool {
	last, ok := h.last()
	return h.open.Token == "" && (!ok || last.end <= since.UnixNano()) && !h.troubleSince(since)
}

// AcquiredSince counts the holders seen beginning their tenure after since (a lock's heat), as Contention's
// Acquisitions does, without copying the intervals: newest first, it stops at the first that began no later.
func (h *HoldLog) AcquiredSince(since time.Time) int {
	if h == nil {
		return 0
	}
	n, after := 0, since.UnixNano()
	began := func(sp span) bool {
		if sp.start <= after {
			return false
		}
		if sp.startKnown {
			n++
		}
		return true
	}
	if h.open.Token != "" && !began(span{start: h.open.Start.UnixNano(), startKnown: h.open.StartKnown}) {
		return n
	}
	for k := len(h.tail) - 1; k >= 0; k-- {
		if !began(h.tail[k]) {
			return n
		}
	}
	for c := len(h.chunks) - 1; c >= 0; c-- {
		for k := ChunkLen - 1; k >= 0; k-- {
			if !began(h.chunks[c][k]) {
				return n
			}
		}
	}
	return n
}

// Never stands for a time that does not come: the idle time of a log with a holder (IdleAt).
var Never = time.Unix(1<<40, 0)
