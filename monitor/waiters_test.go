package monitor

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestRedissonWaitersAreTheSubscribersOfItsChannel: clients waiting for a Redisson lock subscribe to its channel
// on the master they wait on; the lock shows the most any master counts, and a string lock shows none known.
func TestRedissonWaitersAreTheSubscribersOfItsChannel(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	ctx := context.Background()
	for i := range 3 {
		if err := c.admin[i].HSet(ctx, "billing", fmt.Sprintf("%s:42", uuid4()), 1).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.admin[i].PExpire(ctx, "billing", formatTTL).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.set(t, "plain", "token-0123456789abcdef", formatTTL, 0, 1, 2)
	// Three waiters on master 0, one on master 1, and one on another lock's channel.
	subscribe := func(master int, channel string) {
		sub := c.admin[master].Subscribe(ctx, channel)
		t.Cleanup(func() { _ = sub.Close() })
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		subscribe(0, "redisson_lock__channel:{billing}")
	}
	subscribe(1, "redisson_lock__channel:{billing}")
	subscribe(1, "redisson_lock__channel:{other}")
	var s Snapshot
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		s = c.mon.Poll(ctx)
		if l := lockOf(t, s, "billing"); l.WaitersKnown && l.Waiters == 3 {
			break
		}
	}
	if l := lockOf(t, s, "billing"); !l.WaitersKnown || l.Waiters != 3 || l.Family != "Redisson" {
		t.Errorf("billing: waiters %d (known %v), family %q; want 3 (master 0's subscribers), Redisson", l.Waiters, l.WaitersKnown, l.Family)
	}
	if l := lockOf(t, s, "plain"); l.WaitersKnown {
		t.Errorf("a string lock has waiters known (%d): its clients do not show theirs", l.Waiters)
	}
}
