package redlock

import (
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
