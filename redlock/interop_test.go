package redlock

import (
	"errors"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestFencedLockAndRedsyncExcludeEachOther takes one resource in turns with
// a fenced lock of ours and a go-redsync mutex on the same masters: a fenced
// lock is an ordinary Redlock key, so each excludes the other, and the
// fence counter is not disturbed by redsync's lock in between.
func TestFencedLockAndRedsyncExcludeEachOther(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	ours := cl.client(t, WithFencing(), WithRetries(0))
	var pools []redsyncredis.Pool
	for _, c := range redlocktest.Clients(t, cl.masters) {
		pools = append(pools, goredis.NewPool(c))
	}
	mutex := redsync.New(pools...).NewMutex("interop", redsync.WithTries(1), redsync.WithExpiry(5*time.Second))
	ctx := ctxTimeout(t, 20*time.Second)

	l, err := ours.Acquire(ctx, "interop", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := mutex.TryLockContext(ctx); err == nil {
		t.Fatal("redsync locked a resource our fenced lock holds")
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("release after redsync's failed attempt: %v (redsync must not have touched our key)", err)
	}

	if err := mutex.TryLockContext(ctx); err != nil {
		t.Fatalf("redsync on a free resource: %v", err)
	}
	if _, err := ours.Acquire(ctx, "interop", 5*time.Second); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("our fenced lock on a resource redsync holds: %v, want ErrNotAcquired", err)
	}
	if ok, err := mutex.UnlockContext(ctx); !ok || err != nil {
		t.Fatalf("redsync unlock after our failed attempt: %v, %v (we must not have touched its key)", ok, err)
	}

	next, err := ours.Acquire(ctx, "interop", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Release(ctx)
	if next.Fence() <= l.Fence() {
		t.Errorf("token %d after %d: want greater", next.Fence(), l.Fence())
	}
}
