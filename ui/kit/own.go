package kit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// nodeView is one master's part in a round, sanitized.
type nodeView struct {
	label   string // M1, M2, ...
	outcome redlock.Outcome
	latency time.Duration
	err     string
}

// RoundView is an acquire, extend or release round as the dashboard shows it, sanitized.
type RoundView struct {
	Op       redlock.Op
	start    time.Time
	OK, N    int
	quorum   int
	elapsed  time.Duration
	Validity time.Duration
	nodes    []nodeView
}

// ViewRound makes a round from the Redlock client safe to show: it is where results enter the UI model.
func ViewRound(r redlock.Round) RoundView {
	v := RoundView{Op: r.Op, start: r.Start, OK: r.OK, N: len(r.Nodes), quorum: r.Quorum, elapsed: r.Elapsed,
		Validity: r.Validity, nodes: make([]nodeView, len(r.Nodes))}
	for i, n := range r.Nodes {
		v.nodes[i] = nodeView{label: fmt.Sprintf("M%d", i+1), outcome: n.Outcome, latency: n.Latency}
		if n.Err != nil {
			v.nodes[i].err = Sanitize(n.Err.Error(), TextCap)
		}
	}
	return v
}

// outcomeGlyphs tell the outcomes apart without colour: ✓ ok, ◆ another token, · no key, T timeout, ✗ error,
// R replica, ? not awaited (the round was decided before the master answered).
var outcomeGlyphs = map[redlock.Outcome]string{
	redlock.OutcomeOK: "✓", redlock.OutcomeHeldByOther: "◆", redlock.OutcomeGone: "·",
	redlock.OutcomeTimeout: "T", redlock.OutcomeError: "✗", redlock.OutcomeReplica: "R", redlock.OutcomePending: "?",
}

// Glyphs is the round's outcomes, one glyph per master.
func (r RoundView) Glyphs() string {
	var b strings.Builder
	for _, n := range r.nodes {
		b.WriteString(outcomeGlyphs[n.outcome])
	}
	return b.String()
}

// Summary is the round in a few words: "extend 3/3 (quorum 2) in 4.2ms".
func (r RoundView) Summary() string {
	if r.N == 0 {
		return ""
	}
	return fmt.Sprintf("%s %d/%d (quorum %d) in %s", r.Op, r.OK, r.N, r.quorum, Latency(r.elapsed))
}

// Detail is every master's outcome and timing: "M1 ok 1.1ms · M3 timeout 50ms · M2 error: ...".
func (r RoundView) Detail() string { return strings.Join(r.NodeLines(), " · ") }

// NodeLines is every master's outcome and timing, one per master: "M1 ok 1.1ms", "M2 error: ...".
func (r RoundView) NodeLines() []string {
	lines := make([]string, len(r.nodes))
	for i, n := range r.nodes {
		lines[i] = n.label + " " + outcomeText(n.outcome)
		if n.latency > 0 {
			lines[i] += " " + Latency(n.latency)
		}
		if n.err != "" && n.outcome == redlock.OutcomeError {
			lines[i] += ": " + n.err
		}
	}
	return lines
}

// notAwaited is how a master that had not answered when its round was decided is said: "pending" read as if
// its answer were still to come and mattered, though the round was over (the key usually lands there too).
const notAwaited = "not awaited (decided before it answered)"

// outcomeText names a master's outcome in a round, for people.
func outcomeText(o redlock.Outcome) string {
	if o == redlock.OutcomePending {
		return notAwaited
	}
	return o.String()
}

// Failure describes an error from the Redlock client, sanitized, with the round it carries (empty if none).
func Failure(err error) (string, RoundView) {
	reason := err.Error()
	var rv RoundView
	var re *redlock.RoundError
	if errors.As(err, &re) {
		reason = re.Reason
		if re.Attempts > 1 {
			reason += fmt.Sprintf(" after %d attempts", re.Attempts)
		}
		switch {
		case errors.Is(err, context.Canceled):
			reason += " (cancelled)"
		case errors.Is(err, context.DeadlineExceeded):
			reason += " (timed out)"
		}
		rv = ViewRound(re.Round)
	}
	var lost *redlock.LostError
	if errors.As(err, &lost) { // how it was lost comes first: taken over, evicted, deleted, expired
		reason = string(lost.Cause) + Prefixed(": ", lost.Detail)
	}
	return Sanitize(reason, TextCap), rv
}

// OwnLock is a lock this dashboard holds. Its fields beyond the lock are refreshed from it in Update (in-memory
// reads, no I/O), so View shows a copy and the background keeper never races the screen.
//
// A lock stays ours until it is proven gone: a release confirmed by enough masters that the rest cannot hold a
// quorum, an extension answered "not ours" by as many, or its validity running out. A release or an extension
// that failed with errors or timeouts proves nothing, so the lock stays listed with what happened and the
// validity it had: the Redlock client gives such a lock up at once, but its keys may still hold our token.
type OwnLock struct {
	Lock         *redlock.Lock
	Name         string // sanitized resource
	Acquired     time.Time
	Keeper       *redlock.Keeper // running auto-extension, nil when off
	AutoBusy     bool            // the keeper is starting or stopping
	Busy         string          // "extending", "releasing": a command in flight
	Lost         string          // why the lock is known lost, sanitized; "" while not lost
	Unconfirmed  string          // why our last release was not confirmed, sanitized; "" when none failed
	ExtendFailed string          // why an extension failed without proving the lock lost, sanitized

	ValidUntil time.Time // on the dashboard's clock: the end of the validity we last held it with
	TTL        time.Duration
	Extensions int
	ToldValid  int  // the extensions when the validity was last told to the register (Ownership.Valid); -1 never
	Held       bool // the Redlock client still holds it: extensions and auto-extension are possible
	Last       RoundView
}

// NewOwnLock records a lock just acquired.
func NewOwnLock(l *redlock.Lock, now time.Time) *OwnLock {
	o := &OwnLock{Lock: l, Name: Sanitize(l.Resource(), NameCap), Acquired: now, ToldValid: -1}
	o.Refresh(now)
	return o
}

// Refresh copies the lock's state, and returns a log entry when the keeper extended it since the last refresh.
// The validity is copied only while the client holds the lock: once the client has given it up (released, or
// after a failed extension) the keys may still hold our token until the validity we last had runs out.
func (o *OwnLock) Refresh(now time.Time) []LogEntry {
	l := o.Lock
	o.Held = l.Held()
	if o.Held {
		o.ValidUntil = now.Add(l.Validity())
	}
	o.TTL = l.TTL()
	var out []LogEntry
	if r := l.LastRound(); !r.Start.Equal(o.Last.start) {
		o.Last = ViewRound(r)
		switch ext := l.Extensions(); {
		case o.Keeper == nil || r.Op != redlock.OpExtend:
		case ext > o.Extensions:
			o.ExtendFailed = ""
			out = append(out, LogEntry{At: now, Level: monitor.SeverityInfo, Resource: l.Resource(), Text: fmt.Sprintf(
				"auto-extended %s, valid %s: %s · %s", o.Name, vocab.ShortDuration(o.Last.Validity), o.Last.Summary(), o.Last.Detail())})
		case o.Held: // the keeper's extension failed without proof: it tries again while the lock is valid
			o.ExtendFailed = fmt.Sprintf("failed (%d of %d renewed), trying again", r.OK, len(r.Nodes))
			out = append(out, LogEntry{At: now, Level: monitor.SeverityInfo, Resource: l.Resource(), Text: fmt.Sprintf(
				"auto-extend %s %s; not lost, valid %s more · %s", o.Name, o.ExtendFailed, vocab.ShortDuration(o.Left(now)), o.Last.Detail())})
		}
	}
	o.Extensions = l.Extensions()
	return out
}

// Left is how much longer the lock may hold at now: its validity, or zero once it is known lost or ran out.
func (o *OwnLock) Left(now time.Time) time.Duration {
	if o.Lost != "" {
		return 0
	}
	return max(o.ValidUntil.Sub(now), 0)
}

// State is the word shown for the lock at now.
func (o *OwnLock) State(now time.Time) (string, monitor.Severity) {
	switch {
	case o.Busy != "":
		return o.Busy + "…", monitor.SeverityInfo
	case o.Lost != "":
		return "LOST", monitor.SeverityError
	case o.Left(now) == 0:
		return "expired", monitor.SeverityWarning
	case o.Unconfirmed != "":
		return "unconfirmed", monitor.SeverityWarning
	case o.ExtendFailed != "":
		return "ext failed", monitor.SeverityWarning
	}
	return "held", monitor.SeverityInfo
}

// ErrRound returns the round an error from the Redlock client carries, if it carries one.
func ErrRound(err error) (redlock.Round, bool) {
	var re *redlock.RoundError
	if errors.As(err, &re) {
		return re.Round, true
	}
	return redlock.Round{}, false
}

// Unanswered counts the masters of a round that failed, timed out, had not answered or refused as replicas.
func Unanswered(r RoundView) int {
	n := 0
	for _, nd := range r.nodes {
		switch nd.outcome {
		case redlock.OutcomeError, redlock.OutcomeTimeout, redlock.OutcomePending, redlock.OutcomeReplica:
			n++
		}
	}
	return n
}

// Prefixed returns sep+s, or "" for an empty s.
func Prefixed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// Unextendable says why lock o cannot be extended ("" when it can): its release was asked for. (After an
// extension that failed with errors the lock is still held, and may be extended again.) releaseKey names the
// key that releases it.
func (o *OwnLock) Unextendable(releaseKey string) string {
	if o.Unconfirmed != "" {
		return o.Name + " is being released (release unconfirmed): " + releaseKey + " tries the release again"
	}
	return ""
}
