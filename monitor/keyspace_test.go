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

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
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

// TestKilledNotificationConnectionResubscribes kills the monitor's Pub/Sub connections: the next polls still
// answer and the scan goes on, one of them subscribes again, and after that a new lock shows within two polls.
func TestKilledNotificationConnectionResubscribes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := notifiedMaster(t, "KEA", Config{ScanCount: 100}) // a hundred keys a poll: the scan's progress shows
	subscription := func() (*redis.PubSub, bool) { return reading.Subscription(c.mon.pollers[0]) }
	killed, running := subscription()
	if !running {
		t.Fatal("not subscribed after the first poll")
	}
	before := c.mon.Poll(ctx).Masters[0].Sweep
	must(t, c.admin[0].ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
	var s Snapshot
	deadline := time.Now().Add(20 * time.Second)
	for polls := 0; ; polls++ {
		s = c.mon.Poll(ctx)
		if m := s.Masters[0]; !m.Up {
			t.Fatalf("the master is not up after the kill: %s", m.Err)
		}
		if sub, running := subscription(); sub != killed && running && polls >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not subscribed again within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := s.Masters[0].Sweep; after.Completed == before.Completed && after.Scanned <= before.Scanned {
		t.Errorf("the scan did not go on after the kill: scanned %d, then %d", before.Scanned, after.Scanned)
	}
	c.set(t, "lock:after", "token-after-0123456789", time.Minute, 0)
	if shown, s := shownWithin(c, "lock:after", 2); !shown || !s.Masters[0].Notified {
		t.Fatalf("after subscribing again: a new lock shown within two polls %v, notified %v", shown, s.Masters[0].Notified)
	}
}

// TestNotifiedQueueIsBounded floods the notifications with twice as many cache writes (SETs without a TTL) as
// a queue holds: the queue stays within its bound, and the drops are counted and said (the scan is what finds
// the keys dropped). A lock written behind the flood still shows within two polls, though a queue full of
// cache keys is read a few thousand a poll: its expire event puts it in the queue of lock events, read first.
func TestNotifiedQueueIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := notifiedMaster(t, "KEA", Config{})
	fillCacheKeys(t, c.masters[0].Addr(), "flood:", 2*reading.MaxNotified)
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := c.mon.Poll(ctx)
		if strings.Contains(s.Masters[0].NotifiedWhy, "dropped") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no drops said within 30s: %q", s.Masters[0].NotifiedWhy)
		}
		time.Sleep(50 * time.Millisecond)
	}
	caughtUp, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	must(t, reading.WaitNotified(caughtUp, c.mon.pollers[0])) // every notification of the flood is in
	queued, dropped := reading.NotifiedQueue(c.mon.pollers[0])
	if queued > reading.MaxNotified || queued < reading.MaxNotified/2 || dropped == 0 {
		t.Errorf("%d keys queued, %d dropped; want at most %d queued, at least half that, and some dropped", queued, dropped, reading.MaxNotified)
	}
	c.set(t, "lock:behind", "token-behind-0123456789", time.Minute, 0)
	if shown, _ := shownWithin(c, "lock:behind", 2); !shown {
		t.Error("a lock written behind the flood is not shown within two polls")
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

// TestNotificationsFollowTheMastersSetting changes notify-keyspace-events while watching: at the next re-check
// (made due here rather than waited a minute for) the monitor drops its subscription when they are turned
// off, and subscribes to what is turned on, saying which kinds of lock it covers.
func TestNotificationsFollowTheMastersSetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := notifiedMaster(t, "KEA", Config{})
	for _, tt := range []struct {
		flags    string
		notified bool
		why      string
	}{
		{"", false, `notify-keyspace-events is ""`},
		{"E$", true, "hash locks and sorted-set locks by the scan only"},
		{"Ez", true, "string locks and hash locks by the scan only"},
		{"KEA", true, "(set, expire, hset, hincrby, zadd), and by the scan"},
	} {
		must(t, c.admin[0].ConfigSet(ctx, "notify-keyspace-events", tt.flags).Err())
		reading.RecheckNotifications(c.mon.pollers[0]) // the re-check is due
		m := c.mon.Poll(ctx).Masters[0]
		if m.Notified != tt.notified || !strings.Contains(m.NotifiedWhy, tt.why) {
			t.Errorf("notify-keyspace-events %q: notified %v (%q), want %v saying %q", tt.flags, m.Notified, m.NotifiedWhy, tt.notified, tt.why)
		}
		// A subscription made is confirmed before the poll ends; one dropped ends when the server sees it closed.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			subscribed, err := c.admin[0].PubSubChannels(ctx, "__keyevent@0__:*").Result()
			must(t, err)
			if tt.notified != (len(subscribed) == 0) {
				break
			}
			if tt.notified || time.Now().After(deadline) {
				t.Fatalf("notify-keyspace-events %q: subscribed to %q", tt.flags, subscribed)
			}
		}
	}
}

// TestNotificationsWithoutPINGKeepTheirConnection watches with a user whose ACL refuses the barrier's PING: the
// refusal, an error reply on the notification connection, ends the barriers but not the connection, which the
// next polls keep using.
func TestNotificationsWithoutPINGKeepTheirConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newACLServer(t)
	must(t, a.admin.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err())
	rules := append(slices.Clip(documentedACL(t, "watcher")), documentedAddition(t, "ACL SETUSER watcher +config|get")...)
	a.setUser(t, "watcher", without(rules, "ping"))
	mon, err := New([]*redis.Client{a.client(t, "watcher")}, []string{a.srv.Addr()}, Config{Timeout: testTimeout})
	must(t, err)
	defer mon.Close()
	mon.Poll(ctx)
	first, _ := reading.Subscription(mon.pollers[0])
	for range 3 {
		if m := mon.Poll(ctx).Masters[0]; !m.Up || !m.Notified {
			t.Fatalf("up %v, notified %v (%q)", m.Up, m.Notified, m.NotifiedWhy)
		}
	}
	sub, running := reading.Subscription(mon.pollers[0])
	if sub != first || !running || !reading.PingRefused(mon.pollers[0]) {
		t.Errorf("same connection %v, receiving %v, PING refused noted %v; want all three", sub == first, running, reading.PingRefused(mon.pollers[0]))
	}
}

// TestNotifiedMasterScansAtASafetyNetsPace watches a master whose notifications name every kind of lock: once
// a sweep that started after the subscription has covered the keyspace, the scan keeps a tenth of its budget,
// and says so; a killed notification connection (keys named meanwhile are missed) puts it back at its full
// budget until a sweep that started after the new subscription is over. A master without notifications keeps
// the full budget.
func TestNotifiedMasterScansAtASafetyNetsPace(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (keyspace notifications)")
	}
	ctx := context.Background()
	cfg := Config{Interval: 100 * time.Millisecond, ScanBudget: 0.05, ScanCount: 50}
	start := func(t *testing.T, flags string) *cluster {
		srv := redlocktest.StartServers(t, 1, redlocktest.ServerOptions{Args: []string{"--notify-keyspace-events", flags}})[0]
		fillCacheKeys(t, srv.Addr(), "cache:", 20_000) // several polls' scan at the full budget
		c := watch(t, []redlocktest.Master{srv}, cfg)
		t.Cleanup(func() { _ = c.mon.Close() })
		return c
	}
	// pollUntil polls at the interval until ok holds of a poll's master, for up to a minute.
	pollUntil := func(t *testing.T, c *cluster, what string, ok func(MasterStatus) bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; {
			if m := c.mon.Poll(ctx).Masters[0]; ok(m) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("not within a minute: %s", what)
			}
			time.Sleep(cfg.Interval)
		}
	}
	safetyNet := func(m MasterStatus) bool { return strings.Contains(m.NotifiedWhy, "safety net") }

	// The two masters are watched side by side: each sweep takes many polls.
	t.Run("notifications name every lock", func(t *testing.T) {
		t.Parallel()
		notified := start(t, "KEA")
		pollUntil(t, notified, "the scan at a safety net's pace", safetyNet)
		// A poll's budget is its share of at most two intervals, of which the scan keeps a tenth; its calls are
		// charged at least minKeyCost a key, and the last may end its page of ScanCount keys.
		most := int64(float64(2*cfg.Interval)*cfg.ScanBudget*0.1/float64(reading.MinKeyCost)) + int64(cfg.ScanCount)
		prev := notified.mon.Poll(ctx).Masters[0].Sweep
		for range 10 {
			time.Sleep(cfg.Interval)
			m := notified.mon.Poll(ctx).Masters[0]
			if m.Sweep.Completed == prev.Completed {
				if scanned := m.Sweep.Scanned - prev.Scanned; scanned > most {
					t.Errorf("a poll at the safety net's pace scanned %d keys, want at most %d", scanned, most)
				}
			}
			prev = m.Sweep
		}
		must(t, notified.admin[0].ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
		pollUntil(t, notified, "the full budget after the notification connection was killed", func(m MasterStatus) bool {
			return m.Notified && !safetyNet(m)
		})
		pollUntil(t, notified, "the safety net's pace again after a sweep", safetyNet)
	})
	t.Run("no notifications", func(t *testing.T) {
		t.Parallel()
		plain := start(t, "")
		pollUntil(t, plain, "a full sweep", func(m MasterStatus) bool { return m.Sweep.Completed >= 2 })
		if m := plain.mon.Poll(ctx).Masters[0]; safetyNet(m) || m.Notified {
			t.Errorf("a master without notifications: notified %v, %q; want the scan at its full budget", m.Notified, m.NotifiedWhy)
		}
	})
}
