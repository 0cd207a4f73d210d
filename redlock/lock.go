package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Lock is a lock held on a quorum of masters. It is safe for use from several
// goroutines; its extensions and releases run one at a time.
type Lock struct {
	client   *Client
	resource string
	token    string
	fence    uint64 // WithFencing: the fencing token
	acquired Acquisition

	op sync.Mutex // serialises Extend and Release

	mu         sync.Mutex // guards the fields below
	ttl        time.Duration
	validUntil time.Time // on the client's clock
	extensions int
	lost       bool
	released   bool
	last       Round
	prev       []<-chan struct{} // the last round's commands, per master: the next waits for them
	releasedC  chan struct{}     // closed on release; made on demand
	evicted    []int64           // the masters' evicted_keys when a keeper started, -1 unknown; nil: not taken
	landing    *landing          // what the winning round's SETs did on each master
}

// Resource is the locked resource: the Redis key on every master.
func (l *Lock) Resource() string { return l.resource }

// Token is the random value that marks this lock as ours on the masters.
func (l *Lock) Token() string { return l.token }

// Acquisition is how a lock was won: the rounds it took and how long the caller waited for it, from the start of
// the first round to the decision of the last (on the client's clock). A lock won at once took 1 round; its wait
// is that round's.
type Acquisition struct {
	Rounds int
	Waited time.Duration
}

// String says how the lock was won, for logs: "in 1 round (840µs)", "after 3 rounds (1.23s)".
func (a Acquisition) String() string {
	wait := a.Waited.Round(time.Millisecond)
	if a.Waited < 10*time.Millisecond {
		wait = a.Waited.Round(10 * time.Microsecond)
	}
	if a.Rounds > 1 {
		return fmt.Sprintf("after %d rounds (%s)", a.Rounds, wait)
	}
	return fmt.Sprintf("in %d round (%s)", a.Rounds, wait)
}

// Acquisition tells how the lock was won (see Acquisition).
func (l *Lock) Acquisition() Acquisition { return l.acquired }

// TTL is the TTL the lock was last acquired or extended with.
func (l *Lock) TTL() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ttl
}

// Validity is how long the lock is still safely held: positive while held,
// zero or negative once it lapsed, was lost or was released.
func (l *Lock) Validity() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.validUntil.Sub(l.client.cfg.clock.Now())
}

// Extensions is how many times the lock was extended.
func (l *Lock) Extensions() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.extensions
}

// Held reports whether the lock is neither released, lost nor lapsed.
func (l *Lock) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.released && !l.lost && l.validUntil.After(l.client.cfg.clock.Now())
}

// LastRound is the most recent acquire, extend or release round, with what
// each master did.
func (l *Lock) LastRound() Round {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last.clone()
}

// end marks the lock as no longer held from now on.
func (l *Lock) end(lost bool) {
	now := l.client.cfg.clock.Now()
	if l.validUntil.After(now) {
		l.validUntil = now
	}
	switch {
	case lost:
		l.lost = true
	case !l.released:
		l.released = true
		if l.releasedC != nil {
			close(l.releasedC)
		}
	}
}

// releasedChan returns a channel that is closed once the lock is released.
func (l *Lock) releasedChan() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.releasedC == nil {
		l.releasedC = make(chan struct{})
		if l.released {
			close(l.releasedC)
		}
	}
	return l.releasedC
}

// Extend renews the lock's TTL to ttl on every master holding our token. It
// succeeds only when a quorum renewed it and the new validity, measured like
// an acquisition, is positive; a master where the key expired is not taken
// again. An extension the masters refused on so many of them that fewer than
// a quorum may still hold our token (no key, another token) marks the lock
// lost and returns a *LostError (ErrLost). One that failed with errors or
// timeouts proves nothing: the lock stays held for the validity it had (no
// longer than ttl allows from the round's start) and may be extended again;
// the error matches ErrNotExtended, and the context's error when ctx ended
// it. Extending a lock whose validity ran out fails with a *LostError
// (expired). Extending beyond WithMaxExtensions fails with ErrExtendLimit and
// leaves the lock as it was. With an ended ctx Extend sends nothing.
func (l *Lock) Extend(ctx context.Context, ttl time.Duration) (err error) {
	if err := checkTTL(ttl); err != nil {
		return err
	}
	l.op.Lock()
	defer l.op.Unlock()
	c := l.client
	if err := ctx.Err(); err != nil {
		return &RoundError{Round: Round{Op: OpExtend, Resource: l.resource, Quorum: c.quorum}, Attempts: 1,
			Reason: "not started", kinds: []error{ErrNotExtended}, cause: err}
	}
	if err := l.stillHeld(); err != nil {
		return fmt.Errorf("extend: %w", err)
	}
	l.mu.Lock()
	if l.extensions >= c.cfg.maxExtensions {
		l.mu.Unlock()
		return fmt.Errorf("extend %q: %d extensions used: %w", l.resource, l.extensions, ErrExtendLimit)
	}
	l.mu.Unlock()

	r, tail := c.run(ctx, OpExtend, l.resource, nil, l.prev, func(cl *call) {
		cl.script, cl.keys, cl.argv = extendScript, []string{l.resource}, []any{l.token, ttl.Milliseconds()}
		cl.kind = replyScript
	})
	r.Validity = c.validity(ttl, r.Elapsed)
	defer func() {
		c.cfg.notify(Action{Op: OpExtend, Resource: l.resource, Token: l.token, Fence: l.fence, Round: r.clone(), Err: err})
	}()
	var lost *LostError
	if r.OK < c.quorum && r.ProvesGone() {
		reason := fmt.Sprintf("extension refused (%d of %d masters, need %d)", r.OK, len(c.nodes), c.quorum)
		lost = c.lossOf(ctx, l, r, &RoundError{Round: r, Attempts: 1, Reason: reason, kinds: []error{ErrNotAcquired}})
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	l.last, l.prev = r, tail.finished
	switch {
	case r.OK >= c.quorum && r.Validity > 0 && !l.released:
		l.ttl = ttl
		l.validUntil = r.ValidUntil()
		l.extensions++
		return nil
	case lost != nil:
		l.end(true)
		return lost
	}
	// Not proven lost: the lock holds at least until the earlier of its validity and the new TTL from the
	// round's start, on the masters that got the command and on the others.
	if until := r.Start.Add(c.validity(ttl, 0)); until.Before(l.validUntil) {
		l.validUntil = until
	}
	reason := fmt.Sprintf("extension failed (%d of %d masters, need %d), lock still held", r.OK, len(c.nodes), c.quorum)
	if ctx.Err() != nil {
		reason = "extension interrupted, lock still held"
	}
	return &RoundError{Round: r, Attempts: 1, Reason: reason, kinds: []error{ErrNotExtended}, cause: ctx.Err()}
}

// Release deletes the lock on every master where it still holds our token,
// including masters where acquisition failed, and never touches another
// token. Masters that do not answer are released again in the background
// until they confirm or the TTL has passed. It is idempotent. It returns
// ErrNotHeld when no master held the lock any more (it had expired or was
// released), and ErrIncomplete when some master did not confirm; both carry
// the round. With an ended ctx it sends
// nothing and returns ErrIncomplete with the context's error; the lock is
// released locally all the same (a keeper stops) and Release can be called
// again. Afterwards Validity is not positive.
func (l *Lock) Release(ctx context.Context) error {
	l.op.Lock()
	defer l.op.Unlock()
	l.mu.Lock()
	l.end(false)
	l.mu.Unlock()
	if err := ctx.Err(); err != nil {
		c := l.client
		return &RoundError{Round: Round{Op: OpRelease, Resource: l.resource, Quorum: c.quorum}, Attempts: 1,
			Reason: "not started", kinds: []error{ErrIncomplete}, cause: err}
	}

	c := l.client
	r, tail := c.runRelease(ctx, l.resource, l.token, l.prev)
	until := time.Now().Add(l.TTL())
	for i, rep := range tail.replies {
		if !tail.answered[i] || rep.sent && rep.err != nil && !isReply(rep.err) { // went out, no answer
			c.cleanup(i, l.resource, l.token, until, 2, tail.finished[i], false)
		}
	}

	l.mu.Lock()
	l.last, l.prev = r, tail.finished
	l.mu.Unlock()
	err := releaseError(r, func(i int) bool { return l.noKeyOn(ctx, i) })
	released := make([]bool, len(r.Nodes))
	for i, n := range r.Nodes {
		released[i] = n.Outcome == OutcomeOK
	}
	if r.OK > 0 {
		c.announce(l.resource, l.token, released)
	}
	c.cfg.notify(Action{Op: OpRelease, Resource: l.resource, Token: l.token, Fence: l.fence, Round: r.clone(), Err: err})
	return err
}

// releaseError turns a release round into Release's error: nil when some master
// deleted our key and every master that may hold it answered. noKey (nil: none)
// tells the masters that cannot hold our key: the SET that won the lock never
// landed there, so what they answer, or not, confirms nothing and leaves nothing.
func releaseError(r Round, noKey func(int) bool) error {
	unconfirmed := 0
	for i, n := range r.Nodes {
		var noScripts *noScriptsError
		switch {
		case errors.As(n.Err, &noScripts) && !noScripts.byACL(): // scripts renamed away: no lock of ours is there
		case noKey != nil && noKey(i):
		case n.Outcome == OutcomeTimeout, n.Outcome == OutcomeError, n.Outcome == OutcomePending,
			n.Outcome == OutcomeReplica: // a replica refused the DEL: it may hold our token
			unconfirmed++
		}
	}
	switch {
	case unconfirmed > 0:
		return &RoundError{Round: r, Attempts: 1, kinds: []error{ErrIncomplete},
			Reason: fmt.Sprintf("release unconfirmed on %d of %d masters", unconfirmed, len(r.Nodes))}
	case r.OK == 0:
		return &RoundError{Round: r, Attempts: 1, kinds: []error{ErrNotHeld},
			Reason: "lock was not held on any master (expired or already released)"}
	}
	return nil
}
