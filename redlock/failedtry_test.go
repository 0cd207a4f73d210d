package redlock

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestAFailedTryLeavesNoKeyAfterClose is issue 33's item 2: with one of two masters stopped, a failed
// acquisition whose SET on the reachable master was answered after the round was decided must not leave its
// key there for the TTL once the client is closed, as `run` closes it on exit.
func TestAFailedTryLeavesNoKeyAfterClose(t *testing.T) {
	t.Parallel()
	servers := redlocktest.RealServers(t, 2, redlocktest.ServerOptions{})
	raw := servers[0].NewClient()
	defer raw.Close()
	if err := servers[1].Pause(); err != nil {
		t.Fatal(err)
	}
	defer servers[1].Resume()
	const tries = 5
	for i := range tries {
		masters := []*redis.Client{servers[0].NewClient(), servers[1].NewClient()}
		c, err := New(masters, WithNodeTimeout(50*time.Millisecond), WithRetries(1), WithRetryDelay(time.Millisecond, 5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		key := "failed-try-" + string(rune('a'+i))
		if _, err := c.Acquire(context.Background(), key, 30*time.Second); err == nil {
			t.Fatal("acquired with one of two masters stopped")
		}
		c.Close()
		for _, m := range masters {
			m.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		n, err := raw.Exists(ctx, key).Result()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			pttl, _ := raw.PTTL(context.Background(), key).Result()
			t.Errorf("try %d: after the failed acquisition and Close, the reachable master keeps %q for %s", i+1, key, pttl)
		}
	}
}
