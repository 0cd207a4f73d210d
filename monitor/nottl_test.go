package monitor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// noTTLLocks are lock keys real clients leave without a TTL, each planted on one master only: Medusa's
// acquire() without expire, Laravel's lock($name) without seconds (its owner, Str::random(16), under the cache
// store's prefix), and django-redis's cache.lock() without a timeout (redis-py's uuid1().hex token under
// ":<version>:").
var noTTLLocks = []struct{ key, value string }{
	{"medusa_lock:order:8", "*"},
	{"laravel_database_laravel_cache_:reports", "Vq3kLm9XzP2aTb7W"},
	{":1:nightly-import", "4a7d1ed414474e4033ac29ccb8653d9b"},
}

// noTTLCache are cached values without a TTL, each on one master only: the cache and session fixtures of
// TestCacheAndSessionValuesAreNotLockShaped, and token-shaped values under names that do not say lock
// (TestPollStuckLockWithoutTTLIsShownAndOrdinaryDataIsNot's session:cache among them), Laravel's and
// django-redis's cached values under their prefixes.
func noTTLCache() []struct{ key, value string } {
	return []struct{ key, value string }{
		{"cache:product:7", `{"id":7,"name":"lamp","price":12.5}`},
		{"cache:greeting", `"hello"`},
		{"sess:" + uuid4(), `{"cookie":{"originalMaxAge":86400000},"user":"ann"}`},
		{"session:" + uuid4(), uuid4()},
		{"PHPREDIS_SESSION:abc", `user|s:3:"ann";`},
		{"cache:motd", "Welcome back"},
		{"cache:blob", strings.Repeat("v", 65)},
		{"ratelimit:ann", "17"},
		{"last-seen:ann", "1718000000000"},
		{"cache:leader", "10.0.0.1:6379"},
		{"django:session", "\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00}\x94"},
		{"session:cache", "kP8sN2xQ7wL4rT9v"},
		{"cache:short", "0123456789abcdef"},
		{"api:key:7", "4a7d1ed414474e4033ac29ccb8653d9b"},
		{"laravel_database_laravel_cache_:greeting", `s:5:"hello";`},
		{"laravel_database_laravel_cache_:count", "i:42;"},
		{":1:user:7", "\x80\x05\x95\x0b\x00\x00\x00\x00\x00\x00\x00\x8c\x03ann\x94."},
		{":1:token", "Vq3kLm9XzP2aTb7W"},
	}
}

// TestLockKeysWithoutTTLOnOneMasterAreStuckAndCacheKeysAreNot plants, on three real masters, lock keys without
// a TTL each on one master, and cached values without a TTL each on one master: under the default pattern each
// lock key is listed stuck on its master, with an error event naming it and the remedy, and none of the cached
// values is listed, whether the masters run scripts or are read with plain commands.
func TestLockKeysWithoutTTLOnOneMasterAreStuckAndCacheKeysAreNot(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (rename-command)")
	}
	var scriptless []string
	for _, cmd := range []string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO"} {
		scriptless = append(scriptless, "--rename-command", cmd, "")
	}
	for _, tt := range []struct {
		name string
		args []string
	}{{"scripts", nil}, {"plain commands", scriptless}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			servers := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{Args: tt.args})
			masters := make([]redlocktest.Master, len(servers))
			for i, s := range servers {
				masters[i] = s
			}
			c := watch(t, masters, Config{})
			t.Cleanup(func() { _ = c.mon.Close() })
			first := c.mon.Poll(context.Background()) // the locks below appear after it: each raises its event
			for i, k := range noTTLLocks {
				c.set(t, k.key, k.value, 0, i%3)
			}
			cache := noTTLCache()
			for i, k := range cache {
				c.set(t, k.key, k.value, 0, i%3)
			}
			s := pollUntil(t, c.mon, 20*time.Second, "every master swept after the keys were set", func(s Snapshot) bool {
				return s.Swept && s.Time.After(first.Time) && s.Lock(noTTLLocks[0].key) != nil && s.Lock(noTTLLocks[1].key) != nil &&
					s.Lock(noTTLLocks[2].key) != nil
			})
			for i, k := range noTTLLocks {
				l := s.Lock(k.key)
				if l.State != StateStuck || l.Count != 1 || l.Masters[i%3].PTTL != NoTTL {
					t.Errorf("%s: %s on %d, want stuck on master %d alone", k.key, l.State, l.Count, i%3)
				}
				found := false
				for _, e := range s.Events {
					found = found || e.Resource == k.key && e.Kind == EventLockStuck && e.Kind.Severity() == SeverityError &&
						strings.Contains(e.Text, "DEL the key")
				}
				if !found {
					t.Errorf("%s: no error event naming it with the remedy: %v", k.key, s.Events)
				}
				var w *Warning
				for i := range s.Warnings {
					if s.Warnings[i].Kind == WarnStuck && s.Warnings[i].Resource == k.key {
						w = &s.Warnings[i]
					}
				}
				if w == nil || w.Severity != SeverityError || !strings.Contains(w.Text, s.Masters[i%3].Addr) {
					t.Errorf("%s: banner warning %+v, want an error naming the master", k.key, w)
				}
			}
			listed := 0
			for _, k := range cache {
				if s.Lock(k.key) != nil {
					listed++
					t.Errorf("cached value %q under %q, without a TTL on one master, listed as a lock", k.value, k.key)
				}
			}
			t.Logf("no-TTL lock keys listed: %d of %d; cached values without a TTL listed: %d of %d",
				len(noTTLLocks), len(noTTLLocks), listed, len(cache))
		})
	}
}
