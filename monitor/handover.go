package monitor

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// How a lock changed hands. Between two reads of a master the holder's key may go four ways: its holder
// released it (a DEL, or a script's), it expired at its TTL, the master evicted it or was flushed, or another
// client wrote its own token over it while it had TTL left (a SET without NX, the classic unsafe client; or a
// master that lost the key). The first is the ordinary life of a lock; an expiry followed at once by another
// holder means the first may still be running (a GC pause, a slow job) while the second holds the lock; an
// overwrite means two clients believe they hold it. Each master tells which, from what every poll reads anyway:
// the key's PTTL and when it was read (its expiry, as the monitor's clock has it), and the master's counters
// in INFO (removals.go: the DEL, UNLINK and GETDEL it ran, the keys it expired and evicted, its flushes), which
// a poll reads in the pipeline before its keys, so that counters read at the earlier poll and at this one
// bracket what became of a key read at both. Per master, a key of the holder that this poll reads gone or
// replaced went:
//
//	its TTL had run out by now          expired (released, if a DEL ran there and no key expired)
//	the counters do not cover both reads unknown: INFO refused, another server, the key not read at the last poll
//	the master evicted keys, or flushed evicted (told at once, naming the masters: tellEvictions), flushed
//	a DEL ran there                     released
//	another token, more than 100ms left overwritten
//	otherwise                           unknown (expired, when a key expired there with less than 100ms left)
//
// What the masters told is kept, poll by poll, until a holder is named again (the lock may be partial or
// split meanwhile), and judged then (judgeHandover): overwritten on some master, and released on none, is an
// error (a release seen anywhere explains the change: the side of routine), told a poll later, once that poll's
// counters, read after the keys that showed the change, count no DEL there either (confirmOverwrite); else
// taken after a release or an
// eviction is routine (the eviction was told when it happened); else expired is a warning; else the change
// cannot be told, and the event says so. A master whose keys are refreshed by CLIENT TRACKING in both polls
// vouches for a key it did not re-read: it was not written since. Its limits: a DEL of any key counts, so an
// overwrite on a master that ran a DEL of another key between the two reads is told as a release;
// docs/accuracy.md says more.

// Event kinds of the changes of holder judged dangerous. One judged routine, or that cannot be told, is
// EventTakenOver.
const (
	EventOverwritten      EventKind = "overwritten"        // the holder's key was replaced while it had TTL left, with no release, expiry or eviction there between two reads
	EventTakenAfterExpiry EventKind = "taken-after-expiry" // the holder's key expired at its TTL and another token took the lock before the next holder was named
)

// overwriteMargin is how much TTL a replaced key must have had left, by its last read, to be told overwritten:
// well more than the read times' uncertainty, so that a key that expired is not told overwritten.
const overwriteMargin = 100 * time.Millisecond

// keyWent is how one master's key of the holder went between two reads.
type keyWent uint8

// The ways a key went.
const (
	wentReleased    keyWent = iota // a DEL ran on the master
	wentExpired                    // its TTL had run out
	wentEvicted                    // the master evicted keys
	wentFlushed                    // the master was flushed
	wentOverwritten                // another token replaced it with TTL left, and the master removed no key
	wentUnknown                    // the counters do not tell
	wentKinds
)

// maxJudged is how many masters a handover keeps what they told of (a bit each); the others' go unjudged.
const maxJudged = 64

// handover is what the masters told of the keys of a lock's last holder as they went, poll by poll, until a
// holder is named again. A lock's history holds it (nil until a key of its holder goes); it is not changed
// once a view holds it: a poll that learns more makes a copy.
type handover struct {
	from      string            // the holder whose keys went
	by        [wentKinds]uint64 // the masters (bit j: the j-th) where its key went each way
	evictTold uint64            // the masters whose eviction an event told
	ttlLeft   time.Duration     // the most TTL a key overwritten had left by its last read
	to        string            // the token that overwrote it first
	expiredAt time.Time         // the latest expiry of its keys that expired
	evictLeft time.Duration     // the most TTL a key evicted had left by its last read, since the last told
}

// wentHow is how the key of cell p (the holder's, read at the last poll) went, now that this poll reads c on
// the same master, whose counters say r.
func wentHow(p, c MasterLock, r removals, now time.Time) keyWent {
	left := time.Duration(math.MaxInt64)
	if p.PTTL != NoTTL {
		left = p.ReadAt.Add(p.PTTL).Sub(now)
	}
	covered := r.known && !r.since.IsZero() && (r.tracked || !p.ReadAt.Before(r.since))
	switch {
	case left <= expiryTolerance:
		if covered && r.deleted && !r.expired {
			return wentReleased
		}
		return wentExpired
	case !covered:
		return wentUnknown
	case r.flushed:
		return wentFlushed
	case r.evicted:
		return wentEvicted
	case r.deleted:
		return wentReleased
	case c.Present() && left > overwriteMargin:
		return wentOverwritten
	case r.expired && left <= overwriteMargin:
		return wentExpired
	}
	return wentUnknown
}

// noteWent returns what the masters told of the last holder's keys, with this poll's: p's history's, or a copy
// with what this poll adds; nil when no key of the holder went. A lock several may hold (a set) is not judged.
func (m lockMove) noteWent(now time.Time) *handover {
	p, v := m.p, m.v
	holder, h := p.hist.lastHolder, p.hist.went
	if holder == "" || v.Holders != nil || p.Holders != nil {
		return nil
	}
	if h != nil && h.from != holder {
		h = nil
	}
	var out *handover
	for j, pc := range p.Masters {
		if j >= len(v.Masters) || j >= len(m.masters) || j >= maxJudged || !pc.Holds(holder) {
			continue
		}
		c := v.Masters[j]
		if c.State == CellUnknown || c.Holds(holder) {
			continue
		}
		how := wentHow(pc, c, m.masters[j].removed, now)
		if out == nil {
			out = &handover{from: holder}
			if h != nil {
				*out = *h
			}
		}
		out.by[how] |= 1 << j
		left := pc.ReadAt.Add(pc.PTTL).Sub(now)
		switch how {
		case wentOverwritten:
			if pc.PTTL == NoTTL {
				left = math.MaxInt64
			}
			out.ttlLeft = max(out.ttlLeft, left)
			if out.to == "" {
				out.to = c.Token
			}
		case wentExpired:
			if pc.PTTL != NoTTL {
				out.expiredAt = maxTime(out.expiredAt, pc.ReadAt.Add(pc.PTTL))
			}
		case wentEvicted:
			if pc.PTTL != NoTTL {
				out.evictLeft = max(out.evictLeft, left)
			}
		}
	}
	if out == nil {
		return h
	}
	return out
}

// mastersOf lists the addresses of the masters in set (bit j: the j-th of masters).
func mastersOf(set uint64, masters []MasterStatus) string {
	var addrs []string
	for set != 0 {
		j := bits.TrailingZeros64(set)
		set &^= 1 << j
		if j < len(masters) {
			addrs = append(addrs, masters[j].Addr)
		}
	}
	return strings.Join(addrs, ", ")
}

// tellEvictions appends the event of the masters that evicted the holder's key in this poll, naming them,
// whatever their number: the holder keeps its quorum, or has lost it, and the event says which. The masters
// told are marked in v's handover.
func (m lockMove) tellEvictions(events []Event, now time.Time) []Event {
	v, h := m.v, m.v.hist.went
	if h == nil || h.by[wentEvicted]&^h.evictTold == 0 {
		return events
	}
	if m.p.hist.went == h { // not this poll's: shared with the view before, so not changed here
		return events
	}
	fresh := h.by[wentEvicted] &^ h.evictTold
	h.evictTold |= fresh
	var policies []string
	for set := fresh; set != 0; {
		j := bits.TrailingZeros64(set)
		set &^= 1 << j
		if j < len(m.masters) && m.masters[j].EvictionPolicy != "" && !slices.Contains(policies, m.masters[j].EvictionPolicy) {
			policies = append(policies, m.masters[j].EvictionPolicy)
		}
	}
	text := "evicted from " + mastersOf(fresh, m.masters)
	if len(policies) > 0 {
		text += " (maxmemory-policy " + strings.Join(policies, ", ") + ")"
	}
	if h.evictLeft > 0 {
		text += fmt.Sprintf(" %s before its TTL", vocab.ShortDuration(h.evictLeft))
	}
	h.evictLeft = 0
	live, quorum := liveOn(v, h.from, now), len(v.Masters)/2+1
	if live >= quorum {
		text += fmt.Sprintf(": holder %s keeps its key on %d of %s", vocab.Quote(h.from), live, vocab.Count(len(v.Masters), "master"))
	} else {
		text += fmt.Sprintf(": holder %s lost its quorum, its key lives on %s while another client can take the lock",
			vocab.Quote(h.from), vocab.Count(live, "master"))
	}
	return m.event(events, now, EventLockEvicted, text)
}

// evictedOnly reports whether every key of the holder that went early went by an eviction or a flush, each
// told: a quorum lost that way was told by its eviction's event.
func (h *handover) evictedOnly() bool {
	return h != nil && h.by[wentEvicted]|h.by[wentFlushed] != 0 && h.by[wentEvicted]&^h.evictTold == 0 &&
		h.by[wentReleased]|h.by[wentOverwritten]|h.by[wentUnknown] == 0
}

// judgeHandover is the kind and text of the event of the change of holder from last to v's holder, from what
// the masters told of last's keys (v's handover).
func (m lockMove) judgeHandover(last string, now time.Time) (EventKind, string) {
	return judge(m.v.hist.went, last, m.v.Holder, m.masters, now)
}

// judge is the kind and text of the event of the change of holder from last to holder, from what the masters
// told of last's keys (h).
func judge(h *handover, last, holder string, masters []MasterStatus, now time.Time) (EventKind, string) {
	to := vocab.Quote(holder)
	if h == nil || h.from != last {
		return EventTakenOver, fmt.Sprintf("taken over: holder %s replaced by %s; released, expired or overwritten "+
			"cannot be told: its keys were not read at both polls", vocab.Quote(last), to)
	}
	switch {
	case h.by[wentOverwritten] != 0 && h.by[wentReleased] == 0:
		by := h.to
		if by == "" {
			by = holder
		}
		left := "no TTL"
		if h.ttlLeft < math.MaxInt64 {
			left = vocab.ShortDuration(h.ttlLeft) + " of TTL"
		}
		return EventOverwritten, fmt.Sprintf("overwritten: %s replaced holder %s on %s with %s left, no release, "+
			"expiry or eviction seen there: a client setting without NX, or a master that lost the key",
			vocab.Quote(by), vocab.Quote(last), mastersOf(h.by[wentOverwritten], masters), left)
	case h.by[wentReleased] != 0:
		return EventTakenOver, fmt.Sprintf("taken over: holder %s released (a DEL ran on %s), then %s took the lock",
			vocab.Quote(last), mastersOf(h.by[wentReleased], masters), to)
	case h.by[wentEvicted]|h.by[wentFlushed] != 0:
		how := "evicted from " + mastersOf(h.by[wentEvicted], masters)
		if h.by[wentEvicted] == 0 {
			how = "flushed from " + mastersOf(h.by[wentFlushed], masters)
		}
		return EventTakenOver, fmt.Sprintf("taken over: holder %s's key was %s, then %s took the lock", vocab.Quote(last), how, to)
	case h.by[wentExpired] != 0:
		after := " after"
		if !h.expiredAt.IsZero() {
			after = " within " + vocab.ShortDuration(max(now.Sub(h.expiredAt), 0)) + " of"
		}
		return EventTakenAfterExpiry, fmt.Sprintf("taken after expiry: %s took the lock%s holder %s's key expiring: "+
			"%s may still be running (a GC pause, a slow job); fencing tokens make that safe",
			to, after, vocab.Quote(last), vocab.Quote(last))
	}
	return EventTakenOver, fmt.Sprintf("taken over: holder %s replaced by %s; released, expired or overwritten cannot "+
		"be told without the masters' INFO counters at both reads", vocab.Quote(last), to)
}

// overwriteToConfirm is an overwrite told by one poll, to be confirmed by the next. A poll reads a master's
// counters before its keys, so a release that ran between the two (a DEL, then another client's SET NX) shows
// as a key replaced with TTL left and no DEL counted; the next poll's counters, read after those keys, count
// that DEL. An overwrite is told only where they count none.
type overwriteToConfirm struct {
	went   handover // what the masters told, as judged
	from   string   // the holder replaced
	holder string   // the holder named
}

// confirmOverwrite tells the overwrite the poll before judged (p's), now that this poll's counters cover the
// time between that poll's counters and its keys: a master whose counters now show a DEL released the key
// rather than saw it overwritten. A master that did not answer keeps what it told.
func (m lockMove) confirmOverwrite(events []Event, now time.Time) []Event {
	o := m.p.hist.overwrite
	if o == nil {
		return events
	}
	h := o.went
	for set := h.by[wentOverwritten]; set != 0; {
		j := bits.TrailingZeros64(set)
		set &^= 1 << j
		if j < len(m.masters) && m.masters[j].removed.known && m.masters[j].removed.deleted {
			h.by[wentOverwritten] &^= 1 << j
			h.by[wentReleased] |= 1 << j
		}
	}
	kind, text := judge(&h, o.from, o.holder, m.masters, now)
	return m.event(events, now, kind, text)
}

// takenSoon is how soon after a holder's key expired from every master another token taking the lock is told
// as taken after expiry, when a poll saw the lock free in between: the first holder may still be running.
const takenSoon = 10 * time.Second

// afterExpiry judges v, a lock taken again after a poll saw it free, against its hold log (log, the previous
// snapshot's): when its last holder's key expired from every master less than takenSoon ago, v's appearance,
// the last of events, becomes the warning of a lock taken after expiry, if v is held; if it is not held yet
// (an acquisition in flight), v keeps that holder as its last, with its expiry, to be judged when a holder is
// named (judgeHandover).
func afterExpiry(v *LockView, log *HoldLog, masters []MasterStatus, now time.Time, events []Event) []Event {
	if log == nil {
		return events
	}
	ivs := log.Intervals(now.Add(-takenSoon))
	if len(ivs) == 0 {
		return events
	}
	iv := ivs[len(ivs)-1]
	if iv.Ended != EndExpired || iv.Token == "" || iv.Token == v.Holder || now.Sub(iv.End) > takenSoon {
		return events
	}
	h := &handover{from: iv.Token, expiredAt: iv.End.Add(-iv.EndSlack)}
	h.by[wentExpired] = iv.Masters
	if v.Holder == "" {
		v.hist.lastHolder, v.hist.went = iv.Token, h
		return events
	}
	n := len(events) - 1
	if n < 0 || events[n].Resource != v.Resource || events[n].Kind != EventLockAppeared {
		return events
	}
	v.hist.went = h
	m := lockMove{v: v, masters: masters}
	events[n].Kind, events[n].Text = m.judgeHandover(iv.Token, now)
	v.hist.went = nil
	return events
}
