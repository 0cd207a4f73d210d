package redlock

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"
)

// TestKeeperDoesNotReportAReleasedLockAsLost: a Release that slips in
// between the keeper's check and its Extend is the caller's doing, not a
// loss.
func TestKeeperDoesNotReportAReleasedLockAsLost(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	clk := &tickingClock{now: time.Unix(1000, 0)} // moves only when told
	c := cl.client(t, WithClock(clk))
	ctx := ctxTimeout(t, 10*time.Second)
	const ttl = 3 * time.Second
	l, err := c.TryAcquire(ctx, "raced", ttl)
	if err != nil {
		t.Fatal(err)
	}
	l.op.Lock()              // the keeper's Extend waits here, as it would for a Release in progress
	clk.advance(ttl * 3 / 4) // the validity left is below a third of the TTL: the keeper extends at once
	k := l.AutoExtend()
	time.Sleep(200 * time.Millisecond)
	l.mu.Lock()
	l.end(false) // what Release does first
	l.mu.Unlock()
	l.op.Unlock()
	select {
	case err, ok := <-k.Lost():
		if ok {
			t.Fatalf("keeper reported the loss of a lock the caller released: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("keeper did not end after release")
	}
}

// TestKeeperEndsWithReleaseAndClose: a keeper must not sleep on until its
// next extension once its lock is released or its client closed.
func TestKeeperEndsWithReleaseAndClose(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	const ttl = time.Minute // the keeper's next extension is 40s away
	for _, end := range []string{"release", "close"} {
		t.Run(end, func(t *testing.T) {
			c := cl.client(t)
			ctx := ctxTimeout(t, 10*time.Second)
			l, err := c.TryAcquire(ctx, "kept-"+end, ttl)
			if err != nil {
				t.Fatal(err)
			}
			k := l.AutoExtend()
			time.Sleep(100 * time.Millisecond) // the keeper is asleep until its next extension
			if end == "release" {
				if err := l.Release(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				c.Close()
			}
			select {
			case <-k.Done():
			case <-time.After(5 * time.Second):
				t.Fatalf("keeper still running 5s after %s", end)
			}
		})
	}
}

// TestKeeperExtendsNoFasterThanItsFloor is issue 43's item 4: a drift factor from 2/3 of the TTL up leaves an
// extended lock less validity than the third of its TTL at which the keeper extends, which made the next
// extension due at once, thousands a second. Whatever the factor, the keeper waits at least its floor (a tenth
// of the TTL, at least a node timeout) after an extension, or waits out the validity and reports the loss: the
// extensions over a run, successful or not, are bounded by the time it lasted. The settings are the largest
// factor run accepts (MaxDriftFactor), one just under 2/3 and one the library accepts far beyond it.
func TestKeeperExtendsNoFasterThanItsFloor(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	const ttl, nodeTimeout = 3 * time.Second, 200 * time.Millisecond
	floor := max(ttl/10, nodeTimeout)
	for _, f := range []float64{MaxDriftFactor(ttl, nodeTimeout), 0.66, 0.9} {
		t.Run(fmt.Sprint(f), func(t *testing.T) {
			var extensions atomic.Int64
			c := cl.client(t, WithNodeTimeout(nodeTimeout), WithDriftFactor(f), WithMaxExtensions(math.MaxInt),
				WithCheckInterval(-1), WithObserver(func(a Action) {
					if a.Op == OpExtend {
						extensions.Add(1)
					}
				}))
			ctx := ctxTimeout(t, 10*time.Second)
			l, err := c.Acquire(ctx, "floor", ttl)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			k := l.AutoExtend()
			select {
			case <-k.Done(): // lost: the factor leaves too little validity to extend in time
			case <-time.After(2 * time.Second):
			}
			k.Stop()
			elapsed := time.Since(start)
			_ = l.Release(ctx)
			// Each extension but the first follows a successful one by the floor, or a failed one by at least a
			// node timeout (the retry delay), which is no longer than the floor.
			if n, most := extensions.Load(), int64(elapsed/nodeTimeout)+1; n > most {
				t.Errorf("drift factor %v: %d extensions in %s; at most %d (one per %s, the floor %s)", f, n, elapsed, most,
					nodeTimeout, floor)
			}
		})
	}
}

// TestMaxDriftFactorLeavesTheFloor: with the largest drift factor, an extension that took a node timeout
// leaves the keeper its floor before the next one is due, and no more; a TTL too short for the node timeout
// has none.
func TestMaxDriftFactorLeavesTheFloor(t *testing.T) {
	for _, tc := range []struct{ ttl, nodeTimeout time.Duration }{
		{30 * time.Second, 50 * time.Millisecond}, {time.Second, 200 * time.Millisecond}, {100 * time.Millisecond, 10 * time.Millisecond},
	} {
		f := MaxDriftFactor(tc.ttl, tc.nodeTimeout)
		validity := tc.ttl - tc.nodeTimeout - DriftAllowance(tc.ttl, f)
		gap := validity - tc.ttl/3
		if floor := max(tc.ttl/10, tc.nodeTimeout); gap < floor-time.Microsecond || gap > floor+time.Microsecond {
			t.Errorf("TTL %s, node timeout %s: factor %v leaves %s before the next extension; want the floor %s",
				tc.ttl, tc.nodeTimeout, f, gap, floor)
		}
	}
	if f := MaxDriftFactor(60*time.Millisecond, 50*time.Millisecond); f >= 0 {
		t.Errorf("TTL 60ms, node timeout 50ms: largest factor %v; want none (negative)", f)
	}
}
