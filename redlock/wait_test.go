package redlock

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"
)

// TestAWaiterWakesOnTheRelease is issue 43's item 8: a waiter for a lock held with a long TTL backs off (it
// reads the TTL left, and sleeps seconds between rounds once a master confirmed its subscription to the
// lock's release channel) and still acquires as soon as the holder releases, woken by the notice the
// releasing client publishes, even when it closes right after the release. After eagerRounds rounds at the
// plain retry delay, and one backing off, its next sleep lasts at least watchCap/2 (2.5s) without the notice;
// it acquires well within that after the release.
func TestAWaiterWakesOnTheRelease(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	holder, waiterClient := cl.client(t), cl.client(t, WithRetries(math.MaxInt))
	ctx := ctxTimeout(t, 30*time.Second)
	held, err := holder.Acquire(ctx, "wakes", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var attempts atomic.Int32
	second := make(chan struct{})
	type result struct {
		l   *Lock
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	go func() {
		l, err := waiterClient.AcquireWithProgress(ctx, "wakes", time.Minute, func(n int, _ Round) {
			if attempts.Add(1) == eagerRounds+2 {
				close(second)
			}
		})
		got <- result{l, err, time.Now()}
	}()
	select {
	case <-second: // the waiter has heard its subscription confirmed, and sleeps the long way
	case r := <-got:
		t.Fatalf("the waiter ended before its rounds at the plain retry delay were over: %v", r.err)
	}
	released := time.Now()
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	holder.Close() // as run does when its command has exited: the notice still goes out
	r := <-got
	if r.err != nil {
		t.Fatalf("the waiter did not acquire: %v", r.err)
	}
	defer r.l.Release(context.Background())
	if gap := r.at.Sub(released); gap >= watchCap/2 {
		t.Errorf("the waiter acquired %s after the release: it was not woken by the notice", gap)
	}
	if n := attempts.Load(); n > eagerRounds+2 {
		t.Errorf("%d failed rounds in %s of waiting for a lock held for a minute; want the waiter to back off", n,
			released.Sub(held.LastRound().Start))
	}
}

// TestAnnouncedReleasesNeedNoPubSub: a master whose ACL refuses PUBLISH and SUBSCRIBE (the README's locker
// user) still serves waiters, which poll; the holder's release is not failed by its refused notice.
func TestAnnouncedReleasesNeedNoPubSub(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithRetries(math.MaxInt), WithRetryDelay(time.Millisecond, 5*time.Millisecond))
	ctx := ctxTimeout(t, 30*time.Second)
	for _, r := range cl.raw {
		if err := r.Do(ctx, "CONFIG", "SET", "acl-pubsub-default", "resetchannels").Err(); err != nil {
			t.Skipf("no acl-pubsub-default: %v", err)
		}
		if err := r.Do(ctx, "ACL", "SETUSER", "default", "resetchannels").Err(); err != nil {
			t.Fatal(err)
		}
	}
	held, err := c.Acquire(ctx, "quiet", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := c.Acquire(ctx, "quiet", time.Minute)
		if err == nil {
			err = l.Release(ctx)
		}
		got <- err
	}()
	if err := held.Release(ctx); err != nil {
		t.Errorf("release with PUBLISH refused: %v", err)
	}
	if err := <-got; err != nil && !errors.Is(err, ErrNotHeld) {
		t.Errorf("the waiter: %v", err)
	}
}
