package demo

import (
	"fmt"
	"sort"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Belief is what one simulated client believes: I hold Resource with Token
// until Until. Until is the end of the lock's validity on the client's own
// monotonic clock, expressed as wall time. A client stops believing when it
// releases the lock, notices it lost it, or crashes; a frozen client (Paused)
// goes on believing past Until, which is how a GC pause breaks exclusion.
type Belief struct {
	Client    string
	Resource  string
	Token     string
	Since     time.Time // when the client started believing (its acquisition returned)
	Until     time.Time // end of validity as the client last computed it
	Writes    int       // writes made under this lock
	LastWrite time.Time // zero before the first write
	Paused    bool      // the client is frozen and does not know time passes
	Fence     uint64    // the lock's fencing token; 0 for a lock without one
}

// Valid reports whether the belief is still within its validity at now.
func (b Belief) Valid(now time.Time) bool {
	return now.Before(b.Until)
}

// ViolationKind says how mutual exclusion was broken.
type ViolationKind string

// The ways a violation arises.
const (
	// ViolationOverlap: two clients believed at once, each within its validity,
	// that they held the resource (a crashed master or a clock jump).
	ViolationOverlap ViolationKind = "overlap"
	// ViolationStaleWrite: a client wrote after its validity ran out, while
	// another client held the resource (a process pause).
	ViolationStaleWrite ViolationKind = "stale-write"
	// ViolationFenceReused: two fenced locks were given the same token and
	// the fenced store accepted writes under both (a master lost its counter).
	ViolationFenceReused ViolationKind = "fence-reused"
)

// Violation is a breach of mutual exclusion: two clients, with different
// tokens, whose time holding Resource overlapped. First started believing
// before Second. Events is the story that led to it, oldest first: the last
// events that touch Resource, with the faults and workload changes among
// them (for a scenario's violation, from the scenario's first step on).
type Violation struct {
	ID       int // increasing from 1
	Time     time.Time
	Resource string
	Kind     ViolationKind
	First    Belief
	Second   Belief
	Text     string
	Events   []Event
}

// beliefRetention is how long a belief is kept after it ended, so that a
// belief whose holder is still active can be compared with it.
const beliefRetention = time.Minute

// beliefRecord is a belief and when its client stopped holding it.
type beliefRecord struct {
	Belief
	ended time.Time // zero while the client still believes
}

// end is when the client's time holding the resource ended, or ends: its
// validity, cut short by a release, but stretched to a write made after it,
// since writing is acting as the holder.
func (r *beliefRecord) end() time.Time {
	e := r.Until
	if !r.ended.IsZero() && r.ended.Before(e) {
		e = r.ended
	}
	if r.LastWrite.After(e) {
		e = r.LastWrite
	}
	return e
}

// overlaps reports whether two holdings of the same resource overlap in a
// way that breaks mutual exclusion. Two fenced holdings never do by
// themselves: their writes go to a store that checks the tokens, and
// fencedWrite judges what the store accepted.
func (r *beliefRecord) overlaps(o *beliefRecord) bool {
	return r.Token != o.Token && (r.Fence == 0 || o.Fence == 0) && r.Since.Before(o.end()) && o.Since.Before(r.end())
}

// detector compares beliefs and finds violations. It is pure logic, driven by
// the demo's calls; it is not safe for concurrent use.
type detector struct {
	byToken  map[string]*beliefRecord
	reported map[[2]string]bool // token pairs already reported
	refused  int                // stale writes a fenced store refused: safe
}

// newDetector returns a detector that has seen no belief.
func newDetector() *detector {
	return &detector{byToken: map[string]*beliefRecord{}, reported: map[[2]string]bool{}}
}

// begin records a new belief and returns the violations it causes.
func (d *detector) begin(b Belief) []Violation {
	r := &beliefRecord{Belief: b}
	d.byToken[b.Token] = r
	return d.check(r, ViolationOverlap)
}

// extend moves a belief's validity end later (a lock extension), and returns
// the violations that causes. An earlier until is ignored: a client's
// validity only shrinks when it stops believing, which stop records.
func (d *detector) extend(token string, until time.Time) []Violation {
	r := d.byToken[token]
	if r == nil || !r.ended.IsZero() || !until.After(r.Until) {
		return nil
	}
	r.Until = until
	return d.check(r, ViolationOverlap)
}

// wrote records a write at t under token and returns the violations it
// causes: a write after the validity ran out stretches the holding.
func (d *detector) wrote(token string, t time.Time) []Violation {
	r := d.byToken[token]
	if r == nil {
		return nil
	}
	r.Writes++
	r.LastWrite = t
	kind := ViolationOverlap
	if !r.Valid(t) {
		kind = ViolationStaleWrite
	}
	return d.check(r, kind)
}

// fencedWrite records a write under token that a fenced store accepted or
// refused, at t. A refused write changed nothing: it is counted as a stale
// write stopped, and neither stretches the holding nor breaks exclusion. An
// accepted one is a write like any other, and a violation too when the
// store accepted writes under another lock with the same token: the store
// cannot tell such holders apart.
func (d *detector) fencedWrite(token string, t time.Time, accepted bool) []Violation {
	r := d.byToken[token]
	if r == nil {
		return nil
	}
	if !accepted {
		d.refused++
		return nil
	}
	out := d.wrote(token, t)
	for _, o := range d.byToken {
		if o.Resource != r.Resource || o.Token == r.Token || o.Fence != r.Fence || o.Writes == 0 {
			continue
		}
		first, second, fresh := d.pair(r, o)
		if !fresh {
			continue
		}
		out = append(out, Violation{Resource: r.Resource, Kind: ViolationFenceReused, First: first.Belief,
			Second: second.Belief, Text: fmt.Sprintf("%s and %s were both given fencing token %d for %s, and the "+
				"store accepted writes from both", first.Client, second.Client, r.Fence, r.Resource)})
	}
	return out
}

// setPaused marks a belief's client as frozen or running.
func (d *detector) setPaused(token string, paused bool) {
	if r := d.byToken[token]; r != nil {
		r.Paused = paused
	}
}

// stop records that the client stopped believing at t.
func (d *detector) stop(token string, t time.Time) {
	if r := d.byToken[token]; r != nil && r.ended.IsZero() {
		r.ended = t
		r.Paused = false
	}
}

// prune forgets beliefs that ended long before now.
func (d *detector) prune(now time.Time) {
	for tok, r := range d.byToken {
		if !r.ended.IsZero() && now.Sub(r.end()) > beliefRetention {
			delete(d.byToken, tok)
		}
	}
	for pair := range d.reported {
		if d.byToken[pair[0]] == nil && d.byToken[pair[1]] == nil {
			delete(d.reported, pair)
		}
	}
}

// current returns the beliefs still held, ordered by resource then since.
func (d *detector) current() []Belief {
	var out []Belief
	for _, r := range d.byToken {
		if r.ended.IsZero() {
			out = append(out, r.Belief)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Resource != out[j].Resource {
			return out[i].Resource < out[j].Resource
		}
		return out[i].Since.Before(out[j].Since)
	})
	return out
}

// pair orders two holdings by when they began and reports whether the pair is
// reported for the first time, marking it reported.
func (d *detector) pair(r, o *beliefRecord) (first, second *beliefRecord, fresh bool) {
	first, second = o, r
	if r.Since.Before(o.Since) {
		first, second = r, o
	}
	key := [2]string{first.Token, second.Token}
	if d.reported[key] {
		return first, second, false
	}
	d.reported[key] = true
	return first, second, true
}

// check compares r with every other holding of its resource and returns the
// overlaps not reported before, of the given kind.
func (d *detector) check(r *beliefRecord, kind ViolationKind) []Violation {
	var out []Violation
	for _, o := range d.byToken {
		if o.Resource != r.Resource || !r.overlaps(o) {
			continue
		}
		first, second, fresh := d.pair(r, o)
		if !fresh {
			continue
		}
		out = append(out, Violation{
			Resource: r.Resource,
			Kind:     kind,
			First:    first.Belief,
			Second:   second.Belief,
			Text:     violationText(kind, r, o),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First.Since.Before(out[j].First.Since) })
	return out
}

// violationText explains a violation caused by a change to r, which overlaps o.
func violationText(kind ViolationKind, r, o *beliefRecord) string {
	if kind == ViolationStaleWrite {
		return fmt.Sprintf("%s wrote %s %s after its lock ran out, believing it still held it, while %s held it (token %s)",
			r.Client, r.Resource, lateBy(r.LastWrite.Sub(r.Until)), o.Client, shortToken(o.Token))
	}
	first, second := o, r
	if r.Since.Before(o.Since) {
		first, second = r, o
	}
	return fmt.Sprintf("%s and %s both believe they hold %s: %s (token %s) until %s, %s (token %s) since %s",
		first.Client, second.Client, r.Resource,
		first.Client, shortToken(first.Token), first.end().Format(clockFormat),
		second.Client, shortToken(second.Token), second.Since.Format(clockFormat))
}

// lateBy describes how long after its validity a write came.
func lateBy(d time.Duration) string {
	return fmt.Sprintf("%s late", vocab.ShortDuration(d))
}

// clockFormat shows times of day to the millisecond.
const clockFormat = "15:04:05.000"

// shortToken abbreviates a token for sentences; Event.Token keeps it whole.
func shortToken(t string) string {
	if len(t) > 8 {
		return t[:8]
	}
	return t
}
