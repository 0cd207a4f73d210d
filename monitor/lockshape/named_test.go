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
