package monitor

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// slowScan is a scan budget so small that each poll makes one SCAN call (of COUNT 1 in most tests: about one
// key): over ordinaryKeys keys the SCAN takes tens of thousands of polls to come across a new key, so only a
// notification can bring it sooner.
const (
	slowScan     = 1e-6
	ordinaryKeys = 50_000
)

// notifiedMaster starts a real redis-server whose notify-keyspace-events is flags, holding ordinaryKeys cache
// keys without a TTL, and a monitor on it with the slow scan (one SCAN call a poll, of COUNT 1 unless cfg says)
// and cfg, polled once: it has read the flags.
func notifiedMaster(t *testing.T, flags string, cfg Config) *cluster {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (keyspace notifications)")
	}
	srv := redlocktest.StartServers(t, 1, redlocktest.ServerOptions{Args: []string{"--notify-keyspace-events", flags}})[0]
	fillCacheKeys(t, srv.Addr(), "cache:", ordinaryKeys)
	cfg.ScanBudget = slowScan
	if cfg.ScanCount == 0 {
		cfg.ScanCount = 1
	}
	c := watch(t, []redlocktest.Master{srv}, cfg)
	t.Cleanup(func() { _ = c.mon.Close() })
	if s := c.mon.Poll(context.Background()); !s.Masters[0].Up {
		t.Fatalf("the master did not answer: %s", s.Masters[0].Err)
	}
	return c
}

// fillCacheKeys writes n keys prefix1 to prefixN without a TTL, each holding a value that is no token, on the
// master at addr, in scripts of a thousand keys, through a client of its own that waits as long as a loaded
// machine may make it (the helpers' clients time out within a second).
func fillCacheKeys(t *testing.T, addr, prefix string, n int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: time.Minute, WriteTimeout: time.Minute})
	defer c.Close()
	const script = `for i = ARGV[2], ARGV[3] do redis.call('SET', ARGV[1] .. i, 'a cached value ' .. i) end return 1`
	for from := 1; from <= n; from += 1000 {
		must(t, c.Eval(context.Background(), script, nil, prefix, from, min(from+999, n)).Err())
	}
}

// shownWithin polls up to polls times and reports whether a poll shows resource as a lock.
func shownWithin(c *cluster, resource string, polls int) (bool, Snapshot) {
	var s Snapshot
	for range polls {
		s = c.mon.Poll(context.Background())
		if cellOf(s, resource) != nil {
			return true, s
		}
	}
	return false, s
}

// TestNotifiedLocksAppearWithinTwoPolls writes a lock of each kind (strings as the Redlock clients set them,
// Redisson's hash, Symfony's sorted set) on a master that publishes key events, behind 50,000 cache keys that
// the slow scan would take tens of thousands of polls over: each shows within two polls. A master without
// notifications (the control) shows none of a lock of each kind in those polls: only the scan could find them,
// and the chance that it comes across one is about 1 in 10,000.
func TestNotifiedLocksAppearWithinTwoPolls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	formats := append(lockFormats[:len(lockFormats):len(lockFormats)], lockFormat{name: "Symfony Lock", key: verbatim,
		token: func() string { return "symfony-token-0123456789" },
		write: func(ctx context.Context, c *redis.Client, key, token string) error {
			return c.Eval(ctx, symfonySave, []string{key}, float64(time.Now().UnixMicro())/1e6, token, 30000).Err()
		}})
	for _, tt := range []struct {
		flags string
		shown bool
	}{{"KEA", true}, {"E$g", true}, {"", false}} {
		t.Run(fmt.Sprintf("notify-keyspace-events=%q", tt.flags), func(t *testing.T) {
			c := notifiedMaster(t, tt.flags, Config{})
			s := c.mon.Poll(ctx)
			if m := s.Masters[0]; m.Notified != tt.shown || m.NotifiedWhy == "" {
				t.Fatalf("Notified %v (%q), want %v", m.Notified, m.NotifiedWhy, tt.shown)
			}
			for i, f := range formats {
				if !tt.shown && !slices.Contains([]string{"redsync", "Redisson RLock", "Symfony Lock"}, f.name) {
					continue // one of each kind: each key is another chance for the scan to come across it
				}
				resource := fmt.Sprintf("new:%d", i)
				if err := f.write(ctx, c.admin[0], f.key(resource), f.token()); err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				if shown, s := shownWithin(c, f.key(resource), 2); shown != tt.shown {
					t.Errorf("%s: shown within two polls %v, want %v (scanned %d of %d)", f.name, shown, tt.shown,
						s.Masters[0].Sweep.Scanned, s.Masters[0].Sweep.Total)
				}
			}
		})
	}
}

// TestNotifiedKeysFollowTheCandidateRules names, through notifications, keys that are not locks: cache keys
// without a TTL, a hash that is not Redisson's, and under a pattern of the user's keys outside it. None is
// listed, while a lock written with them is.
func TestNotifiedKeysFollowTheCandidateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("default pattern", func(t *testing.T) {
		c := notifiedMaster(t, "KEA", Config{})
		a := c.admin[0]
		must(t, a.Set(ctx, "cache:new", "a value that is no token", 0).Err())
		must(t, a.Set(ctx, "cache:short", "0123456789abcdef", time.Minute).Err()) // lock-shaped: shown
		must(t, a.HSet(ctx, "profile:1", "name", "ada").Err())
		must(t, a.Expire(ctx, "profile:1", time.Minute).Err())
		c.set(t, "lock:new", "token-new-0123456789", time.Minute, 0)
		if shown, _ := shownWithin(c, "lock:new", 2); !shown {
			t.Fatal("the lock named with them is not shown within two polls")
		}
		s := c.mon.Poll(ctx)
		for _, k := range []string{"cache:new", "profile:1"} {
			if cellOf(s, k) != nil {
				t.Errorf("%s is listed as a lock", k)
			}
		}
	})
	t.Run("pattern of the user's", func(t *testing.T) {
		c := notifiedMaster(t, "KEA", Config{Pattern: "lock:*"})
		c.set(t, "other:new", "token-other-0123456789", time.Minute, 0)
		c.set(t, "lock:plain", "not a token at all", 0, 0) // under a pattern of the user's, strings without a TTL show
		if shown, _ := shownWithin(c, "lock:plain", 2); !shown {
			t.Fatal("lock:plain, inside the pattern, is not shown within two polls")
		}
		if s := c.mon.Poll(ctx); cellOf(s, "other:new") != nil {
			t.Error("other:new, outside the pattern, is listed")
		}
	})
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNotificationsNeedCONFIGGet watches, behind 50,000 cache keys and with the slow scan, with the README's
// watcher, whom the ACL refuses CONFIG: whether notifications are on is unknown, so none is subscribed to, the
// master says why, and a new lock waits for the scan. With the README's addition for notifications a new lock
// shows within two polls, also when the ACL refuses scripts too (the named keys are then read with plain
// commands); without SUBSCRIBE it waits for the scan, and the master says why.
func TestNotificationsNeedCONFIGGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newACLServer(t)
	must(t, a.admin.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err())
	fillCacheKeys(t, a.srv.Addr(), "cache:", ordinaryKeys)
	watcher := documentedACL(t, "watcher")
	notified := append(slices.Clip(watcher), documentedAddition(t, "ACL SETUSER watcher +config|get")...)
	for i, tt := range []struct {
		name     string
		rules    []string
		notified bool
		why      string
	}{
		{"watcher", watcher, false, "CONFIG GET refused"},
		{"watcher with notifications", notified, true, "keyspace notifications"},
		{"without scripts", without(notified, "eval"), true, "keyspace notifications"},
		{"without SUBSCRIBE", without(notified, "subscribe"), false, "SUBSCRIBE to keyspace notifications failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a.setUser(t, "watcher", tt.rules)
			mon, err := New([]*redis.Client{a.client(t, "watcher")}, []string{a.srv.Addr()},
				Config{Timeout: testTimeout, ScanBudget: slowScan, ScanCount: 1})
			must(t, err)
			defer mon.Close()
			m := mon.Poll(ctx).Masters[0]
			if !m.Up || m.Notified != tt.notified || !strings.Contains(m.NotifiedWhy, tt.why) {
				t.Fatalf("up %v, notified %v (%q); want up, notified %v, saying %q", m.Up, m.Notified, m.NotifiedWhy, tt.notified, tt.why)
			}
			resource := fmt.Sprintf("new:%d", i)
			must(t, a.admin.Set(ctx, resource, "token-new-0123456789", time.Minute).Err())
			if shown, _ := shownWithin(&cluster{mon: mon}, resource, 2); shown != tt.notified {
				t.Errorf("a new lock shown within two polls %v, want %v", shown, tt.notified)
			}
		})
	}
}

// documentedAddition returns the rules of the README's line that begins with prefix ("ACL SETUSER user ...").
func documentedAddition(t *testing.T, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, prefix) {
			return strings.Fields(line)[3:]
		}
	}
	t.Fatalf("the README has no line %s...", prefix)
	return nil
}
