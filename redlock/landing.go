package redlock

import (
	"context"
	"errors"
	"slices"

	"github.com/redis/go-redis/v9"
)

// landing is what the SETs of the round that won a lock did on each master, the answers that came after the
// decision included: where a key of the lock may be, and which masters the SET never reached.
type landing struct {
	done  chan struct{} // closed once every master answered (each within the node timeout)
	nodes []NodeResult  // the winning round's, with the late answers; read after done
	noKey []bool        // per master: the SET did not land and cannot have (refused, or never sent)
}

// land records the winning round r and its tail; the late answers are taken in the background.
func land(r Round, tail *roundTail) *landing {
	ld := &landing{done: make(chan struct{}), nodes: slices.Clone(r.Nodes), noKey: make([]bool, len(r.Nodes))}
	for i := range ld.nodes {
		if tail.answered[i] {
			ld.note(i, tail.replies[i])
		}
	}
	if tail.pending == 0 {
		close(ld.done)
		return ld
	}
	go func() {
		for range tail.pending {
			rep := <-tail.out
			ld.note(rep.index, rep)
		}
		close(ld.done)
	}()
	return ld
}

// note records master i's answer rep to the SET; a late one keeps the outcome the round gave it (pending)
// but its error and whether it was sent.
func (ld *landing) note(i int, rep reply) {
	landed, unknown := setOutcome(rep)
	ld.noKey[i] = !landed && !unknown
	n := &ld.nodes[i]
	n.Unsent = !rep.sent
	if n.Outcome == OutcomePending {
		n.Err, n.Latency = rep.err, rep.latency
		switch {
		case landed:
			n.Outcome = OutcomeOK
		case rep.err != nil && isTimeout(rep.err):
			n.Outcome = OutcomeTimeout
		case errors.Is(rep.err, redis.Nil):
			n.Outcome, n.Err = OutcomeHeldByOther, nil
		default:
			n.Outcome = OutcomeError
		}
	}
}

// Unreached returns, once every master has answered the SETs of the round that won the lock (or ctx ends:
// then nil), the masters where the SET neither landed nor met another key: those that could not be reached
// (refused, a failed TLS handshake, a bad DB number or password: Unsent), refused it with an error or did not
// answer in time, each with its reason. A command-line tool says them once, instead of at each release.
func (l *Lock) Unreached(ctx context.Context) []NodeResult {
	if l.landing == nil {
		return nil
	}
	select {
	case <-l.landing.done:
	case <-ctx.Done():
		return nil
	}
	var out []NodeResult
	for _, n := range l.landing.nodes {
		switch n.Outcome {
		case OutcomeError, OutcomeTimeout, OutcomeReplica:
			out = append(out, n)
		}
	}
	return out
}

// noKeyOn reports whether master i cannot hold the lock's key: the SET that won it was refused there or never
// went out (extensions never create a key). It waits for the SETs' answers (each comes within the node
// timeout); false when ctx ends first.
func (l *Lock) noKeyOn(ctx context.Context, i int) bool {
	if l.landing == nil {
		return false
	}
	select {
	case <-l.landing.done:
		return l.landing.noKey[i]
	case <-ctx.Done():
		return false
	}
}
