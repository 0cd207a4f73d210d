package redlock

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// zadd puts members with score on every master of c, and gives the key a TTL, as the sorted-set locks do.
func zadd(t *testing.T, c *cluster, key string, score float64, members ...string) {
	t.Helper()
	ctx := context.Background()
	for _, m := range c.raw {
		for _, member := range members {
			if err := m.ZAdd(ctx, key, redis.Z{Score: score, Member: member}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.PExpire(ctx, key, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// membersOn returns the members of key on master i.
func membersOn(t *testing.T, c *cluster, i int, key string) []string {
	t.Helper()
	ms, err := c.raw[i].ZRange(context.Background(), key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ms)
	return ms
}

func TestReleaseSetMembersRemovesOnlyTheHolderSeen(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3)
	ctx := context.Background()
	rc := c.client(t)
	expiry := float64(time.Now().Add(time.Minute).UnixMilli())
	for _, tc := range []struct {
		name   string
		key    string
		before [][]string // each holder's members
		remove int        // the holder removed
		left   []string   // the members left, sorted; nil: the key is gone
	}{
		// Symfony Lock's shared lock: readers' tokens, no marker.
		{"a reader of three", "report", [][]string{{"r1"}, {"r2"}, {"r3"}}, 1, []string{"r1", "r3"}},
		// Symfony Lock's exclusive lock: the writer's token and __write__, scored alike; the marker goes with it.
		{"the writer", "invoice", [][]string{{"w", "__write__"}}, 0, nil},
		// redis-semaphore's MultiSemaphore: a holder's permits are "<id>_0".."<id>_<n-1>".
		{"a holder of two permits", "semaphore:batch", [][]string{{"a_0", "a_1"}, {"b_0"}}, 0, []string{"b_0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, h := range tc.before {
				zadd(t, c, tc.key, expiry, h...)
			}
			members := slices.DeleteFunc(slices.Clone(tc.before[tc.remove]), func(m string) bool { return m == "__write__" })
			r, err := rc.ReleaseSetMembers(ctx, tc.key, members)
			if err != nil || r.OK != 3 {
				t.Fatalf("release: %d OK, err %v; want all 3", r.OK, err)
			}
			for i := range c.raw {
				if got := membersOn(t, c, i, tc.key); !slices.Equal(got, tc.left) && !(len(got) == 0 && tc.left == nil) {
					t.Errorf("master %d holds %v, want %v", i, got, tc.left)
				}
			}
		})
	}
}

func TestReleaseSetMembersLeavesASetWithoutTheHolderSeen(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3)
	ctx := context.Background()
	rc := c.client(t)
	// Between the operator's look and the delete, the reader seen left and another joined.
	zadd(t, c, "report", float64(time.Now().Add(time.Minute).UnixMilli()), "newcomer")
	_, err := rc.ReleaseSetMembers(ctx, "report", []string{"seen"})
	if err == nil || errors.Is(err, ErrIncomplete) {
		t.Errorf("release of a holder no longer there: err %v, want a refusal", err)
	}
	for i := range c.raw {
		if got := membersOn(t, c, i, "report"); !slices.Equal(got, []string{"newcomer"}) {
			t.Errorf("master %d holds %v: the newcomer was touched", i, got)
		}
	}
	// A holder of several permits is removed only whole.
	zadd(t, c, "semaphore:batch", float64(time.Now().UnixMilli()), "a_0")
	if _, err := rc.ReleaseSetMembers(ctx, "semaphore:batch", []string{"a_0", "a_1"}); err == nil {
		t.Error("release of a holder half there: no error, want a refusal")
	}
	if got := membersOn(t, c, 0, "semaphore:batch"); !slices.Equal(got, []string{"a_0"}) {
		t.Errorf("half a holder was removed: %v left", got)
	}
}
