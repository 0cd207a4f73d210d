package redlock

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestCallsAfterCloseAreAnswered(t *testing.T) {
	t.Parallel()
	conn := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer conn.Close()
	c, err := New([]*redis.Client{conn})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	// A failed acquisition's late releases run in the background and may come after Close (abandon).
	done := make(chan struct{})
	go func() {
		c.releaseOn(0, "r", "t", nil)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a release sent after Close was never answered: its goroutine would leak")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := c.TryAcquire(ctx, "r", time.Second); err == nil || ctx.Err() != nil {
		t.Fatalf("TryAcquire on a closed client: err %v, context %v; want an error at once", err, ctx.Err())
	}
}
