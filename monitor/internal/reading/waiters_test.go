package reading

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestRedissonChannelNamesAsRedissonDoes: the key in braces, unless it has a hash tag of its own.
func TestRedissonChannelNamesAsRedissonDoes(t *testing.T) {
	for key, want := range map[string]string{
		"orders":        "redisson_lock__channel:{orders}",
		"{user:1}:lock": "redisson_lock__channel:{user:1}:lock",
	} {
		if got := redissonChannel(key); got != want {
			t.Errorf("redissonChannel(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestWaitersOfManyRedissonLocksAreAllCounted: more hash locks than one PUBSUB NUMSUB asks about are counted in
// several commands of one pipeline, every one of them, on a real server.
func TestWaitersOfManyRedissonLocksAreAllCounted(t *testing.T) {
	t.Parallel()
	srv, client, admin := realMaster(t)
	p := masterOf(t, client, srv.Addr())
	ctx := context.Background()
	n := waiterChunk + 100
	channels := make([]string, n)
	r := Reading{Keys: make([]KeyReading, n)}
	for k := range n {
		key := fmt.Sprintf("bulk:%04d", k)
		channels[k] = redissonChannel(key)
		r.Keys[k] = KeyReading{Key: key, Fields: []string{"holder:1", "1"}, PTTL: time.Minute}
	}
	sub := admin.Subscribe(ctx, channels...)
	t.Cleanup(func() { _ = sub.Close() })
	for range n {
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	p.readWaiters(ctx, &r, 0)
	counted := 0
	for _, k := range r.Keys {
		if r.Waiters[k.Key] == 1 {
			counted++
		}
	}
	if counted != n || len(r.Waiters) != n {
		t.Errorf("%d of %d locks counted with their one waiter (%d counted in all)", counted, n, len(r.Waiters))
	}
}
