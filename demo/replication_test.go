package demo

import (
	"context"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// The demo's replication copies a key, with its TTL, to the replica once the lag has passed; a crash of the
// primary before then loses the copy.
func TestReplicaLinkCopiesAfterTheLagUnlessThePrimaryCrashes(t *testing.T) {
	ms, err := testbed.StartEmbeddedCluster(2)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, m := range ms {
			m.Close()
		}
	}()
	ctx := context.Background()
	primary, replica := ms[0].NewClient(), ms[1].NewClient()
	defer primary.Close()
	defer replica.Close()
	link := &replicaLink{from: ms[0], to: ms[1], lag: 50 * time.Millisecond}
	if err := primary.Set(ctx, "k1", "v1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	link.wrote("k1")
	deadline := time.Now().Add(10 * time.Second)
	for replica.Get(ctx, "k1").Val() != "v1" {
		if time.Now().After(deadline) {
			t.Fatal("the replica never got k1")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ttl := replica.PTTL(ctx, "k1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the copy's TTL is %v, want the primary's remaining TTL", ttl)
	}

	link.lag = time.Hour // the crash comes long before the copy
	if err := primary.Set(ctx, "k2", "v2", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	link.wrote("k2")
	if copied := link.crash(); copied != 1 {
		t.Errorf("%d keys copied before the crash, want 1 (k1)", copied)
	}
	if n := replica.Exists(ctx, "k2").Val(); n != 0 {
		t.Error("k2 reached the replica although the primary crashed before the lag")
	}
}
