package monitor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

func TestUUIDNamedLockIsLockShapedAndUUIDCacheIsNot(t *testing.T) {
	for _, tc := range []struct{ what, key, token string }{
		{"redlock-rb's UUID on an entity's UUID", "import:" + uuid4(), uuid4()},
		{"npm redislock's UUID v1 on an entity's UUID", "exports:" + uuid4() + ":run", uuid1()},
		{"a job named by two UUIDs and a word", "job:" + uuid4() + ":" + uuid4(), uuid4()},
		{"an order's lock", "order:" + uuid4(), uuid4()},
	} {
		if !lockshape.LockShapedValue(tc.key, tc.token) {
			t.Errorf("%s: %q under %q is not lock-shaped", tc.what, tc.token, tc.key)
		}
	}
	for _, tc := range []struct{ what, key, value string }{
		{"a user id under a session id", "session:" + uuid4(), uuid4()},
		{"express-session's prefix", "sess:" + uuid4(), uuid4()},
		{"a user's account id", "user:" + uuid4(), uuid4()},
		{"a cached lookup", "cache:users:" + uuid4(), uuid1()},
		{"a refresh token's user", "auth:refresh_token:" + uuid4(), uuid4()},
		{"a UUID under a bare UUID", uuid4(), uuid4()},
		{"upper-case words", "SESSION:" + uuid4(), uuid4()},
		{"a password reset's user", "password_reset:" + uuid4(), uuid4()},
		{"an API key's owner", "api_key:" + uuid4(), uuid4()},
	} {
		if lockshape.LockShapedValue(tc.key, tc.value) {
			t.Errorf("%s: %q under %q is taken for a lock", tc.what, tc.value, tc.key)
		}
	}
}

// uuidCacheKeys is how many keys of each UUID cache shape TestUUIDNamedLocksListedUUIDCachesNot plants.
const uuidCacheKeys = 200

// TestUUIDNamedLocksListedUUIDCachesNot watches a redis-server holding locks named by the UUID of what they lock
// ("import:<uuid>"), taken by redsync and with the UUID tokens of redlock-rb (v4) and npm redislock (v1), next to
// caches that map UUIDs to UUIDs, all with a TTL: the locks are listed (in the JSON snapshot too, with their
// family), the caches counted as not lock-shaped.
func TestUUIDNamedLocksListedUUIDCachesNot(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 1)
	ctx := context.Background()
	admin := servers[0].NewClient()
	defer admin.Close()
	pipe := admin.Pipeline()
	for range uuidCacheKeys {
		pipe.Set(ctx, "session:"+uuid4(), uuid4(), time.Hour)
		pipe.Set(ctx, "sess:"+uuid4(), uuid4(), time.Hour)
		pipe.Set(ctx, "user:"+uuid4()+":account", uuid1(), time.Hour)
		pipe.Set(ctx, uuid4(), uuid4(), time.Hour)
	}
	rb, v1 := "import:"+uuid4(), "exports:"+uuid4()+":run"
	pipe.SetNX(ctx, rb, uuid4(), time.Hour)
	pipe.SetNX(ctx, v1, uuid1(), time.Hour)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	rsKey := "import:" + uuid4()
	m := redsync.New(goredis.NewPool(admin)).NewMutex(rsKey, redsync.WithExpiry(time.Hour), redsync.WithTries(1))
	if err := m.Lock(); err != nil {
		t.Fatal(err)
	}

	mon, err := New([]*redis.Client{servers[0].NewClient()}, []string{servers[0].Addr()}, Config{Timeout: testTimeout, ScanBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := mon.Poll(ctx)
	for polls := 1; !s.Swept; polls++ {
		if polls > 50 {
			t.Fatalf("no full sweep after 50 polls: %+v", s.Masters[0].Sweep)
		}
		s = mon.Poll(ctx)
	}
	var listed []string
	for _, l := range s.Locks {
		listed = append(listed, l.Resource)
	}
	want := []string{v1, rb, rsKey}
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("listed %d locks, first %q; want only %q", len(listed), listed[:min(5, len(listed))], want)
	}
	if n := s.NotLockShaped(); n != 4*uuidCacheKeys {
		t.Errorf("%d keys counted as not lock-shaped, want the %d UUID cache keys", n, 4*uuidCacheKeys)
	}
	families := map[string]string{rb: "UUID: redlock-rb, RedLock.net or pottery", v1: "UUID v1: redislock (npm)", rsKey: "redsync"}
	for _, l := range s.Locks { // the JSON's family is the view's (render's tests)
		if l.State != StateHeld || l.Family != families[l.Resource] {
			t.Errorf("%s: %s, family %q; want held, family %q", l.Resource, l.State, l.Family, families[l.Resource])
		}
	}
}
