package monitor

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
)

func TestEveryKnownClientsTokenIsLockShaped(t *testing.T) {
	for _, f := range lockFormats {
		if f.name == "Redisson RLock" || f.name == "Redisson read lock" {
			continue // hash locks: lock-shaped by their fields
		}
		for range 200 { // the tokens are random: many draws, so that a rare shape is met
			key, token := f.key("orders:42"), f.token()
			if !lockshape.LockShapedValue(key, token) {
				t.Fatalf("%s's token %q under %q is not lock-shaped", f.name, token, key)
			}
		}
	}
	now := time.Now()
	for _, tc := range []struct{ client, key, token string }{
		{"bsm/redislock with metadata", "orders:42", base64.RawURLEncoding.EncodeToString(randomBytes(16)) + `{"host":"web-1"}`},
		{"Symfony Lock before 5.2", "orders:42", base64.StdEncoding.EncodeToString(randomBytes(32))},
		{"Redis::DistLock", "orders:42", base64.StdEncoding.EncodeToString(randomBytes(24))},
		{"redlock-cpp", "orders:42", strings.ToUpper(hex.EncodeToString(randomBytes(20)))},
		{"php-lock/lock", "php-malkusch-lock:orders", "f" + hex.EncodeToString(randomBytes(32))[1:]},
		{"malkusch/lock", "lock_orders", hex.EncodeToString(randomBytes(16))},
		{"redlock-php uniqid()", "orders:42", fmt.Sprintf("%08x%05x", now.Unix(), now.Nanosecond()/1000)},
		{"redlock-php uniqid() of digits only (2023-09-12)", "orders:42", "6500000012345"},
		{"Redlock-cs binary GUID", "orders:42", "\x10\x20\x30\x40\x50\x60\x70\x4a\x9b\xaa\xbb\xcc\xdd\xee\xff\x01"},
		{"a token made by hand", "orders:42", "token-by-hand"},
		{"a one-letter token", "orders:42", "T"},
		{"RedLock.net on an entity named by a UUID", "redlock:order:" + uuid4(), uuid4()},
		{"a lock named by a UUID, said in its name", "lock:order:" + uuid4(), uuid4()},
		{"a UUID token under a plain name (redlock-rb)", "billing:nightly", uuid4()},
	} {
		if !lockshape.LockShapedValue(tc.key, tc.token) {
			t.Errorf("%s: %q under %q is not lock-shaped", tc.client, tc.token, tc.key)
		}
	}
}

func TestCacheAndSessionValuesAreNotLockShaped(t *testing.T) {
	for _, tc := range []struct{ what, key, value string }{
		{"JSON", "cache:product:7", `{"id":7,"name":"lamp","price":12.5}`},
		{"a JSON string", "cache:greeting", `"hello"`},
		{"connect-redis session", "sess:" + uuid4(), `{"cookie":{"originalMaxAge":86400000},"user":"ann"}`},
		{"a user id under a session id", "session:" + uuid4(), uuid4()},
		{"PHP session", "PHPREDIS_SESSION:abc", `user|s:3:"ann";`},
		{"text", "cache:motd", "Welcome back"},
		{"a long base64 blob", "cache:thumb", base64.StdEncoding.EncodeToString(randomBytes(120))},
		{"a long run of token characters", "cache:blob", strings.Repeat("v", 65)},
		{"a counter", "ratelimit:ann", "17"},
		{"a millisecond timestamp", "last-seen:ann", "1718000000000"},
		{"a float", "cache:pi", "3.14"},
		{"a date", "cache:day", "2025-03-01T12:00:00Z"},
		{"an address", "cache:leader", "10.0.0.1:6379"},
		{"an empty value (Spring Session's expiry keys)", "spring:session:sessions:expires:1", ""},
		{"a pickle", "django:session", "\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00}\x94"},
	} {
		if lockshape.LockShapedValue(tc.key, tc.value) {
			t.Errorf("%s: %q under %q is taken for a lock", tc.what, tc.value, tc.key)
		}
	}
}

// sharedKeys is how many cache entries and how many sessions TestSharedRedisListsOnlyTheLocks plants.
const sharedKeys = 3000

// TestSharedRedisListsOnlyTheLocks watches a redis-server that is also a cache and a session store: 3,000 JSON
// cache entries and 3,000 sessions (a user's UUID under the session's), all with a TTL of an hour, next to
// locks taken by this project's client and by redsync. Only the locks are listed, the others are counted, and
// the hour-long TTLs do not make the restart rule fire; a pattern of the user's own lists everything it matches.
func TestSharedRedisListsOnlyTheLocks(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 1)
	ctx := context.Background()
	admin := servers[0].NewClient()
	defer admin.Close()
	pipe := admin.Pipeline()
	for i := range sharedKeys {
		doc, _ := json.Marshal(map[string]any{"id": i, "name": fmt.Sprintf("product %d", i), "price": 9.5})
		pipe.Set(ctx, fmt.Sprintf("cache:product:%d", i), doc, time.Hour)
		pipe.Set(ctx, "session:"+uuid4(), uuid4(), time.Hour)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Locks with a TTL shorter than the server's uptime when polled, so that the restart rule has nothing to
	// say about them: only the hour-long cache entries could make it fire.
	const lockTTL = 2 * time.Second
	for time.Since(startOf(t, admin)) < lockTTL+500*time.Millisecond {
		time.Sleep(100 * time.Millisecond)
	}
	locker, err := redlock.New([]*redis.Client{admin}, redlock.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	ours, err := locker.Acquire(ctx, "billing:nightly", lockTTL)
	if err != nil {
		t.Fatal(err)
	}
	keeper := ours.AutoExtend()
	defer keeper.Stop()
	rs := redsync.New(goredis.NewPool(admin))
	theirs := rs.NewMutex("orders:settle", redsync.WithExpiry(lockTTL), redsync.WithTries(1))
	if err := theirs.Lock(); err != nil {
		t.Fatal(err)
	}
	defer theirs.Unlock()
	// Both locks are held however long the sweep takes on a loaded machine: redsync's is extended as ours is.
	extending, stopExtending := context.WithCancel(ctx)
	defer stopExtending()
	go func() {
		for {
			select {
			case <-extending.Done():
				return
			case <-time.After(lockTTL / 4):
				_, _ = theirs.ExtendContext(extending)
			}
		}
	}()

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
	if want := []string{"billing:nightly", "orders:settle"}; !slices.Equal(listed, want) {
		t.Errorf("listed %d locks, first %q, want only %q", len(listed), listed[:min(5, len(listed))], want)
	}
	if n := s.NotLockShaped(); n != 2*sharedKeys {
		t.Errorf("%d keys counted as not lock-shaped, want %d", n, 2*sharedKeys)
	}
	want := fmt.Sprintf("%s keys with a TTL are not lock-shaped: --pattern shows them", vocab.Thousands(int(2*sharedKeys)))
	if i := slices.IndexFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnNotLockShaped }); i < 0 ||
		s.Warnings[i].Text != want || s.Warnings[i].Severity != SeverityInfo {
		t.Errorf("warnings %v; want the information %q", s.Warnings, want)
	}
	if hasWarning(s, WarnRestart, servers[0].Addr()) {
		t.Errorf("the restart rule fired on the cache's TTLs: %v", s.Warnings)
	}
	for _, l := range s.Locks {
		if l.State != StateHeld {
			t.Errorf("lock %q is %s, want held", l.Resource, l.State)
		}
	}
	// The JSON and the table count the keys left out: render's TestKeysLeftOutAreCountedInTheJSONAndTheTable.

	// A pattern of the user's own shows every string it matches.
	mine, err := New([]*redis.Client{servers[0].NewClient()}, []string{servers[0].Addr()},
		Config{Timeout: testTimeout, ScanBudget: 1, Pattern: "cache:*"})
	if err != nil {
		t.Fatal(err)
	}
	s = mine.Poll(ctx)
	for polls := 1; !s.Swept && polls < 50; polls++ {
		s = mine.Poll(ctx)
	}
	if len(s.Locks) != sharedKeys || s.NotLockShaped() != 0 || hasWarning(s, WarnNotLockShaped, "") {
		t.Errorf("--pattern cache:*: %d listed, %d not lock-shaped; want all %d cache entries listed and none left out",
			len(s.Locks), s.NotLockShaped(), sharedKeys)
	}
	if !hasWarning(s, WarnRestart, servers[0].Addr()) {
		t.Errorf("with the cache listed, its hour-long TTL should make the restart rule fire (the server is seconds old): %v", s.Warnings)
	}
}

// startOf is the latest time the server behind c can have started, from INFO's uptime_in_seconds.
func startOf(t *testing.T, c *redis.Client) time.Time {
	t.Helper()
	info, err := c.Info(context.Background(), "server").Result()
	_, rest, found := strings.Cut(info, "uptime_in_seconds:")
	line, _, _ := strings.Cut(rest, "\r\n")
	secs, perr := strconv.ParseInt(line, 10, 64)
	if err != nil || !found || perr != nil {
		t.Fatalf("no uptime in INFO: %v", err)
	}
	return time.Now().Add(-time.Duration(secs) * time.Second) // the latest it can have started: uptime is rounded down
}
