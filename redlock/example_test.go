package redlock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// A lock on five independent masters, kept alive while a long job runs.
func Example() {
	var masters []*redis.Client
	for _, addr := range []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379", "10.0.0.4:6379", "10.0.0.5:6379"} {
		masters = append(masters, redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true}))
	}
	client, err := redlock.New(masters, redlock.WithNodeTimeout(50*time.Millisecond))
	if err != nil {
		panic(err)
	}
	defer client.Close()

	ctx := context.Background()
	lock, err := client.Acquire(ctx, "billing:nightly", 10*time.Second)
	if errors.Is(err, redlock.ErrNotAcquired) {
		fmt.Println("someone else holds it:", err)
		return
	}
	defer lock.Release(ctx)

	keeper := lock.AutoExtend()
	defer keeper.Stop()
	select {
	case <-time.After(time.Minute): // the job
	case err := <-keeper.Lost():
		fmt.Println("stop writing, the lock is gone:", err)
	}
}
