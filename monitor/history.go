package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// tokenSeen records when a token was first seen on a resource.
type tokenSeen struct {
	token string
	since time.Time
}

// roomFor returns arena, the array a poll's views take their tokens from, with room for n more: a new one when
// it is full. The views keep the arrays they took from; no array is written where a view took from it.
func roomFor(arena []tokenSeen, n int) []tokenSeen {
	if len(arena)+n > cap(arena) {
		return make([]tokenSeen, 0, max(1024, 2*n))
	}
	return arena
}

// lockHistory is what Aggregate carries from one snapshot to the next for a resource.
type lockHistory struct {
	tokens     []tokenSeen         // tokens present in that snapshot with their first sighting
	lastHolder string              // the most recent holder, kept while the lock is partial or split
	heldBy     string              // the holder as of the last snapshot that decided the state ("" not held), kept while unknown
	went       *handover           // what the masters told of the last holder's keys as they went (handover.go); nil: none went
	overwrite  *overwriteToConfirm // an overwrite this poll judged, which the next poll confirms or tells as a release
	pending    alarm               // alarms seen by this poll alone, which the next poll confirms or dismisses
	standing   alarm               // alarms confirmed and still true (a quorum lost is LockView.QuorumLost)
	// free marks a lock without a key, listed for its hold log (LockView.Free) until freeUntil (as nanosOf
	// gives it: 8 bytes a lock, not a time's 24), when the log's last interval leaves the window (HoldLog.IdleAt).
	free      bool
	decidedAt time.Time // the last poll that decided who holds it (holdtrack.go), of those that built it
	builtIn   uint64    // the sequence number of the snapshot that built it: later ones took it as it was
	freeUntil int64
}

// expiryTolerance is how early before its TTL a key may vanish and still count as expired rather than
// released: read times are estimates, and Redis expires keys within a millisecond or so.
const expiryTolerance = 10 * time.Millisecond

// history carries a lock's history from p (nil when the resource is new) into v: when each of its tokens was
// first seen, its holder changes, and its alarms; and it appends the events of the move to events. A new lock
// moves by the appearances table, an undecided one keeps what was known, a decided one names a new holder and
// moves each alarm by the alarmRules table. Lock events are not raised when announce is false: the first
// snapshot, and locks found by the first sweep, only describe what is there.
func history(v, p *LockView, announce bool, masters []MasterStatus, now time.Time, events []Event) []Event {
	carrySightings(v, p, now)
	m := lockMove{v: v, p: p, announce: announce || p != nil, masters: masters}
	if p == nil {
		return m.appear(events, now)
	}
	switch {
	case v.State == StateUnknown:
		// Undecided: keep what was known, raise nothing; an alarm awaiting confirmation is not confirmed.
		v.Changes, v.LastChange, v.QuorumLost = p.Changes, p.LastChange, p.QuorumLost
		v.hist.lastHolder, v.hist.heldBy = p.hist.lastHolder, p.hist.heldBy
		v.hist.standing = p.hist.standing &^ alarmContended
		events = m.contend(events, now)
		v.hist.went = m.noteWent(now)
		events = m.tellEvictions(events, now)
	default:
		events = m.decide(events, now)
	}
	return events
}

// carrySightings sets when each token of v was first seen (now, unless p saw it), and v's FirstSeen: that of
// its lead token, or p's.
func carrySightings(v, p *LockView, now time.Time) {
	lead := v.Holder
	if lead == "" && v.State != StateUnknown {
		lead = LeadToken(v)
	}
	for k := range v.hist.tokens {
		t := &v.hist.tokens[k]
		t.since = now
		if p != nil {
			for _, pt := range p.hist.tokens {
				if pt.token == t.token {
					t.since = pt.since
					break
				}
			}
		}
		if t.token == lead && lead != "" {
			v.FirstSeen = t.since
		}
	}
	if v.FirstSeen.IsZero() && p != nil {
		v.FirstSeen = p.FirstSeen
	}
}

// lockMove is one lock's move from the previous snapshot (p) to this one (v), made at a time its methods are
// given. They take and return the events so far, and the time, rather than keep them, so that the views do
// not escape to the heap with the events (Aggregate makes a move for each of 100,000 locks).
type lockMove struct {
	v, p     *LockView
	announce bool           // the move's events are told
	masters  []MasterStatus // this snapshot's: what their counters say of the keys that went (removals.go)
}

// event appends to events one about the lock at now, when the move's events are told.
func (m lockMove) event(events []Event, now time.Time, kind EventKind, text string) []Event {
	if m.announce {
		events = append(events, Event{Time: now, Kind: kind, Resource: m.v.Resource, Text: text})
	}
	return events
}

// appearance is what a lock first seen in some state raises: the alarm it stands in from the start (there is no
// earlier poll to confirm it against), and its event, whose text is made from the lock's count and holder.
type appearance struct {
	standing alarm
	kind     EventKind
	text     func(count int, holder string) string
}

// appearances is the table of a new lock's first state: the alarm it starts in and the event it raises. A lock
// first seen undecided (StateUnknown) raises nothing.
var appearances = map[LockState]appearance{
	StateLost:  {alarmLost, EventLockLost, func(int, string) string { return "our lock is on no quorum" }},
	StateStuck: {0, EventLockStuck, func(count int, _ string) string { return stuckEventText(true, count) }},
	StateSplit: {alarmSplit, EventLockAppeared, func(count int, _ string) string {
		return "appeared split, " + vocab.Count(count, "master") + " with the most common token"
	}},
	StateHeld: {0, EventLockAppeared, func(_ int, holder string) string { return "appeared, held by " + vocab.Quote(holder) }},
	StatePartial: {0, EventLockAppeared, func(count int, _ string) string {
		return "appeared on " + vocab.Count(count, "master")
	}},
}

// appear is the move of a lock seen for the first time.
func (m lockMove) appear(events []Event, now time.Time) []Event {
	v := m.v
	v.hist.lastHolder, v.hist.heldBy = v.Holder, v.Holder
	if a, ok := appearances[v.State]; ok {
		v.hist.standing = a.standing
		events = m.event(events, now, a.kind, a.text(v.Count, v.Holder))
	}
	return events
}

// decide is the move of a lock seen before whose state this poll decided: a holder is named once, when it
// becomes known; each alarm this poll shows takes one step towards being raised (see alarmRules); a key
// without a TTL is told when it first has none. A lock with an alarm not yet confirmed is StateUnconfirmed.
func (m lockMove) decide(events []Event, now time.Time) []Event {
	v, p := m.v, m.p
	v.Changes, v.LastChange, v.hist.lastHolder = p.Changes, p.LastChange, p.hist.lastHolder
	v.hist.heldBy = v.Holder
	v.hist.went = m.noteWent(now)
	events = m.tellEvictions(events, now)
	if v.Holder != "" && v.Holders != nil {
		events = m.holdersMoved(events, now)
	} else if v.Holder != "" {
		switch last := v.hist.lastHolder; {
		case last == "":
			events = m.event(events, now, EventLockHeld, "held by "+vocab.Quote(v.Holder))
		case last != v.Holder:
			v.Changes++
			v.LastChange = now
			kind, text := m.judgeHandover(last, now)
			if kind == EventOverwritten && v.hist.went != nil {
				v.hist.overwrite = &overwriteToConfirm{went: *v.hist.went, from: last, holder: v.Holder}
			} else {
				events = m.event(events, now, kind, text)
			}
			v.hist.went = nil
		}
		v.hist.lastHolder = v.Holder
	}
	var pending alarm
	for _, rule := range alarmRules {
		if !m.shows(rule.alarm, now) {
			continue
		}
		switch confirm(p.hist, rule.alarm, m.sameAsBefore(rule.alarm)) {
		case alarmStands:
			v.hist.standing |= rule.alarm
		case alarmRaised:
			v.hist.standing |= rule.alarm
			if rule.alarm == alarmQuorumLost && v.hist.went.evictedOnly() {
				break // its eviction's event told it (tellEvictions)
			}
			events = m.event(events, now, rule.kind, m.alarmText(rule.alarm, now))
		case alarmPends:
			pending |= rule.alarm
		}
	}
	v.QuorumLost = v.hist.standing&alarmQuorumLost != 0
	if v.State == StateStuck && p.State != StateStuck {
		events = m.event(events, now, EventLockStuck, stuckEventText(false, v.Count))
	}
	if pending != 0 {
		v.hist.pending = pending
		v.State = StateUnconfirmed
	}
	return events
}

// goneEvent records that a lock seen before has no key on any master any more: deleted when its keys were
// tokens this process force-deleted (deleted), expired when its last known expiry has passed; before, evicted
// or flushed when the masters it went from in this poll did that (masters, this snapshot's: see
// serverRemoval), released otherwise.
func goneEvent(p *LockView, deleted []string, masters []MasterStatus, prevTime, now time.Time) Event {
	var ours []string
	for _, c := range p.Masters {
		if c.State != CellAbsent && slices.Contains(deleted, c.Token) && !slices.Contains(ours, c.Token) {
			ours = append(ours, c.Token)
		}
	}
	if len(ours) > 0 {
		return Event{Time: now, Kind: EventLockDeleted, Resource: p.Resource,
			Text: fmt.Sprintf("force-deleted from here: token %s", strings.Join(vocab.QuoteAll(ours), ", "))}
	}
	var expires time.Time
	noTTL := false
	for _, c := range p.Masters {
		if c.Token == "" {
			continue
		}
		if c.PTTL == NoTTL {
			noTTL = true
			continue
		}
		readAt := c.ReadAt
		if readAt.IsZero() {
			readAt = prevTime
		}
		expires = maxTime(expires, readAt.Add(c.PTTL))
	}
	// Name the holder only if its keys are the ones that went.
	who := ""
	last := p.hist.lastHolder
	switch {
	case p.Holder != "":
		who = " (was held by " + vocab.Quote(p.Holder) + ")"
	case last != "" && slices.ContainsFunc(p.Masters, func(c MasterLock) bool { return c.State != CellAbsent && c.Token == last }):
		who = " (last held by " + vocab.Quote(last) + ")"
	case LeadToken(p) != "":
		who = " (token " + vocab.Quote(LeadToken(p)) + ", which held no quorum)"
	}
	if !noTTL && !expires.IsZero() && !now.Before(expires.Add(-expiryTolerance)) {
		return Event{Time: now, Kind: EventLockExpired, Resource: p.Resource, Text: "expired at its TTL" + who}
	}
	early := ""
	if !noTTL && !expires.IsZero() {
		early = fmt.Sprintf(" %s before its TTL", vocab.ShortDuration(expires.Sub(now)))
	}
	if kind, how, ok := serverRemoval(p, masters); ok {
		return Event{Time: now, Kind: kind, Resource: p.Resource, Text: how + early + who}
	}
	return Event{Time: now, Kind: EventLockReleased, Resource: p.Resource, Text: "released" + early + who}
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
