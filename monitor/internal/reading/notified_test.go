package reading

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// These tests read one real redis-server that publishes key events, as the monitor's polls read it: a read,
// then the reading accepted (readOnce).

// notifiedConfig is the monitor's default configuration with the slowest scan: over the cache keys the tests
// fill the master with, only a notification brings a new key within a few reads.
func notifiedConfig() Config {
	return Config{Pattern: DefaultPattern, ScanCount: 1, ScanBudget: 1e-6, MaxKeys: 100_000, MaxValueLen: 256,
		Interval: 500 * time.Millisecond}
}

// fillCacheKeys sets n keys prefix1..prefixN without a TTL on the server behind c, as a cache does.
func fillCacheKeys(t *testing.T, c *redis.Client, prefix string, n int) {
	t.Helper()
	const script = `for i = ARGV[2], ARGV[3] do redis.call('SET', ARGV[1] .. i, 'a cached value ' .. i) end return 1`
	for from := 1; from <= n; from += 1000 {
		if err := c.Eval(context.Background(), script, nil, prefix, from, min(from+999, n)).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// readWithin reads p up to reads times and reports whether a reading has key, and the last reading.
func readWithin(t *testing.T, p Source, cfg Config, key string, reads int) (bool, Reading) {
	t.Helper()
	var r Reading
	for range reads {
		r = readOnce(t, p, cfg, nil)
		if slices.ContainsFunc(r.Keys, func(k KeyReading) bool { return k.Key == key && !k.Absent }) {
			return true, r
		}
	}
	return false, r
}

// TestNotifiedQueueIsBounded floods the notifications with twice as many cache writes (SETs without a TTL) as
// a queue holds: the queue stays within its bound, and the drops are counted and said (the scan is what finds
// the keys dropped). A lock written behind the flood is still read within two reads, though a queue full of
// cache keys is read a few thousand a read: its expire event puts it in the queue of lock events, read first.
func TestNotifiedQueueIsBounded(t *testing.T) {
	t.Parallel()
	srv, client, admin := realMaster(t, "--notify-keyspace-events", "KEA")
	p := masterOf(t, client, srv.Addr())
	cfg := notifiedConfig()
	if r := readOnce(t, p, cfg, nil); !r.Notified {
		t.Fatalf("not notified: %q", r.NotifiedWhy)
	}
	fillCacheKeys(t, admin, "flood:", 2*maxNotified)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := readOnce(t, p, cfg, nil)
		if strings.Contains(r.NotifiedWhy, "dropped") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no drops said within 30s: %q", r.NotifiedWhy)
		}
	}
	caughtUp, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := p.keyspace.waitBarrier(caughtUp); err != nil { // every notification of the flood is in
		t.Fatal(err)
	}
	p.keyspace.mu.Lock()
	queued, dropped := len(p.keyspace.plain.keys), p.keyspace.dropped
	p.keyspace.mu.Unlock()
	if queued > maxNotified || queued < maxNotified/2 || dropped == 0 {
		t.Errorf("%d keys queued, %d dropped; want at most %d queued, at least half that, and some dropped", queued, dropped, maxNotified)
	}
	if err := admin.Set(context.Background(), "lock:behind", "token-behind-0123456789", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if read, _ := readWithin(t, p, cfg, "lock:behind", 2); !read {
		t.Error("a lock written behind the flood is not read within two reads")
	}
}

// TestNotificationsFollowTheMastersSetting changes notify-keyspace-events while reading: at the next re-check
// (made due here rather than waited a minute for) the master's notifications are unsubscribed from when they
// are turned off, and subscribed to as turned on, the reading saying which kinds of lock they cover.
func TestNotificationsFollowTheMastersSetting(t *testing.T) {
	t.Parallel()
	srv, client, admin := realMaster(t, "--notify-keyspace-events", "KEA")
	p := masterOf(t, client, srv.Addr())
	cfg := notifiedConfig()
	ctx := context.Background()
	readOnce(t, p, cfg, nil)
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
		if err := admin.ConfigSet(ctx, "notify-keyspace-events", tt.flags).Err(); err != nil {
			t.Fatal(err)
		}
		p.keyspace.checkedAt = time.Time{} // the re-check is due
		r := readOnce(t, p, cfg, nil)
		if r.Notified != tt.notified || !strings.Contains(r.NotifiedWhy, tt.why) {
			t.Errorf("notify-keyspace-events %q: notified %v (%q), want %v saying %q", tt.flags, r.Notified, r.NotifiedWhy, tt.notified, tt.why)
		}
		// A subscription made is confirmed before the read ends; one dropped ends when the server sees it closed.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			subscribed, err := admin.PubSubChannels(ctx, "__keyevent@0__:*").Result()
			if err != nil {
				t.Fatal(err)
			}
			if tt.notified != (len(subscribed) == 0) {
				break
			}
			if tt.notified || time.Now().After(deadline) {
				t.Fatalf("notify-keyspace-events %q: subscribed to %q", tt.flags, subscribed)
			}
		}
	}
}

// subscription is p's keyspace notification connection, and whether its receiver runs on it.
func subscription(p *poller) (*redis.PubSub, bool) {
	p.keyspace.mu.Lock()
	defer p.keyspace.mu.Unlock()
	return p.keyspace.sub, p.keyspace.running
}

// TestKilledNotificationConnectionResubscribes kills the master's Pub/Sub connections: the next reads still
// answer and the scan goes on, one of them subscribes again, and after that a new lock is read within two reads.
func TestKilledNotificationConnectionResubscribes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client, admin := realMaster(t, "--notify-keyspace-events", "KEA")
	fillCacheKeys(t, admin, "cache:", 50_000)
	p := masterOf(t, client, srv.Addr())
	cfg := notifiedConfig()
	cfg.ScanCount = 100 // a hundred keys a read: the scan's progress shows
	readOnce(t, p, cfg, nil)
	killed, running := subscription(p)
	if !running {
		t.Fatal("not subscribed after the first read")
	}
	before := readOnce(t, p, cfg, nil).Sweep
	if err := admin.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	var r Reading
	deadline := time.Now().Add(20 * time.Second)
	for reads := 0; ; reads++ {
		r = readOnce(t, p, cfg, nil) // fails the test when the master does not answer
		if sub, running := subscription(p); sub != killed && running && reads >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not subscribed again within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := r.Sweep; after.Completed == before.Completed && after.Scanned <= before.Scanned {
		t.Errorf("the scan did not go on after the kill: scanned %d, then %d", before.Scanned, after.Scanned)
	}
	if err := admin.Set(ctx, "lock:after", "token-after-0123456789", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if read, r := readWithin(t, p, cfg, "lock:after", 2); !read || !r.Notified {
		t.Fatalf("after subscribing again: a new lock read within two reads %v, notified %v", read, r.Notified)
	}
}

// TestNotificationsWithoutPINGKeepTheirConnection reads as a user whose ACL refuses the barrier's PING: the
// refusal, an error reply on the notification connection, ends the barriers but not the connection, which the
// next reads keep using.
func TestNotificationsWithoutPINGKeepTheirConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, _, admin := realMaster(t, "--notify-keyspace-events", "KEA")
	if err := admin.Do(ctx, "ACL", "SETUSER", "watcher", "on", ">pw", "~*", "&*", "+@all", "-ping").Err(); err != nil {
		t.Fatal(err)
	}
	watcher := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "watcher", Password: "pw", ContextTimeoutEnabled: true, ReadTimeout: testTimeout})
	t.Cleanup(func() { _ = watcher.Close() })
	p := masterOf(t, watcher, srv.Addr())
	cfg := notifiedConfig()
	readOnce(t, p, cfg, nil)
	first, _ := subscription(p)
	for range 3 {
		if r := readOnce(t, p, cfg, nil); !r.Notified {
			t.Fatalf("notified %v (%q)", r.Notified, r.NotifiedWhy)
		}
	}
	sub, running := subscription(p)
	if sub != first || !running || !p.keyspace.pingRefused.Load() {
		t.Errorf("same connection %v, receiving %v, PING refused noted %v; want all three", sub == first, running, p.keyspace.pingRefused.Load())
	}
}

// TestNotifiedMasterScansAtASafetyNetsPace reads a master whose notifications name every kind of lock: once a
// sweep that started after the subscription has covered the keyspace, the scan keeps a tenth of its budget,
// and says so; a killed notification connection (keys named meanwhile are missed) puts it back at its full
// budget until a sweep that started after the new subscription is over. A master without notifications keeps
// the full budget.
func TestNotifiedMasterScansAtASafetyNetsPace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := Config{Pattern: DefaultPattern, Interval: 100 * time.Millisecond, ScanBudget: 0.05, ScanCount: 50,
		MaxKeys: 100_000, MaxValueLen: 256}
	start := func(t *testing.T, flags string) (*poller, *redis.Client) {
		srv, client, admin := realMaster(t, "--notify-keyspace-events", flags)
		fillCacheKeys(t, admin, "cache:", 20_000) // several reads' scan at the full budget
		return masterOf(t, client, srv.Addr()), admin
	}
	// readUntil reads at the interval until ok holds of a reading, for up to a minute.
	readUntil := func(t *testing.T, p *poller, what string, ok func(Reading) bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; {
			if ok(readOnce(t, p, cfg, nil)) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("not within a minute: %s", what)
			}
			time.Sleep(cfg.Interval)
		}
	}
	safetyNet := func(r Reading) bool { return strings.Contains(r.NotifiedWhy, "safety net") }

	// The two masters are read side by side: each sweep takes many reads.
	t.Run("notifications name every lock", func(t *testing.T) {
		t.Parallel()
		notified, admin := start(t, "KEA")
		readUntil(t, notified, "the scan at a safety net's pace", safetyNet)
		// A read's budget is its share of at most two intervals, of which the scan keeps a tenth; its calls are
		// charged at least minKeyCost a key, and the last may end its page of ScanCount keys.
		most := int64(float64(2*cfg.Interval)*cfg.ScanBudget*0.1/float64(minKeyCost)) + int64(cfg.ScanCount)
		prev := readOnce(t, notified, cfg, nil).Sweep
		for range 10 {
			time.Sleep(cfg.Interval)
			r := readOnce(t, notified, cfg, nil)
			if r.Sweep.Completed == prev.Completed {
				if scanned := r.Sweep.Scanned - prev.Scanned; scanned > most {
					t.Errorf("a read at the safety net's pace scanned %d keys, want at most %d", scanned, most)
				}
			}
			prev = r.Sweep
		}
		if err := admin.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
			t.Fatal(err)
		}
		readUntil(t, notified, "the full budget after the notification connection was killed", func(r Reading) bool {
			return r.Notified && !safetyNet(r)
		})
		readUntil(t, notified, "the safety net's pace again after a sweep", safetyNet)
	})
	t.Run("no notifications", func(t *testing.T) {
		t.Parallel()
		plain, _ := start(t, "")
		readUntil(t, plain, "a full sweep", func(r Reading) bool { return r.Sweep.Completed >= 2 })
		if r := readOnce(t, plain, cfg, nil); safetyNet(r) || r.Notified {
			t.Errorf("a master without notifications: notified %v, %q; want the scan at its full budget", r.Notified, r.NotifiedWhy)
		}
	})
}
