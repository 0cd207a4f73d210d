package redlock

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// callsDoNotQueueBehindAPipelineInFlight starts a second acquisition
// while the first one's commands are on the wire to every master: it must be
// sent at once on another connection, not wait for the first round trip, and
// each master's latency must count any wait before sending.
func callsDoNotQueueBehindAPipelineInFlight(t *testing.T) {
	const oneWay = 150 * time.Millisecond
	cl := newProxiedCluster(t, 3, oneWay)
	c := cl.client(t, WithNodeTimeout(5*time.Second))
	ctx := ctxTimeout(t, 30*time.Second)
	// Two connections per master are set up before the rounds measured.
	for range 2 {
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				l, err := c.TryAcquire(ctx, fmt.Sprintf("warm:%d", i), time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				_ = l.Release(ctx)
			})
		}
		wg.Wait()
	}

	type result struct {
		r   Round
		err error
	}
	first := make(chan result, 1)
	go func() {
		l, err := c.TryAcquire(ctx, "first", time.Minute)
		if err != nil {
			first <- result{err: err}
			return
		}
		first <- result{r: l.LastRound()}
	}()
	time.Sleep(oneWay) // the first round's commands are now on the wire
	l, err := c.TryAcquire(ctx, "second", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	a := <-first
	if a.err != nil {
		t.Fatal(a.err)
	}
	b := l.LastRound()
	// Sent at once, the second round takes one round trip like the first; queued behind it, it would take
	// the rest of the first's round trip on top.
	if b.Elapsed > a.r.Elapsed+oneWay/2 {
		t.Fatalf("second round took %s, first %s (one-way latency %s): it waited for the first's pipeline",
			b.Elapsed, a.r.Elapsed, oneWay)
	}
	// The round is decided by its quorum-th fastest master, so that master's latency is the round's time.
	var lat []time.Duration
	for _, n := range b.Nodes {
		if n.Outcome == OutcomeOK {
			lat = append(lat, n.Latency)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) < c.Quorum() || lat[c.Quorum()-1] < b.Elapsed-oneWay/2 {
		t.Fatalf("per-master latencies %v leave out time the round spent (%s)", lat, b.Elapsed)
	}
}

// connectionSetupHasItsOwnBudget: a new connection's setup (dial, HELLO,
// the probes) must not come out of the node timeout. A new client's
// handshake is held up, by paused proxies, for twice the node timeout: its
// first acquisition succeeds all the same once the proxies resume. A stall
// then breaks the connections in use; once they are set up again (the
// event, not a duration), acquisitions succeed. The node timeout is long
// beside a loopback round trip, so a loaded machine is no reason to fail.
func connectionSetupHasItsOwnBudget(t *testing.T) {
	const nodeTimeout = time.Second
	cl := newProxiedCluster(t, 3, 0)
	ctx := ctxTimeout(t, 2*time.Minute)
	pause := func(on bool) {
		for _, p := range cl.proxies {
			p.SetPaused(on)
		}
	}
	var c *Client
	for i := range 3 {
		masters := cl.clients(t)
		for _, m := range masters { // a setup budget of 10s, and a handshake's reads their own 5s
			m.Options().DialTimeout, m.Options().ReadTimeout, m.Options().WriteTimeout = 5*time.Second,
				5*time.Second, 5*time.Second
		}
		pause(true)
		var err error
		if c, err = New(masters, WithNodeTimeout(nodeTimeout)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		acquired := make(chan error, 1)
		go func() {
			l, err := c.TryAcquire(ctx, fmt.Sprintf("first:%d", i), time.Minute)
			if err == nil {
				_ = l.Release(ctx)
			}
			acquired <- err
		}()
		time.Sleep(2 * nodeTimeout) // the handshake held up longer than a node timeout, at least
		pause(false)
		if err := <-acquired; err != nil {
			t.Fatalf("new client %d, its setup held up for twice the node timeout: first acquisition failed: %v",
				i+1, err)
		}
	}

	pause(true)
	if _, err := c.TryAcquire(ctx, "stalled", time.Minute); err == nil {
		t.Fatal("acquired through paused proxies")
	}
	time.Sleep(nodeTimeout) // the connections in use time out, at least
	pause(false)
	waitSettled(t, ctx, c) // the connections broken by the stall are set up again
	for i := range 3 {
		l, err := c.TryAcquire(ctx, fmt.Sprintf("after:%d", i), time.Minute)
		if err != nil {
			t.Fatalf("acquisition %d after the stall: %v", i+1, err)
		}
		_ = l.Release(ctx)
	}
}

// waitSettled waits until every sender of every master of c has a connection and waits for calls: none is
// setting up one, nor has a pipeline in flight.
func waitSettled(t *testing.T, ctx context.Context, c *Client) {
	t.Helper()
	settled := func() bool {
		for _, m := range c.nodes {
			n := m.(*node)
			n.grow.Lock()
			senders := int32(n.senders)
			n.grow.Unlock()
			if n.ready.Load() != senders || n.idle.Load() != senders {
				return false
			}
		}
		return true
	}
	for !settled() {
		select {
		case <-ctx.Done():
			t.Fatal("the masters' connections were not set up again")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestPausedMasterCannotWedgeAClientWithoutReadDeadlines: go-redis clients
// may disable read deadlines (ReadTimeout -2). A paused master must still
// cost each call no more than its node timeout: the other masters' calls go
// out in time, calls to it are answered at their deadline, and Close does
// not wait for it to resume.
func TestPausedMasterCannotWedgeAClientWithoutReadDeadlines(t *testing.T) {
	// Not parallel: it bounds how long calls take against node timeouts, which parallel tests would eat into.
	cl := newCluster(t, 3)
	var masters []*redis.Client
	for _, m := range cl.masters {
		r := redis.NewClient(&redis.Options{Addr: m.Addr(), ContextTimeoutEnabled: true, ReadTimeout: -2,
			WriteTimeout: -2, MaxRetries: -1})
		t.Cleanup(func() { r.Close() })
		masters = append(masters, r)
	}
	const nodeTimeout = time.Second // generous for the live masters on a loaded machine
	c, err := New(masters, WithNodeTimeout(nodeTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// 3,200 rounds take 5s on an idle machine and over a minute beside the other packages' tests under -race:
	// the bound is a wedged client's, not a speed.
	ctx := ctxTimeout(t, 5*time.Minute)
	if err := cl.masters[0].Pause(); err != nil {
		t.Fatal(err)
	}
	defer cl.masters[0].Resume()

	// More calls than a master's queue holds, so a wedged master would fill it.
	const workers, rounds = 8, 400
	var failed atomic.Int32
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				l, err := c.TryAcquire(ctx, fmt.Sprintf("wedge:%d:%d", w, i), time.Minute)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				_ = l.Release(ctx)
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d acquisitions failed with one of three masters paused; first: %v",
			n, workers*rounds, firstErr.Load())
	}

	start := time.Now()
	r, _ := c.ReleaseToken(ctx, "wedge:0:0", "nobody")
	if took := time.Since(start); took > nodeTimeout+time.Second {
		t.Fatalf("a release round waited %s for the paused master (node timeout %s)", took, nodeTimeout)
	}
	if o := r.Nodes[0].Outcome; o != OutcomeTimeout && o != OutcomeError {
		t.Fatalf("paused master's outcome %s, want timeout", o)
	}

	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the paused master")
	}
}

// TestUnknownSetsAreReleasedOnceTheMastersAnswer: masters that were paused
// during a failed acquisition may execute its SET when they resume, after the
// release sent with it timed out. The client keeps releasing them in the
// background, so the key does not outlive the pause by a TTL.
func TestUnknownSetsAreReleasedOnceTheMastersAnswer(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	c := cl.client(t, WithNodeTimeout(100*time.Millisecond))
	ctx := ctxTimeout(t, 30*time.Second)
	const ttl = 20 * time.Second
	for _, m := range cl.masters[:3] {
		if err := m.Pause(); err != nil {
			t.Fatal(err)
		}
		defer m.Resume()
	}
	if _, err := c.TryAcquire(ctx, "paused-set", ttl); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("acquired with 3 of 5 masters paused: %v", err)
	}
	time.Sleep(550 * time.Millisecond)
	for _, m := range cl.masters[:3] {
		if err := m.Resume(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(ttl / 4)
	for {
		vals := cl.values(t, "paused-set")
		if count(vals, "") == 5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s after the masters resumed, the failed acquisition's key is still on %d of 5",
				ttl/4, 5-count(vals, ""))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
