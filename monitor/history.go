package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// tokenSeen records when a token was first seen on a resource.
type tokenSeen struct {
	token string
	since time.Time
}

// lockHistory is what Aggregate carries from one snapshot to the next for a resource.
type lockHistory struct {
	tokens     []tokenSeen // tokens present in that snapshot with their first sighting
	lastHolder string      // the most recent holder, kept while the lock is partial or split
	heldBy     string      // the holder as of the last snapshot that decided the state ("" not held), kept while unknown
	pending    alarm       // alarms seen by this poll alone, which the next poll confirms or dismisses
	standing   alarm       // alarms confirmed and still true (a quorum lost is LockView.QuorumLost)
}

// expiryTolerance is how early before its TTL a key may vanish and still count as expired rather than
// released: read times are estimates, and Redis expires keys within a millisecond or so.
const expiryTolerance = 10 * time.Millisecond

// history carries first sightings, holder changes and their time from p (nil when the resource is new) into v,
// and appends the events of the transition to events. Lock events are not raised when announce is false: the
// first snapshot, and locks found by the first sweep, only describe what is there.
func history(v, p *LockView, announce bool, now time.Time, events []Event) []Event {
	lead := v.Holder
	if lead == "" && v.State != StateUnknown {
		lead = leadToken(v)
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
	event := func(kind EventKind, text string) {
		if announce || p != nil {
			events = append(events, Event{Time: now, Kind: kind, Resource: v.Resource, Text: text})
		}
	}
	if p == nil {
		v.hist.lastHolder, v.hist.heldBy = v.Holder, v.Holder
		switch v.State {
		case StateLost:
			v.hist.standing = alarmLost
			event(EventLockLost, "our lock is on no quorum")
		case StateStuck:
			event(EventLockStuck, fmt.Sprintf("appeared without a TTL on %d masters: it never expires", v.Count))
		case StateSplit:
			v.hist.standing = alarmSplit
			event(EventLockAppeared, fmt.Sprintf("appeared split, %d masters with the most common token", v.Count))
		case StateHeld:
			event(EventLockAppeared, fmt.Sprintf("appeared, held by %q", v.Holder))
		case StateUnknown:
		default:
			event(EventLockAppeared, fmt.Sprintf("appeared on %d masters", v.Count))
		}
		return events
	}
	v.Changes, v.LastChange, v.hist.lastHolder = p.Changes, p.LastChange, p.hist.lastHolder
	if v.State == StateUnknown {
		// Undecided: keep what was known, raise nothing; an alarm awaiting confirmation is not confirmed.
		v.QuorumLost, v.hist.standing, v.hist.heldBy = p.QuorumLost, p.hist.standing, p.hist.heldBy
		return events
	}
	v.hist.heldBy = v.Holder
	// An alarm is raised when two polls in a row show it (see confirmWindow in the package documentation):
	// the first marks it pending and shows the lock unconfirmed, the second confirms it if it still holds.
	var pending alarm
	confirm := func(a alarm, same bool, kind EventKind, text func() string) {
		switch {
		case p.hist.standing&a != 0:
			v.hist.standing |= a
		case p.hist.pending&a != 0 && same:
			v.hist.standing |= a
			event(kind, text())
		default:
			pending |= a
		}
	}
	if v.Holder != "" {
		// Every holder is named once, when it becomes known.
		switch last := v.hist.lastHolder; {
		case last == "":
			event(EventLockHeld, fmt.Sprintf("held by %q", v.Holder))
		case last != v.Holder:
			v.Changes++
			v.LastChange = now
			event(EventTakenOver, fmt.Sprintf("taken over: holder %q replaced by %q", last, v.Holder))
		}
		v.hist.lastHolder = v.Holder
	} else if last := v.hist.lastHolder; !v.Mine && last != "" && liveOn(v, last, now) > 0 && ((p.hist.standing|p.hist.pending)&alarmQuorumLost != 0 || p.hist.heldBy == last && vanishedEarly(p, v, last, now)) {
		// The last holder's key lives on, but on fewer than a quorum, because some of its keys went before
		// their TTL: its holder may still believe it holds the lock while another client can take it. It is
		// judged against the last decided state: after polls that could not decide (a master not answering),
		// a master back without the key it held takes that key from the count.
		confirm(alarmQuorumLost, true, EventQuorumLost, func() string {
			return fmt.Sprintf("holder %q lost its quorum: its key lives on %d masters", last, liveOn(v, last, now))
		})
		v.QuorumLost = v.hist.standing&alarmQuorumLost != 0
	}
	if v.State == StateSplit {
		// Confirmed only by tokens both polls saw: contention shows a new pair at each attempt.
		confirm(alarmSplit, sharedTokens(p, v) >= 2, EventLockSplit, func() string {
			return fmt.Sprintf("split: %d tokens, none on a quorum", len(v.hist.tokens))
		})
	}
	if v.State == StateLost {
		confirm(alarmLost, true, EventLockLost, func() string { return "our lock is on no quorum" })
	}
	if v.State == StateStuck && p.State != StateStuck {
		event(EventLockStuck, fmt.Sprintf("has no TTL on %d masters: it never expires", v.Count))
	}
	if pending != 0 {
		v.hist.pending = pending
		v.State = StateUnconfirmed
	}
	return events
}

// goneEvent records that a lock seen before has no key on any master any more: deleted when its keys were
// tokens this process force-deleted (deleted), expired when its last known expiry has passed, released when it
// vanished before.
func goneEvent(p *LockView, deleted []string, prevTime, now time.Time) Event {
	var ours []string
	for _, c := range p.Masters {
		if c.State != CellAbsent && slices.Contains(deleted, c.Token) && !slices.Contains(ours, c.Token) {
			ours = append(ours, c.Token)
		}
	}
	if len(ours) > 0 {
		return Event{Time: now, Kind: EventLockDeleted, Resource: p.Resource,
			Text: fmt.Sprintf("force-deleted from here: token %s", strings.Join(quoteAll(ours), ", "))}
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
		who = fmt.Sprintf(" (was held by %q)", p.Holder)
	case last != "" && slices.ContainsFunc(p.Masters, func(c MasterLock) bool { return c.State != CellAbsent && c.Token == last }):
		who = fmt.Sprintf(" (last held by %q)", last)
	case leadToken(p) != "":
		who = fmt.Sprintf(" (token %q, which held no quorum)", leadToken(p))
	}
	if !noTTL && !expires.IsZero() && !now.Before(expires.Add(-expiryTolerance)) {
		return Event{Time: now, Kind: EventLockExpired, Resource: p.Resource, Text: "expired at its TTL" + who}
	}
	text := "released"
	if !noTTL && !expires.IsZero() {
		text = fmt.Sprintf("released %s before its TTL", ShortDuration(expires.Sub(now)))
	}
	return Event{Time: now, Kind: EventLockReleased, Resource: p.Resource, Text: text + who}
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
