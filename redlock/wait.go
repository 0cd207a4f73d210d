package redlock

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"
)

// How long a waiter for a held lock sleeps at most between rounds, on top of the random retry delay: while it
// polls alone, and while a master confirmed its subscription to the lock's release channel, which wakes it
// when the holder releases (a holder of another client announces nothing, and its lock is then noticed free
// within the longer cap after it expires or is released). Both are also at most a multiple of the longest
// retry delay (pollSpan, watchSpan), so that a client that asked for quick retries keeps them quick: with
// the default delay (up to 250ms) the caps are 1s and 5s.
const (
	pollCap   = time.Second
	watchCap  = 5 * time.Second
	pollSpan  = 4
	watchSpan = 20
)

// waiter is the state of one Acquire between its rounds: its watch of the lock's release channel.
type waiter struct {
	c     *Client
	wake  <-chan struct{}
	heard func() bool
	stop  func()
	held  int // consecutive rounds that found the lock held on a quorum
}

// eagerRounds is how many rounds finding the lock held a waiter tries at the plain retry delay before it backs
// off: a lock held for a short critical section is taken as quickly as before.
const eagerRounds = 3

// end stops the waiter's watch, if any.
func (w *waiter) end() {
	if w.stop != nil {
		w.stop()
	}
}

// sleep waits before the next round after r failed: the random retry delay, and, once more than eagerRounds
// rounds in a row found the lock held on a quorum of masters, a share of the time until it would expire there (half while polling, all
// of it while a master confirmed the watch), capped and jittered. An announced release ends the wait early,
// after a random delay of up to a quarter of the least retry delay, so that waiters of several clients who
// heard it do not all try at the same instant. It returns the context's error when ctx ends first.
func (w *waiter) sleep(ctx context.Context, resource string, r Round) error {
	c := w.c
	d := c.retryDelay()
	w.held++
	if !heldOnQuorum(r) {
		w.held = 0
	}
	if !c.cfg.pollOnly && w.held > 0 && w.wake == nil {
		w.wake, w.heard, w.stop = c.watch(resource)
	}
	if !c.cfg.pollOnly && w.held > eagerRounds {
		share, most := c.heldFor(resource)/2, min(pollCap, pollSpan*c.cfg.retryDelayMax)
		if w.heard() {
			share, most = share*2, min(watchCap, watchSpan*c.cfg.retryDelayMax)
		}
		if wait := min(share, most); wait > 0 {
			d += wait/2 + rand.N(wait/2+1)
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-w.wake:
	case <-ctx.Done():
		return ctx.Err()
	}
	t.Reset(rand.N(c.cfg.retryDelayMin/4 + 1))
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// heldOnQuorum reports whether r failed because so many masters hold the key that no quorum is left without
// them: the lock is held, rather than the masters failing or a split vote.
func heldOnQuorum(r Round) bool {
	held := 0
	for _, n := range r.Nodes {
		if n.Outcome == OutcomeHeldByOther {
			held++
		}
	}
	return held > len(r.Nodes)-r.Quorum
}

// heldFor reads resource's remaining TTL on every master (PTTL) and returns how long until the key would be
// gone from a quorum of them. It waits for the first quorum of answers only: a master without the key, or whose
// answer is an error or does not come first, counts as free now (a shorter wait, never a longer one), and a
// key without expiry as held for MaxTTL.
func (c *Client) heldFor(resource string) time.Duration {
	out := make(chan reply, len(c.nodes))
	deadline := time.Now().Add(c.cfg.nodeTimeout)
	for i, nd := range c.nodes {
		nd.send(&call{args: []any{"pttl", resource}, kind: replyText, deadline: deadline, index: i, out: out})
	}
	left := make([]time.Duration, len(c.nodes))
	for range c.quorum { // the quorum's fastest answers: the others, taken as free, could only lengthen the wait
		rep := <-out
		if v, ok := rep.val.(int64); ok && rep.err == nil {
			switch {
			case v >= 0:
				left[rep.index] = time.Duration(v) * time.Millisecond
			case v == -1:
				left[rep.index] = MaxTTL
			}
		}
	}
	slices.Sort(left)
	return left[c.quorum-1]
}
