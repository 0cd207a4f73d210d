package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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

// TestTheRedlockReplicationRaceHasAOnEveryMasterFirst leaves another client's key on masters 4 and 5 (as a story
// before may leave one on a loaded machine), so that A's first lock is a bare three, master 3 among them; the
// leftovers go once A lets that lock go, or before B tries. With a bare three, master 3's loss lets B in. The
// story is safe only as it says, with A's key on all five: A takes the lock again, and B gets no majority.
func TestTheRedlockReplicationRaceHasAOnEveryMasterFirst(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{Paused: true, PresenterTTL: MaxTTL}))
	ctx := context.Background()
	var clients []*redis.Client
	for _, addr := range d.Addrs() { // patient: a loaded machine must not fail the test's own commands
		c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second})
		defer c.Close()
		clients = append(clients, c)
	}
	const leftover = "left-by-the-story-before"
	leave := func(do func(c *redis.Client) error) {
		for _, i := range []int{3, 4} {
			if err := do(clients[i]); err != nil {
				t.Errorf("master %d: %v", i+1, err)
			}
		}
	}
	removeLeftovers := func(c *redis.Client) error {
		return c.Eval(ctx, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`,
			[]string{ScenarioResource}, leftover).Err()
	}
	const retaken = "master 4, 5 had none"
	events := make(chan []Event, 1)
	go func() {
		events <- collect(d, time.Minute, func(e Event) bool {
			if e.Kind == EventReleased && strings.Contains(e.Text, retaken) {
				leave(removeLeftovers)
			}
			return strings.Contains(e.Text, "B tries")
		})
	}()
	res := stepUntilOver(t, d, "replication-race-redlock", func(st StepState) {
		switch {
		case st.Step == 2: // the story has brought every master up
			leave(func(c *redis.Client) error { return c.Set(ctx, ScenarioResource, leftover, time.Minute).Err() })
		case strings.Contains(st.Text, "B tries"):
			leave(removeLeftovers)
		}
	})
	if res.Violated {
		t.Errorf("a violation in the safe story: %+v", d.Violations())
	}
	retook := false
	for _, e := range <-events {
		retook = retook || e.Kind == EventReleased && strings.Contains(e.Text, retaken)
	}
	if !retook {
		t.Error("A's first lock, a bare three, was not released to be taken again on all five")
	}
}
