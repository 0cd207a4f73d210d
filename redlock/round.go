package redlock

import (
	"fmt"
	"strings"
	"time"
)

// Op names the kind of round a Round describes.
type Op string

// The rounds a client runs.
const (
	OpAcquire Op = "acquire"
	OpExtend  Op = "extend"
	OpRelease Op = "release"
	// OpFence is a fenced acquisition's second round, which raises the
	// masters' counters to the lock's token (see WithFencing).
	OpFence Op = "fence"
	// OpCheck reads the lock's key on every master (Lock.Check): a keeper's
	// look between extensions.
	OpCheck Op = "check"
	// opInfo reads INFO stats from masters, to tell an eviction from a deletion.
	opInfo Op = "info"
)

// hearsEveryMaster reports whether a round of op waits for every master's answer (up to the node timeout)
// instead of ending once a quorum is reached or out of reach: a release must reach every master, and INFO is
// read where it is asked.
func (op Op) hearsEveryMaster() bool { return op == OpRelease || op == opInfo }

// Outcome is what one master did in one round.
type Outcome int

// The outcomes a master can have in a round.
const (
	// OutcomePending: the master had not answered when the round was decided.
	OutcomePending Outcome = iota
	// OutcomeOK: the key was set (acquire), its TTL renewed (extend), it was
	// deleted (release) or its counter raised to the token (fence).
	OutcomeOK
	// OutcomeHeldByOther: the key holds another token (or, on acquire, exists).
	OutcomeHeldByOther
	// OutcomeGone: there was no key (extend, release).
	OutcomeGone
	// OutcomeTimeout: no answer within the node timeout.
	OutcomeTimeout
	// OutcomeError: the master answered with an error, with a reply that is
	// not the command's success value, or could not be reached.
	OutcomeError
	// OutcomeReplica: the server is a replica (it answered READONLY, or said
	// role:slave when the connection was set up). A replica never counts
	// towards a quorum: what it holds is its primary's, and is wiped when it
	// resynchronises.
	OutcomeReplica
)

var outcomeNames = [...]string{"pending", "ok", "held by another token", "gone", "timeout", "error", "replica"}

// String names the outcome for people.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// NodeResult is one master's part in a round.
type NodeResult struct {
	Addr    string
	Outcome Outcome
	Latency time.Duration // zero while pending
	Err     error         // set for OutcomeError, OutcomeTimeout and OutcomeReplica: what the master said, or why it said nothing
	// Unsent is set when the master answered and the command never went out to it (its connection could not
	// be set up: refused, a TLS handshake or a SELECT or AUTH that failed) or timed out still queued: the
	// master did not run it. False while pending, and whenever it may have reached the master.
	Unsent bool
}

// Round is what happened in one acquire, extend or release round.
type Round struct {
	Op       Op
	Resource string
	Start    time.Time     // on the client's clock
	Elapsed  time.Duration // from start to the decision
	OK       int           // masters with OutcomeOK
	Quorum   int
	Validity time.Duration // acquire and extend: validity at the decision
	Nodes    []NodeResult  // in the order of the masters given to New
}

// ValidUntil is when the lock that a successful acquire or extend round granted stops being valid, on the
// client's clock: its validity counted from the decision.
func (r Round) ValidUntil() time.Time { return r.Start.Add(r.Elapsed + r.Validity) }

// Summary describes the round in one line, for logs and errors.
func (r Round) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q: %d/%d masters (quorum %d) in %s", r.Op, r.Resource, r.OK, len(r.Nodes), r.Quorum,
		r.Elapsed.Round(time.Microsecond))
	for _, n := range r.Nodes {
		if n.Outcome == OutcomeOK {
			continue
		}
		what := n.Outcome.String()
		if n.Outcome == OutcomePending { // the round was decided without it: nothing is known of it, nor wrong
			what = "not awaited (decided before it answered)"
		}
		fmt.Fprintf(&b, "; %s: %s", n.Addr, what)
		if n.Err != nil && (n.Outcome == OutcomeError || n.Outcome == OutcomeReplica) {
			fmt.Fprintf(&b, " (%v)", n.Err)
		}
	}
	return b.String()
}

func (r Round) clone() Round {
	r.Nodes = append([]NodeResult(nil), r.Nodes...)
	return r
}
