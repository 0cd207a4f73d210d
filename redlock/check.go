package redlock

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Check reads the lock's key on every master at once (GET, which a write
// pause does not block) and tells whether the lock is still ours: nil when a
// quorum holds our token. When the answers prove it is not (no key, another
// token or another kind of key on so many masters that fewer than a quorum
// may still hold it), the lock is lost from then on and Check returns a
// *LostError that says how. Errors and timeouts prove nothing: Check then
// returns the round's *RoundError (matching none of the sentinels) and the
// lock stays held for its validity. A Keeper checks between extensions, so
// that a lock deleted, evicted or taken over is known within a fraction of
// its TTL rather than at the next extension.
func (l *Lock) Check(ctx context.Context) error {
	c := l.client
	if err := l.stillHeld(); err != nil {
		return err
	}
	r, _ := c.run(ctx, OpCheck, l.resource, nil, nil, func(cl *call) {
		cl.args, cl.kind, cl.want = []any{"get", l.resource}, replyGet, l.token
	})
	if r.OK >= c.quorum {
		return nil
	}
	if !r.ProvesGone() {
		re := &RoundError{Round: r, Attempts: 1, cause: ctx.Err(),
			Reason: fmt.Sprintf("check inconclusive (%d of %d masters hold it, need %d)", r.OK, len(r.Nodes), c.quorum)}
		return re
	}
	lost := c.lossOf(ctx, l, r, &RoundError{Round: r, Attempts: 1, Reason: "check found the lock gone"})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released { // released by its holder while the check was on its way
		return fmt.Errorf("check %q: released: %w", l.resource, ErrLost)
	}
	l.end(true)
	return lost
}

// stillHeld returns nil while the lock is neither released, lost nor lapsed; a lapsed lock is lost from then
// on, as expired.
func (l *Lock) stillHeld() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.released || l.lost:
		return fmt.Errorf("%q: %w", l.resource, ErrLost)
	case !l.validUntil.After(l.client.cfg.clock.Now()):
		l.end(true)
		return &LostError{Resource: l.resource, Cause: LossExpired, Detail: "its validity ran out"}
	}
	return nil
}

// lossOf says how the lock was lost, from a round that proved it (an extension or a check): taken over when
// some master holds another token, evicted when the masters that have no key evicted keys since the lock's
// eviction baseline was taken (see noteEvictions), deleted otherwise. It reads INFO stats from those masters
// only when there is a baseline.
func (c *Client) lossOf(ctx context.Context, l *Lock, r Round, roundErr *RoundError) *LostError {
	gone, other := make([]bool, len(r.Nodes)), 0
	nGone := 0
	for i, n := range r.Nodes {
		switch n.Outcome {
		case OutcomeHeldByOther:
			other++
		case OutcomeGone:
			gone[i] = true
			nGone++
		}
	}
	le := &LostError{Resource: l.resource, err: roundErr}
	if other > 0 {
		le.Cause, le.Detail = LossTakenOver, fmt.Sprintf("another holder on %d of %d masters", other, len(r.Nodes))
		return le
	}
	le.Cause, le.Detail = LossDeleted, fmt.Sprintf("no key on %d of %d masters", nGone, len(r.Nodes))
	base := l.evictionBase()
	if base == nil {
		return le
	}
	now := c.evictedKeys(ctx, l.resource, gone)
	evicted := 0
	for i := range gone {
		if gone[i] && base[i] >= 0 && now[i] > base[i] {
			evicted++
		}
	}
	if evicted > 0 {
		le.Cause = LossEvicted
		le.Detail = fmt.Sprintf("no key on %d of %d masters; %d of them evicted keys meanwhile: check maxmemory-policy",
			nGone, len(r.Nodes), evicted)
	}
	return le
}

// evictionBase returns the masters' evicted_keys counters taken for the lock, or nil.
func (l *Lock) evictionBase() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted
}

// noteEvictions takes the masters' evicted_keys counters as the baseline against which a later loss is told
// an eviction (see lossOf). A Keeper takes it as it starts.
func (l *Lock) noteEvictions(ctx context.Context) {
	base := l.client.evictedKeys(ctx, l.resource, nil)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evicted = base
}

// evictedKeys reads evicted_keys from INFO stats on the masters in only (nil: all), within the node timeout:
// -1 where it is not known (no answer, the ACL refuses INFO). key routes the command on a Redis Cluster.
func (c *Client) evictedKeys(ctx context.Context, key string, only []bool) []int64 {
	_, tail := c.run(ctx, opInfo, key, only, nil, func(cl *call) {
		cl.args, cl.kind, cl.routeKey = []any{"info", "stats"}, replyText, key
	})
	counts := make([]int64, len(c.nodes))
	for i := range counts {
		counts[i] = -1
		if !tail.answered[i] || tail.replies[i].err != nil {
			continue
		}
		if text, ok := tail.replies[i].val.(string); ok {
			counts[i] = infoCounter(text, "evicted_keys")
		}
	}
	return counts
}

// infoCounter reads one integer field of an INFO reply, or -1.
func infoCounter(info, field string) int64 {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// DefaultMaxCheckInterval bounds the time between a Keeper's checks of its lock (see WithCheckInterval).
const DefaultMaxCheckInterval = time.Second

// checkInterval is how often a keeper checks a lock of ttl between extensions: the option's, or a tenth of
// the TTL up to DefaultMaxCheckInterval; 0 when checks are off.
func (c config) checkInterval(ttl time.Duration) time.Duration {
	switch {
	case c.checkEvery < 0:
		return 0
	case c.checkEvery > 0:
		return c.checkEvery
	}
	return max(min(ttl/10, DefaultMaxCheckInterval), minCheckInterval)
}

// minCheckInterval keeps a lock with a tiny TTL from being read in a busy loop.
const minCheckInterval = 5 * time.Millisecond
