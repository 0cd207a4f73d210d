package redlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestReleaseRedissonDeletesTheHolderSeenAndWakesWaiters(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3)
	ctx := context.Background()
	const name, holder = "jobs:nightly", "6f1c2a40-93e4-4b0f-87c9-389b853be697:1"
	for _, m := range c.raw {
		// What Redisson's tryLockInnerAsync leaves: the holder field with its count, and a TTL.
		if err := m.HSet(ctx, name, holder, 1).Err(); err != nil {
			t.Fatal(err)
		}
		if err := m.PExpire(ctx, name, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Redisson's waiters subscribe to the lock's channel; forceUnlock publishes 0 there.
	sub := c.raw[0].Subscribe(ctx, "redisson_lock__channel:{"+name+"}")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
		t.Fatal(err)
	}
	rc := c.client(t)
	r, err := rc.ReleaseRedisson(ctx, name, []string{holder}, "")
	if err != nil || r.OK != 3 {
		t.Fatalf("release: %d OK, err %v; want all 3", r.OK, err)
	}
	for i, m := range c.raw {
		if n := m.Exists(ctx, name).Val(); n != 0 {
			t.Errorf("master %d still has the lock", i)
		}
	}
	msg, err := sub.ReceiveMessage(ctxTimeout(t, 5*time.Second))
	if err != nil || msg.Payload != "0" {
		t.Errorf("waiters heard %v (err %v), want the unlock message 0", msg, err)
	}
}

func TestReleaseRedissonLeavesAHashThatChangedHolder(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3)
	ctx := context.Background()
	const name, seen, now = "jobs:nightly", "6f1c2a40-93e4-4b0f-87c9-389b853be697:1", "0b2d7e11-5a6c-4f3e-9d21-7c4e8f9a1b2c:9"
	for _, m := range c.raw {
		// Between the operator's look and the delete, the lock changed hands.
		if err := m.HSet(ctx, name, now, 1).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rc := c.client(t)
	_, err := rc.ReleaseRedisson(ctx, name, []string{seen}, "")
	if err == nil || errors.Is(err, ErrIncomplete) {
		t.Errorf("release of a holder no longer there: err %v, want a refusal", err)
	}
	for i, m := range c.raw {
		if v := m.HGet(ctx, name, now).Val(); v != "1" {
			t.Errorf("master %d: the new holder's lock was touched (field = %q)", i, v)
		}
	}
}

func TestRedissonUnlockChannels(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, mode, channel, message string }{
		{"a", "", "redisson_lock__channel:{a}", "0"},
		{"a", "read", "redisson_rwlock:{a}", "0"},
		{"a", "write", "redisson_rwlock:{a}", "1"},
		{"{a}:b", "", "redisson_lock__channel:{a}:b", "0"},
	}
	for _, tt := range tests {
		if ch, msg := redissonUnlockMessage(tt.name, tt.mode); ch != tt.channel || msg != tt.message {
			t.Errorf("%q %q: %q %q, want %q %q", tt.name, tt.mode, ch, msg, tt.channel, tt.message)
		}
	}
}
