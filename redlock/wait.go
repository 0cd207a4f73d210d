package redlock

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
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
	c       *Client
	watch   *watcher // nil until a round found the lock held
	held    int      // consecutive rounds that found the lock held on a quorum
	clients int      // the clients subscribed to the lock's release channel when last read (PUBSUB NUMSUB); 0 unknown
	woken   bool     // the last sleep was ended by a release's notice
}

// eagerRounds is how many rounds finding the lock held a waiter tries at the plain retry delay before it backs
// off: a lock held for a short critical section is taken as quickly as before.
const eagerRounds = 3

// end stops the waiter's watch, if any.
func (w *waiter) end() {
	if w.watch != nil {
		w.watch.stop()
	}
}

// sleep waits before the next round after r failed: the random retry delay, and, once more than eagerRounds
// rounds in a row found the lock held on a quorum of masters, by one token, a share of the time until it would
// expire there (half while polling, all of it while a master confirmed the watch), capped and jittered. Keys
// of several tokens, none on a quorum (a split vote between contenders, who release at once), are not a
// holder: the next round comes after the retry delay alone. An announced release ends the wait early, after a
// random delay spread over the clients that wait for the lock (see wakeDelay); a notice that another waiter
// took the lock meanwhile starts the wait again. It returns the context's error when ctx ends first.
func (w *waiter) sleep(ctx context.Context, resource string, r Round) error {
	c := w.c
	d := c.retryDelay()
	w.held++
	w.woken = false
	if !heldOnQuorum(r) {
		w.held = 0
	}
	if !c.cfg.pollOnly && w.held > 0 && w.watch == nil {
		w.watch = c.watch(resource)
	}
	if !c.cfg.pollOnly && w.held > eagerRounds {
		h := c.holding(resource)
		if h.clients > 0 {
			w.clients = h.clients
		}
		if !h.held {
			w.held = 0
		}
		d += w.backoff(h)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		var wake, taken <-chan struct{}
		if w.watch != nil {
			wake, taken = w.watch.wake, w.watch.taken
		}
		select {
		case <-t.C:
			return nil
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
		select { // a notice that the lock was taken before this one's release is old news
		case <-taken:
		default:
		}
		t.Reset(w.wakeDelay())
		select {
		case <-t.C:
			w.woken = true
			return nil
		case <-taken:
			t.Reset(c.retryDelay() + w.backoff(holding{held: true, left: MaxTTL}))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// backoff is how long, beyond the retry delay, a waiter sleeps for a lock in state h: for a holder, a share of
// the time it holds the lock for (half while polling, all of it while a master confirmed the watch), capped
// and jittered; for a split vote or a free lock, nothing.
func (w *waiter) backoff(h holding) time.Duration {
	c := w.c
	if !h.held {
		return 0
	}
	share, most := h.left/2, min(pollCap, pollSpan*c.cfg.retryDelayMax)
	if w.watch != nil && w.watch.heard() {
		share, most = share*2, min(watchCap, watchSpan*c.cfg.retryDelayMax)
	}
	wait := min(share, most)
	if wait <= 0 {
		return 0
	}
	return wait/2 + rand.N(wait/2+1)
}

// wakeDelay is how long a waiter woken by a notice waits before its round: a random time in a window of a
// sixteenth of the least retry delay (3ms by default) for each client that waits for the lock (each hears
// the notice; within a client only one waiter wakes), at most watchCap. The first of N clients then tries
// that long after the notice on average, whatever N, and the others mostly after its round is over, when its
// notice that it took the lock sends them back to sleep, rather than all at once in a split vote that none of
// them wins. (A window of a quarter per client made every handover 10-20ms slower than polling's.)
func (w *waiter) wakeDelay() time.Duration {
	window := w.c.cfg.retryDelayMin / 16 * time.Duration(max(w.clients, 1))
	return rand.N(min(window, watchCap) + 1)
}

// heldOnQuorum reports whether r failed because so many masters hold the key that no quorum is left without
// them: the lock is held, or contenders split the vote, rather than the masters failing.
func heldOnQuorum(r Round) bool {
	held := 0
	for _, n := range r.Nodes {
		if n.Outcome == OutcomeHeldByOther {
			held++
		}
	}
	return held > len(r.Nodes)-r.Quorum
}

// holding is what a waiter reads of a lock between its rounds.
type holding struct {
	held    bool          // one holder is on a quorum of the masters
	left    time.Duration // held: how long until its key would be gone from a quorum of them
	clients int           // the most clients subscribed to the lock's release channel on a master that answered
}

// holding reads resource's key and remaining TTL on every master (GET and PTTL), and how many clients wait for
// its release there (PUBSUB NUMSUB), within a node timeout. It stops reading at the first quorum of masters
// that hold one token (or, for a key of another type, another client's lock of its own shape), or once no
// token can have a quorum: a master without the key, or whose answer is an error or does not come in time,
// counts as free. A key without expiry counts as held for MaxTTL.
func (c *Client) holding(resource string) holding {
	n := len(c.nodes)
	out := make(chan reply, 3*n) // room for every answer: the ones not waited for do not block their senders
	deadline := time.Now().Add(c.cfg.nodeTimeout)
	for i, nd := range c.nodes {
		nd.send(&call{args: []any{"get", resource}, kind: replyText, deadline: deadline, index: i, out: out})
		nd.send(&call{args: []any{"pttl", resource}, kind: replyText, deadline: deadline, index: n + i, out: out})
		nd.send(&call{args: []any{"pubsub", "numsub", ReleaseChannel(resource)}, kind: replyText,
			routeKey: resource, deadline: deadline, index: 2*n + i, out: out})
	}
	type master struct {
		token       string
		left        time.Duration
		got, failed int // of GET and PTTL: answered, and answered with no key or an error
	}
	ms := make([]master, n)
	var h holding
	answered := 0 // masters whose GET and PTTL are both in
	for range 3 * n {
		rep := <-out
		i, what := rep.index%n, rep.index/n
		switch what {
		case 2:
			if v, ok := rep.val.([]any); ok && rep.err == nil && len(v) == 2 {
				if k, ok := v[1].(int64); ok {
					h.clients = max(h.clients, int(k))
				}
			}
			continue
		case 0:
			switch v, ok := rep.val.(string); {
			case ok && rep.err == nil:
				ms[i].token = "=" + v
			case rep.err != nil && redis.HasErrorPrefix(rep.err, "WRONGTYPE"):
				ms[i].token = "wrongtype"
			default:
				ms[i].failed++
			}
		case 1:
			switch v, ok := rep.val.(int64); {
			case !ok || rep.err != nil || v == -2:
				ms[i].failed++
			case v == -1:
				ms[i].left = MaxTTL
			default:
				ms[i].left = time.Duration(v) * time.Millisecond
			}
		}
		if ms[i].got++; ms[i].got < 2 {
			continue
		}
		answered++
		counts := map[string][]time.Duration{}
		best := 0
		for _, m := range ms {
			if m.got == 2 && m.failed == 0 {
				counts[m.token] = append(counts[m.token], m.left)
				best = max(best, len(counts[m.token]))
			}
		}
		for _, lefts := range counts {
			if len(lefts) >= c.quorum {
				slices.Sort(lefts)
				h.held, h.left = true, lefts[len(lefts)-c.quorum]
			}
		}
		if h.held || answered == n || best+n-answered < c.quorum {
			break
		}
	}
	return h
}
