package lockshape

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// namedKeys are key names and whether each names a lock: a word of it, split on whatever is not a letter or a
// digit and at camelCase, is lock, mutex, semaphore or latch (or a plural, or redlock).
var namedKeys = []struct {
	key   string
	named bool
}{
	{"lock.orders", true},
	{"orders:lock", true},
	{"lock_billing", true},
	{"LOCK-billing", true},
	{"app/locks/42", true},
	{"orderLock", true},
	{"OrderLock", true},
	{"HTTPLock:x", true},
	{"v2Lock", true},
	{"mutex:billing", true},
	{"jobs.mutexes.7", true},
	{"semaphore:pool", true},
	{"startLatch", true},
	{"redlock:orders", true},
	{"clock:skew", false},
	{"deadlock-report", false},
	{"unlocked:7", false},
	{"blocklist", false},
	{"lock1", false},
	{"orders:42", false},
	{"latching", false},
	{"Locksmith", false},
	{"", false},
}

func TestAKeyIsNamedAsALockByAWordOfItsName(t *testing.T) {
	for _, tc := range namedKeys {
		if got := NamedAsLock(tc.key); got != tc.named {
			t.Errorf("NamedAsLock(%q) = %v, want %v", tc.key, got, tc.named)
		}
	}
}

// TestAKeyNamedAsALockIsLockShapedWhateverItsValue is issue 34's item 7: a client that stores its expiry time
// under lock.<name> was not listed, its value reading as a number. Under a key named as a lock any value is
// lock-shaped; under another name a number, JSON or text is not, as before; a set's members are judged as
// tokens whatever the set is named.
func TestAKeyNamedAsALockIsLockShapedWhateverItsValue(t *testing.T) {
	for _, v := range []string{"1718000000000", "1718000000", "1718000000.25", `{"owner":"web-1","until":1718000000}`, "held by web-1", "42", ""} {
		for _, key := range []string{"lock.orders", "orders:mutex", "jobLatch"} {
			if !LockShapedValue(key, v) {
				t.Errorf("%q under %q is not lock-shaped", v, key)
			}
		}
		if v != "42" && LockShapedValue("cache:orders", v) && !TokenShaped("cache:orders", v) {
			t.Errorf("%q under cache:orders is lock-shaped", v)
		}
	}
	if LockShapedValue("last-seen:ann", "1718000000000") {
		t.Error("a millisecond timestamp under a name that is no lock's is lock-shaped")
	}
	members := []SetMember{{Member: "not a token at all", Score: 1718000000000}}
	if SetShapeOf("lock:window", members, time.Minute, time.UnixMilli(1718000000000)) != NotASetLock {
		t.Error("a set of text members is a set lock because its key is named as a lock")
	}
}

// TestNamedLockLuaIsNamedAsLock runs the discovery scripts' namedLock on a real server: it must say what
// NamedAsLock says of every key, or a long value under a lock's name would be dropped by the script.
func TestNamedLockLuaIsNamedAsLock(t *testing.T) {
	t.Parallel()
	servers := realServers(t)
	c := servers[0].NewClient()
	defer c.Close()
	script := redis.NewScript(NamedLockLua + "return namedLock(ARGV[1]) and 1 or 0")
	for _, tc := range namedKeys {
		got, err := script.Run(context.Background(), c, nil, tc.key).Int()
		if err != nil {
			t.Fatal(err)
		}
		if (got == 1) != tc.named {
			t.Errorf("namedLock(%q) = %d in Lua, NamedAsLock says %v", tc.key, got, tc.named)
		}
	}
}

// TestMarkedAsLockTakesLockKeysAndLeavesCacheKeys: keys that real clients leave without a TTL (Laravel's lock
// without seconds, django-redis's cache.lock() without a timeout, Medusa's acquire() without expire) are marked
// as locks; cached values without a TTL, token-shaped or not, are not.
func TestMarkedAsLockTakesLockKeysAndLeavesCacheKeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		key, value string
		want       bool
	}{
		{"medusa_lock:order:8", "*", true},
		{"laravel_database_laravel_cache_:reports", "Vq3kLm9XzP2aTb7W", true},
		{"laravel_cache:reports", "Vq3kLm9XzP2aTb7W", true},
		{":1:nightly-import", "4a7d1ed414474e4033ac29ccb8653d9b", true},
		{"lock_billing", "0123456789abcdef0123456789abcdef", true},
		{"jobs:mutex", "anything at all", true},
		{"laravel_cache_:greeting", `s:5:"hello";`, false},        // a cached value: serialised
		{"laravel_cache_:user:7", "i:42;", false},                 // another
		{":1:user:7", "Vq3kLm9XzP2aTb7W", false},                  // a cached string, not redis-py's token
		{"session:cache", "kP8sN2xQ7wL4rT9v", false},              // token-shaped, named as nothing
		{"cache:short", "0123456789abcdef", false},                // the same
		{"api:key:7", "4a7d1ed414474e4033ac29ccb8653d9b", false},  // a hex digest under a plain name
		{"cache:product:7", `{"id":7,"name":"lamp"}`, false},      // JSON
		{"config:colour", "blue", false},                          // ordinary data
		{"clock:offset", "3", false},                              // "clock" is not "lock"
		{"laravel_cache_:x", "Vq3kLm9XzP2aTb7W-with-more", false}, // not Str::random(16)
		{"a:b:c", "4a7d1ed414474e4033ac29ccb8653d9b", false},      // not django's version number
		{"", "", false},
	} {
		if got := MarkedAsLock(tt.key, tt.value); got != tt.want {
			t.Errorf("MarkedAsLock(%q, %q) = %v, want %v", tt.key, tt.value, got, tt.want)
		}
	}
}
