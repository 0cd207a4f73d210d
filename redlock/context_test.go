package redlock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

func TestReleaseWithEndedContextSendsNothingAndSaysSo(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "ctx-release", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if n := cl.settle(t, "ctx-release", l.Token(), 3); n != 3 {
		t.Fatalf("token on %d of 3 masters after acquire", n)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err = l.Release(cancelled)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Release with a cancelled context: %v; want context.Canceled and ErrIncomplete", err)
	}
	if l.Held() {
		t.Fatal("lock still held after Release was called")
	}
	if n := count(cl.values(t, "ctx-release"), l.Token()); n != 3 {
		t.Fatalf("a Release that reported it did nothing deleted the key on %d of 3 masters", 3-n)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release again with a live context: %v", err)
	}
	if n := count(cl.values(t, "ctx-release"), ""); n != 3 {
		t.Fatalf("key left on %d of 3 masters", 3-n)
	}
}

// pausingClock pauses the masters when the first round is decided, and
// reports that the whole TTL went by, so the acquisition fails after a
// quorum accepted it and its cleanup meets masters that do not answer.
type pausingClock struct {
	t       *testing.T
	masters []redlocktest.Master
	ttl     time.Duration
	mu      sync.Mutex
	reads   int
}

func (c *pausingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	now := time.Unix(1000, 0)
	if c.reads == 2 {
		for _, m := range c.masters {
			if err := m.Pause(); err != nil {
				c.t.Error(err)
			}
		}
		return now.Add(c.ttl)
	}
	return now
}

// tryAcquireReturnsByItsDeadline: a failed acquisition's cleanup must not
// hold the caller past its context's deadline; masters left to release are
// released in the background.
func tryAcquireReturnsByItsDeadline(t *testing.T) {
	cl := newProxiedCluster(t, 3, 0) // for its clients' read timeout (2s), longer than the node timeout
	const nodeTimeout, ttl = 1800 * time.Millisecond, time.Minute
	clk := &pausingClock{t: t, masters: cl.masters, ttl: ttl}
	c := cl.client(t, WithNodeTimeout(nodeTimeout), WithClock(clk))
	defer func() {
		for _, m := range cl.masters {
			m.Resume()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.TryAcquire(ctx, "deadline", ttl)
	took := time.Since(start)
	var re *RoundError
	if !errors.As(err, &re) || re.Round.OK < c.Quorum() {
		t.Fatalf("want a round that a quorum accepted and whose validity ran out, got %v", err)
	}
	if took > nodeTimeout/2 {
		t.Fatalf("TryAcquire with a 300ms deadline returned after %s", took)
	}
	for _, m := range cl.masters {
		if err := m.Resume(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(8 * nodeTimeout)
	for count(cl.values(t, "deadline"), "") != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the acquisition's keys were not released in the background: %q", cl.values(t, "deadline"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExtendWithEndedContextSendsNothing(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "ctx-extend", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err = l.Extend(cancelled, time.Hour)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrLost) {
		t.Fatalf("Extend with a cancelled context: %v; want context.Canceled and not ErrLost", err)
	}
	if !l.Held() || l.Extensions() != 0 {
		t.Fatalf("after a cancelled Extend: held %v, extensions %d; want held, 0", l.Held(), l.Extensions())
	}
	for i, r := range cl.raw {
		if pttl := r.PTTL(ctx, "ctx-extend").Val(); pttl > 2*time.Second {
			t.Fatalf("master %d: a cancelled Extend renewed the TTL to %s", i+1, pttl)
		}
	}
}

// TestInterruptedExtensionKeepsTheLock: cancelling an extension whose
// commands are on their way (Keeper.Stop does) says nothing about the lock,
// which stays held: the masters may well renew it.
func TestInterruptedExtensionKeepsTheLock(t *testing.T) {
	t.Parallel()
	const oneWay = 200 * time.Millisecond
	cl := newProxiedCluster(t, 3, 0)
	c := cl.client(t, WithNodeTimeout(5*time.Second))
	ctx := ctxTimeout(t, 30*time.Second)
	l, err := c.TryAcquire(ctx, "interrupted", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// The latency comes once the connections are set up: on a loaded machine, setting them up over a slow
	// link could take longer than their budget, which this test is not about.
	for _, p := range cl.proxies {
		p.SetLatency(oneWay)
	}
	before := l.Validity()
	ext, cancel := context.WithCancel(ctx)
	time.AfterFunc(oneWay, cancel)
	err = l.Extend(ext, time.Minute)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrLost) {
		t.Fatalf("interrupted Extend: %v; want context.Canceled and not ErrLost", err)
	}
	if !l.Held() || l.Validity() > before {
		t.Fatalf("after an interrupted Extend: held %v, validity %s (before %s); want held, no longer",
			l.Held(), l.Validity(), before)
	}
	if n := cl.settle(t, "interrupted", l.Token(), 3); n != 3 {
		t.Fatalf("token on %d of 3 masters", n)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("release after an interrupted Extend: %v", err)
	}
}
