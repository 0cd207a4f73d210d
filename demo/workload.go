package demo

import (
	"context"
	cryptorand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// The workload's timings at rate 1: holds of a few hundred milliseconds to a
// few seconds, pauses between them, and acquisition retries with random
// delays (the page's advice against split votes).
const (
	minHold        = 300 * time.Millisecond
	maxHold        = 3 * time.Second
	minThink       = 200 * time.Millisecond
	maxThink       = 1500 * time.Millisecond
	retryDelayMin  = 50 * time.Millisecond
	retryDelayMax  = 300 * time.Millisecond
	acquireRetries = 2
	// crashOdds: one hold in crashOdds ends with the client dying without
	// releasing; its lock lingers until its TTL runs out.
	crashOdds = 15
	// midAcquireCrashOdds: one acquisition in midAcquireCrashOdds ends with
	// the client dying after its SET reached one or two masters, which
	// leaves a partial lock until its TTL runs out.
	midAcquireCrashOdds = 15
	// minRestart and maxRestart bound how long a crashed client stays dead.
	minRestart = time.Second
	maxRestart = 2 * time.Second
	// writeGuard is the validity a careful client wants left before a write,
	// so that the write ends well within it.
	writeGuard = 100 * time.Millisecond
	// releaseTimeout bounds a release.
	releaseTimeout = 500 * time.Millisecond
	// gcPauseExtra is how much longer than its lock's TTL a frozen client
	// stays frozen.
	gcPauseExtra = 500 * time.Millisecond
)

// workloadTTLs are the lock TTLs the workload uses; none exceeds MaxTTL.
var workloadTTLs = []time.Duration{time.Second, 1500 * time.Millisecond, MaxTTL}

// simClient is one simulated service instance: its own connections, its own
// Redlock client, one lock at a time.
type simClient struct {
	d      *Demo
	name   string
	conns  []*redis.Client
	locker *redlock.Client
	gc     chan struct{} // a GC pause was requested
}

// newRedisClient returns a client for addr with short timeouts and no
// retries, so that faults show up at once, as in testbed. Its connections
// may take the node timeout to set up, and 200ms at least.
func newRedisClient(addr string, nodeTimeout time.Duration) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                  addr,
		ContextTimeoutEnabled: true,
		DialTimeout:           max(200*time.Millisecond, nodeTimeout),
		ReadTimeout:           500 * time.Millisecond,
		WriteTimeout:          500 * time.Millisecond,
		MaxRetries:            -1,
		DialerRetries:         1,
		PoolSize:              4,
	})
}

// newLocker returns a Redlock client over new connections to addrs, waiting
// nodeTimeout for each master in a round, with the connections to close
// after it.
func newLocker(addrs []string, nodeTimeout time.Duration, opts ...redlock.Option) (*redlock.Client,
	[]*redis.Client, error) {
	conns := make([]*redis.Client, len(addrs))
	for i, a := range addrs {
		conns[i] = newRedisClient(a, nodeTimeout)
	}
	opts = append([]redlock.Option{redlock.WithNodeTimeout(nodeTimeout)}, opts...)
	// The embedded masters' INFO stats is not redis-server's: it reads a server that a master closing at the
	// same moment has already let go of (a panic in miniredis), so the demo's keepers do not read it.
	l, err := redlock.New(conns, append([]redlock.Option{redlock.WithoutEvictionCounts()}, opts...)...)
	if err != nil {
		closeAll(conns)
		return nil, nil, fmt.Errorf("demo: redlock client: %w", err)
	}
	return l, conns, nil
}

// warmUpTimeout bounds the first connection to each master.
const warmUpTimeout = time.Second

// warmUp opens a connection to every master that answers, so that a client's
// first round is not spent dialling (a round allows each master only
// Options.NodeTimeout).
func warmUp(ctx context.Context, conns []*redis.Client) {
	ctx, cancel := context.WithTimeout(ctx, warmUpTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { _ = c.Ping(ctx).Err() }) // a master that does not answer is a fault to show, not to fix
	}
	wg.Wait()
}

// closeAll closes go-redis clients.
func closeAll(conns []*redis.Client) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// newSimClient returns the simulated client name, dialling addrs.
func newSimClient(d *Demo, name string, addrs []string) (*simClient, error) {
	locker, conns, err := newLocker(addrs, d.opts.NodeTimeout,
		redlock.WithRetries(acquireRetries),
		redlock.WithRetryDelay(retryDelayMin, retryDelayMax))
	if err != nil {
		return nil, err
	}
	return &simClient{d: d, name: name, conns: conns, locker: locker, gc: make(chan struct{}, 1)}, nil
}

// close releases the client's connections; run must have returned.
func (c *simClient) close() {
	c.locker.Close()
	closeAll(c.conns)
}

// between returns a random duration in [lo, hi] divided by rate.
func between(lo, hi time.Duration, rate float64) time.Duration {
	return time.Duration(float64(lo+rand.N(hi-lo+1)) / rate)
}

// run is the client's life: acquire a resource, work on it, release, pause;
// until ctx ends.
func (c *simClient) run(ctx context.Context) {
	warmUp(ctx, c.conns)
	for {
		rate, ok := c.d.waitRunning(ctx)
		if !ok {
			return
		}
		resource := c.d.resources[rand.N(len(c.d.resources))]
		ttl := workloadTTLs[rand.N(len(workloadTTLs))]
		if rand.N(midAcquireCrashOdds) == 0 {
			c.crashWhileAcquiring(ctx, resource, ttl)
			continue
		}
		l, err := c.locker.Acquire(ctx, resource, ttl)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			c.d.emit(Event{Kind: EventAcquireFailed, Client: c.name, Resource: resource, Master: -1,
				Text: fmt.Sprintf("%s gave up on %s for now: %s", c.name, resource, failureText(err))})
		default:
			if !c.hold(ctx, l, between(minHold, maxHold, rate)) {
				return
			}
		}
		if !sleep(ctx, between(minThink, maxThink, c.d.Rate())) {
			return
		}
	}
}

// hold works under lock l for about hold, writing now and then, and lets it
// go. It returns false when ctx ended.
func (c *simClient) hold(ctx context.Context, l *redlock.Lock, hold time.Duration) bool {
	res, tok := l.Resource(), l.Token()
	c.d.emit(Event{Kind: EventAcquired, Client: c.name, Resource: res, Token: tok, Master: -1,
		Text: fmt.Sprintf("%s acquired %s %s, valid for %v", c.name, res, nodesText(l.LastRound()),
			vocab.ShortDuration(l.Validity()))})
	c.d.believe(c.name, res, l)

	var keeper *redlock.Keeper
	var lost <-chan error
	if hold > l.TTL()/2 {
		keeper = l.AutoExtend()
		lost = keeper.Lost()
	}
	stopKeeper := func() {
		if keeper != nil {
			keeper.Stop()
		}
	}
	steps := 1 + rand.N(3)
	slice := hold / time.Duration(steps+1)
	start := time.Now()
	extensions := 0
	for step := 0; step <= steps; {
		t := time.NewTimer(time.Until(start.Add(slice * time.Duration(step+1))))
		select {
		case <-ctx.Done():
			t.Stop()
			stopKeeper()
			c.d.stopBelieving(tok)
			return false
		case err, ok := <-lost:
			t.Stop()
			if !ok { // the keeper ended without a loss
				lost = nil
				continue
			}
			c.d.stopBelieving(tok)
			c.d.emit(Event{Kind: EventLost, Client: c.name, Resource: res, Token: tok, Master: -1,
				Text: fmt.Sprintf("%s lost %s and stops working on it: %s", c.name, res, failureText(err))})
			c.release(l)
			return true
		case <-c.gc:
			t.Stop()
			stopKeeper()
			return c.gcPause(ctx, l)
		case <-t.C:
		}
		extensions = c.noteExtensions(l, extensions)
		if step == steps {
			break
		}
		if left := l.Validity(); left < writeGuard {
			stopKeeper()
			c.d.stopBelieving(tok)
			c.d.emit(Event{Kind: EventWriteDropped, Client: c.name, Resource: res, Token: tok, Master: -1,
				Text: fmt.Sprintf("%s's lock on %s ran out (validity %v): it stops without writing",
					c.name, res, vocab.ShortDuration(left))})
			c.release(l)
			return true
		}
		c.d.wrote(c.name, res, tok, fmt.Sprintf("%s writes %s (write %d of %d, validity left %v)",
			c.name, res, step+1, steps, vocab.ShortDuration(l.Validity())))
		step++
	}
	stopKeeper()
	return c.finish(ctx, l)
}

// noteExtensions reports the extensions of l beyond the seen ones, which the keeper made, and returns how
// many there are now.
func (c *simClient) noteExtensions(l *redlock.Lock, seen int) int {
	n := l.Extensions()
	if n <= seen {
		return seen
	}
	res, tok := l.Resource(), l.Token()
	c.d.extendBelief(tok, l.Validity())
	c.d.emit(Event{Kind: EventExtended, Client: c.name, Resource: res, Token: tok, Master: -1,
		Text: fmt.Sprintf("%s extended %s (extension %d) %s, valid for %v", c.name, res, n,
			nodesText(l.LastRound()), vocab.ShortDuration(l.Validity()))})
	return n
}

// finish ends the work under l: now and then the client crashes holding it (its keys linger until their TTL),
// otherwise it releases it. It returns false when ctx ended.
func (c *simClient) finish(ctx context.Context, l *redlock.Lock) bool {
	res, tok := l.Resource(), l.Token()
	c.d.stopBelieving(tok)
	if rand.N(crashOdds) == 0 {
		down := between(minRestart, maxRestart, c.d.Rate())
		c.d.emit(Event{Kind: EventCrashed, Client: c.name, Resource: res, Token: tok, Master: -1,
			Text: fmt.Sprintf("%s crashed holding %s; its keys linger until their TTL (%v) runs out; it restarts in %v",
				c.name, res, l.TTL(), vocab.ShortDuration(down))})
		return sleep(ctx, down)
	}
	c.release(l)
	return true
}

// crashWhileAcquiring plays a client that dies in the middle of an
// acquisition: its SET reaches one or two masters, and nothing releases
// those keys, so the resource shows a partial (or split) lock until they
// expire. The client comes back after a while.
func (c *simClient) crashWhileAcquiring(ctx context.Context, resource string, ttl time.Duration) {
	token := cryptorand.Text()
	var reached []string
	for _, i := range rand.Perm(len(c.conns))[:1+rand.N(2)] {
		sctx, cancel := context.WithTimeout(ctx, c.d.opts.NodeTimeout)
		err := c.conns[i].SetArgs(sctx, resource, token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
		cancel()
		if err == nil {
			reached = append(reached, strconv.Itoa(i+1))
		}
	}
	down := between(minRestart, maxRestart, c.d.Rate())
	what := "none of its SETs took"
	if len(reached) > 0 {
		what = fmt.Sprintf("its key was set on master(s) %s only and lingers there for %v", strings.Join(reached, ","), ttl)
	}
	c.d.emit(Event{Kind: EventCrashed, Client: c.name, Resource: resource, Token: token, Master: -1,
		Text: fmt.Sprintf("%s crashed while acquiring %s: %s; it restarts in %v",
			c.name, resource, what, vocab.ShortDuration(down))})
	sleep(ctx, down)
}

// gcPause freezes the client past its lock's TTL, then has it write as if
// nothing happened, and let go. It returns false when ctx ended.
func (c *simClient) gcPause(ctx context.Context, l *redlock.Lock) bool {
	res, tok := l.Resource(), l.Token()
	pause := l.TTL() + gcPauseExtra
	c.d.setBeliefPaused(tok, true)
	c.d.emit(Event{Kind: EventClientPaused, Client: c.name, Resource: res, Token: tok, Master: -1,
		Text: fmt.Sprintf("%s freezes for %v (stop-the-world GC) holding %s with %v of validity left",
			c.name, pause, res, vocab.ShortDuration(l.Validity()))})
	if !sleep(ctx, pause) {
		c.d.stopBelieving(tok)
		return false
	}
	c.d.setBeliefPaused(tok, false)
	c.d.emit(Event{Kind: EventClientResumed, Client: c.name, Resource: res, Token: tok, Master: -1,
		Text: fmt.Sprintf("%s resumes, unaware that %v passed", c.name, pause)})
	c.d.wrote(c.name, res, tok, fmt.Sprintf("%s writes %s believing it still holds it (its validity ran out %v ago)",
		c.name, res, vocab.ShortDuration(-l.Validity())))
	c.d.stopBelieving(tok)
	c.release(l)
	return true
}

// release releases l and logs the outcome.
func (c *simClient) release(l *redlock.Lock) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	err := l.Release(ctx)
	text := fmt.Sprintf("%s released %s %s", c.name, l.Resource(), nodesText(l.LastRound()))
	if errors.Is(err, redlock.ErrNotHeld) {
		text = fmt.Sprintf("%s released %s, but no master held its token any more", c.name, l.Resource())
	}
	c.d.emit(Event{Kind: EventReleased, Client: c.name, Resource: l.Resource(), Token: l.Token(), Master: -1,
		Text: text})
}

// failureText is the short reason of a Redlock error.
func failureText(err error) string {
	var re *redlock.RoundError
	if errors.As(err, &re) {
		why := re.Reason
		if re.Attempts > 1 {
			why = fmt.Sprintf("%s (%d attempts)", why, re.Attempts)
		}
		return why + " " + nodesText(re.Round)
	}
	return err.Error()
}

// nodesText says which masters did what in a round, in master numbers:
// "on masters 1,2,4 (3: held by another token; 5: error)". Masters a round
// was decided without are "no answer yet".
func nodesText(r redlock.Round) string {
	var ok []string
	var others []redlock.Outcome
	byOutcome := map[redlock.Outcome][]string{}
	for i, n := range r.Nodes {
		num := strconv.Itoa(i + 1)
		if n.Outcome == redlock.OutcomeOK {
			ok = append(ok, num)
			continue
		}
		if byOutcome[n.Outcome] == nil {
			others = append(others, n.Outcome)
		}
		byOutcome[n.Outcome] = append(byOutcome[n.Outcome], num)
	}
	text := "on no master"
	if len(ok) > 0 {
		text = "on masters " + strings.Join(ok, ",")
	}
	if len(others) == 0 {
		return text
	}
	parts := make([]string, len(others))
	for i, o := range others {
		what := o.String()
		if o == redlock.OutcomePending {
			what = "no answer yet"
		}
		parts[i] = strings.Join(byOutcome[o], ",") + ": " + what
	}
	return text + " (" + strings.Join(parts, "; ") + ")"
}
