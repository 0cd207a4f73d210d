package monitor

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// testTimeout is the per-master poll deadline in integration tests: generous for -race on a loaded two-core
// machine, where one poll of a handful of keys was seen to take over 500ms.
const testTimeout = 2 * time.Second

// cluster is a set of test masters with a monitor on them and a separate client per master for setting keys.
type cluster struct {
	masters []redlocktest.Master
	admin   []*redis.Client
	mon     *Monitor
}

func newCluster(t *testing.T, n int, cfg Config) *cluster {
	t.Helper()
	masters := redlocktest.Masters(t, n)
	return watch(t, masters, cfg)
}

// watch starts a monitor on masters.
func watch(t *testing.T, masters []redlocktest.Master, cfg Config) *cluster {
	t.Helper()
	addrs := make([]string, len(masters))
	for i, m := range masters {
		addrs[i] = m.Addr()
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = testTimeout
	}
	mon, err := New(redlocktest.Clients(t, masters), addrs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{masters: masters, admin: redlocktest.Clients(t, masters), mon: mon}
}

// watchWithoutScripts starts n real redis-server masters and a monitor on them as a user their ACL refuses
// scripts, which the monitor reads with plain commands (pipelined); the admin clients are the default user's.
func watchWithoutScripts(t *testing.T, n int, cfg Config) *cluster {
	t.Helper()
	servers := realServers(t, n)
	masters := make([]redlocktest.Master, n)
	clients := make([]*redis.Client, n)
	addrs := make([]string, n)
	for i, srv := range servers {
		masters[i], addrs[i] = srv, srv.Addr()
		admin := srv.NewClient()
		err := admin.Do(context.Background(), "ACL", "SETUSER", "plain", "on", ">pw", "~*", "&*", "+@all", "-@scripting").Err()
		admin.Close()
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "plain", Password: "pw", ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = clients[i].Close() })
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = testTimeout
	}
	mon, err := New(clients, addrs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Close() })
	return &cluster{masters: masters, admin: redlocktest.Clients(t, masters), mon: mon}
}

// set puts key=value with ttl (0: no TTL) on the masters at the given indexes.
func (c *cluster) set(t *testing.T, key, value string, ttl time.Duration, on ...int) {
	t.Helper()
	for _, i := range on {
		if err := c.admin[i].Set(context.Background(), key, value, ttl).Err(); err != nil {
			t.Fatalf("SET %q on master %d: %v", key, i, err)
		}
	}
}

func TestNewRejectsBadArguments(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	tests := []struct {
		name    string
		clients []*redis.Client
		addrs   []string
	}{
		{"empty", nil, nil},
		{"length mismatch", []*redis.Client{c}, []string{"a", "b"}},
		{"nil client", []*redis.Client{nil}, []string{"a"}},
	}
	for _, tt := range tests {
		if _, err := New(tt.clients, tt.addrs, Config{}); err == nil {
			t.Errorf("%s: New accepted it", tt.name)
		}
	}
}

// ownedLocks is a register of our locks for tests that poll synchronously.
type ownedLocks map[string]OwnLock

func (o ownedLocks) OwnLocks() map[string]OwnLock { return maps.Clone(o) }

func TestPollShowsRedlockClientLock(t *testing.T) {
	t.Parallel()
	own := ownedLocks{}
	c := newCluster(t, 5, Config{Owner: own})
	rc, err := redlock.New(redlocktest.Clients(t, c.masters), redlock.WithNodeTimeout(testTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ctx := context.Background()
	l, err := rc.TryAcquire(ctx, "orders:42", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	own["orders:42"] = OwnLock{Token: l.Token(), AcquiredAt: time.Now(), TTL: l.TTL()}
	// The client returns once a quorum has answered; the other SETs may land a moment later.
	var s Snapshot
	var clientValidity time.Duration
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s = c.mon.Poll(ctx)
		clientValidity = l.Validity()
		if lockOf(t, s, "orders:42").Count == 5 || time.Now().After(deadline) {
			break
		}
	}
	v := lockOf(t, s, "orders:42")
	if v.State != StateHeld || v.Holder != l.Token() || v.Count != 5 || !v.Mine || v.Foreign {
		t.Fatalf("lock = state %s holder %q count %d mine %v foreign %v; want held by %q on 5, mine", v.State, v.Holder, v.Count, v.Mine, v.Foreign, l.Token())
	}
	for i, m := range v.Masters {
		if !m.Present() || m.Token != l.Token() || m.PTTL <= 9*time.Second || m.PTTL > 10*time.Second {
			t.Errorf("master %d: %+v, want the token with a PTTL just under 10s", i, m)
		}
	}
	if d := v.ValidityAt(s.Time) - clientValidity; d < -100*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("monitor validity %v, client validity %v: differ by %v", v.ValidityAt(s.Time), clientValidity, d)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	delete(own, "orders:42")
	s = c.mon.Poll(ctx)
	if len(s.Locks) != 1 || s.Locks[0].State != StateFree || s.Locks[0].Mine {
		t.Errorf("after release the next poll shows %d locks: %+v; want the lock free, and not ours", len(s.Locks), s.Locks)
	}
	if got := eventKinds(s.Events); !slices.Contains(got, EventLockReleased) {
		t.Errorf("events %v lack lock-released", got)
	}
}

func TestPollSplitAndPartial(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 5, Config{})
	c.set(t, "split", "A", time.Minute, 0, 1)
	c.set(t, "split", "B", time.Minute, 2, 3)
	c.set(t, "split", "C", time.Minute, 4)
	c.set(t, "partial", "P", time.Minute, 1, 3)
	s := c.mon.Poll(context.Background())
	if s.UpCount != 5 || s.Quorum != 3 {
		t.Fatalf("up %d quorum %d, want 5 and 3", s.UpCount, s.Quorum)
	}
	if l := lockOf(t, s, "split"); l.State != StateSplit || l.Holder != "" || l.Count != 2 {
		t.Errorf("2/2/1: state %s holder %q count %d, want split, no holder, 2", l.State, l.Holder, l.Count)
	}
	l := lockOf(t, s, "partial")
	if l.State != StatePartial || l.Count != 2 {
		t.Errorf("2 of 5: state %s count %d, want partial 2", l.State, l.Count)
	}
	if !l.Masters[1].Present() || l.Masters[0].State != CellAbsent || l.Masters[1].Token != "P" {
		t.Errorf("partial cells %+v, want P on masters 1 and 3 only", l.Masters)
	}
}

func TestPollStoppedMasterIsDownOthersUpdate(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 5, Config{})
	ctx := context.Background()
	if s := c.mon.Poll(ctx); s.UpCount != 5 {
		t.Fatalf("%d masters up, want 5: %v", s.UpCount, s.Warnings)
	}
	if err := c.masters[4].Stop(); err != nil {
		t.Fatal(err)
	}
	c.set(t, "after-stop", "T", time.Minute, 0, 1, 2)
	s := c.mon.Poll(ctx)
	if s.Masters[4].Up || s.Masters[4].Err == "" || s.UpCount != 4 {
		t.Errorf("stopped master: up=%v err=%q upCount=%d, want down with an error", s.Masters[4].Up, s.Masters[4].Err, s.UpCount)
	}
	if l := lockOf(t, s, "after-stop"); l.State != StateHeld || l.Masters[4].State != CellUnknown {
		t.Errorf("lock set after the stop: %+v, want held and the stopped master's cell unknown", l)
	}
	if !slices.Contains(eventKinds(s.Events), EventMasterDown) {
		t.Errorf("no master-down event: %v", s.Events)
	}
}

func TestPollPausedMasterDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, Config{Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	c.mon.Poll(ctx)
	if err := c.masters[2].Pause(); err != nil {
		t.Fatal(err)
	}
	defer c.masters[2].Resume()
	for i := range 3 {
		key := fmt.Sprintf("k%d", i)
		c.set(t, key, "T", time.Minute, 0, 1)
		// On a loaded machine a poll may have no time left for discovery before its deadline: the key is then
		// found by a later poll. Each poll must still end near the deadline and find the live masters up.
		for poll := 0; ; poll++ {
			start := time.Now()
			s := c.mon.Poll(ctx)
			// Without the deadline the poll would wait for the paused master
			// forever; the slack is for a loaded machine under -race.
			if took := time.Since(start); took > 300*time.Millisecond+time.Second {
				t.Errorf("key %d, poll %d with a paused master took %v, want about the 300ms deadline", i, poll, took)
			}
			if s.Masters[2].Up || !s.Masters[0].Up || !s.Masters[1].Up {
				t.Errorf("key %d, poll %d: up = %v %v %v, want the paused master down only", i, poll, s.Masters[0].Up, s.Masters[1].Up, s.Masters[2].Up)
			}
			found := slices.IndexFunc(s.Locks, func(l *LockView) bool { return l.Resource == key })
			if found >= 0 {
				if l := s.Locks[found]; l.State != StateHeld {
					t.Errorf("key %d: a key set on the live masters is %s, want held", i, l.State)
				}
				break
			}
			if poll == 20 {
				t.Fatalf("key %d not found in 20 polls", i)
			}
		}
	}
	if err := c.masters[2].Resume(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !c.mon.Poll(ctx).Masters[2].Up {
		if time.Now().After(deadline) {
			t.Fatal("resumed master still down after 5s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestASlowMasterIsNotAnsweringButNotDown: a master whose every read takes longer than a poll waits for it
// (here 300ms of latency each way, behind a proxy) but answers within Config.Timeout misses poll after poll, and
// is shown not answering, never down; once it answers nothing at all (the proxy holds every byte) it is down
// after Config.DownAfter polls, one of its reads having timed out. Before, a master whose read was merely
// still going was declared down after three polls: on a loaded machine, a live master.
func TestASlowMasterIsNotAnsweringButNotDown(t *testing.T) {
	t.Parallel()
	masters := redlocktest.Masters(t, 3)
	proxy, addr := redlocktest.WithProxy(t, masters[2])
	clients := redlocktest.Clients(t, masters[:2])
	slow := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, DialTimeout: 5 * time.Second,
		ReadTimeout: 5 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { slow.Close() })
	cfg := Config{Interval: 100 * time.Millisecond, Timeout: 5 * time.Second}
	mon, err := New(append(clients, slow), []string{masters[0].Addr(), masters[1].Addr(), addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mon.Poll(ctx)
	proxy.SetLatency(300 * time.Millisecond)
	mostMissed := 0
	for deadline := time.Now().Add(time.Minute); mostMissed < DefaultDownAfter+3; {
		s := mon.Poll(ctx)
		m := s.Masters[2]
		if m.Down {
			t.Fatalf("the slow master is down after %d polls missed, its read still going: %s", m.Missed, m.Err)
		}
		mostMissed = max(mostMissed, m.Missed)
		if time.Now().After(deadline) {
			t.Fatalf("the slow master never missed %d polls in a row (at most %d)", DefaultDownAfter+3, mostMissed)
		}
	}
	proxy.SetPaused(true)
	defer proxy.SetPaused(false)
	for start := time.Now(); ; {
		s := mon.Poll(ctx)
		if m := s.Masters[2]; m.Down {
			if m.Missed < DefaultDownAfter {
				t.Errorf("down after %d missed polls, want at least %d", m.Missed, DefaultDownAfter)
			}
			if !slices.ContainsFunc(s.Events, func(e Event) bool { return e.Kind == EventMasterDown && e.Master == addr }) {
				t.Errorf("down without a master-down event: %v", s.Events)
			}
			break
		}
		if time.Since(start) > 3*cfg.Timeout {
			t.Fatalf("a master that answers nothing is not down after %v", time.Since(start))
		}
	}
}

// realServers starts n redis-server masters, or skips when only embedded ones can be had.
func realServers(t *testing.T, n int) []*redlocktest.Server {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (INFO run_id, uptime, ACL)")
	}
	return redlocktest.StartServers(t, n, redlocktest.ServerOptions{})
}

func TestPollRestartRaisesWarning(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 3)
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	c := watch(t, masters, Config{})
	c.set(t, "long", "T", 10*time.Minute, 0, 1, 2)
	ctx := context.Background()
	s := c.mon.Poll(ctx)
	// Started moments ago, with a 10-minute lock on them: flagged from the first poll of a monitor that never
	// saw them restart (the delayed-restart rule), from INFO's uptime alone.
	for _, srv := range servers {
		if !hasWarning(s, WarnRestart, srv.Addr()) {
			t.Errorf("first poll: no restart warning for %s, started %v ago: %v", srv.Addr(), time.Since(s.Masters[0].LastRestart), s.Warnings)
		}
	}
	if slices.Contains(eventKinds(s.Events), EventMasterRestarted) {
		t.Errorf("restart event before any restart was seen: %v", s.Events)
	}
	if err := servers[1].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := servers[1].Start(); err != nil {
		t.Fatal(err)
	}
	for range 5 { // the client may first see its old, closed connection
		if s = c.mon.Poll(ctx); s.Masters[1].Up {
			break
		}
	}
	if !hasWarning(s, WarnRestart, servers[1].Addr()) {
		t.Errorf("no restart warning for the restarted master: %v", s.Warnings)
	}
	if !slices.Contains(eventKinds(s.Events), EventMasterRestarted) {
		t.Errorf("no master-restarted event: %v", eventKinds(s.Events))
	}
	if m := s.Masters[1]; m.LastRestart.IsZero() || time.Since(m.LastRestart) > 10*time.Second {
		t.Errorf("LastRestart = %v, want a moment ago", m.LastRestart)
	}
}

func TestPollDuplicateAddressIsAnError(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 2)
	if _, err := net.DefaultResolver.LookupHost(context.Background(), "localhost"); err != nil {
		t.Skipf("localhost does not resolve: %v", err)
	}
	port := strconv.Itoa(servers[0].Port())
	addrs := []string{"127.0.0.1:" + port, servers[1].Addr(), "localhost:" + port}
	clients := make([]*redis.Client, len(addrs))
	for i, a := range addrs {
		clients[i] = redis.NewClient(&redis.Options{Addr: a, ContextTimeoutEnabled: true})
		defer clients[i].Close()
	}
	mon, err := New(clients, addrs, Config{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	s := mon.Poll(context.Background())
	if s.UpCount != 2 || s.Servers != 2 || s.Masters[2].DuplicateOf != addrs[0] {
		t.Fatalf("%d up of %d servers, master 2 duplicate of %q; want 2 of 2, a duplicate of %s: %v", s.UpCount, s.Servers, s.Masters[2].DuplicateOf, addrs[0], s.Warnings)
	}
	var dup *Warning
	for i, w := range s.Warnings {
		if w.Kind == WarnDuplicate {
			dup = &s.Warnings[i]
		}
	}
	if dup == nil || dup.Severity != SeverityError || dup.Master != addrs[2] || !strings.Contains(dup.Text, addrs[0]) {
		t.Errorf("duplicate warning = %+v, want an error naming %s as the same server as %s; all: %v", dup, addrs[2], addrs[0], s.Warnings)
	}
}

func TestPollOddKeysDoNotBreakAPoll(t *testing.T) {
	t.Parallel()
	for mode, plain := range []bool{false, true} {
		t.Run([]string{"scripted", "pipelined"}[mode], func(t *testing.T) {
			c := newCluster(t, 3, Config{MaxValueLen: 16})
			if plain {
				c = watchWithoutScripts(t, 3, Config{MaxValueLen: 16})
			}
			ctx := context.Background()
			a := c.admin[0]
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(a.HSet(ctx, "hash", "f", "v").Err())
			must(a.Expire(ctx, "hash", time.Minute).Err()) // a TTL, but not a string
			must(a.RPush(ctx, "list", "x").Err())
			must(a.SAdd(ctx, "set", "x").Err())
			must(a.ZAdd(ctx, "zset", redis.Z{Score: 1, Member: "x"}).Err())
			c.set(t, "no-ttl", "T", 0, 0)
			// Binary, with control bytes, yet lock-shaped: Redlock-cs's token is a GUID's 16 raw bytes (version 4
			// at byte 7, variant 10 at byte 8).
			binary := "\x00\xff\x1b[2J\r\x41\x9b\r\n\x07\x1b]0;"
			c.set(t, "bin", binary, time.Minute, 0, 1)
			evilName := "name\x1b]0;pwned\x07\x1b[31m\xfe"
			c.set(t, evilName, "tok", time.Minute, 0, 1, 2)
			c.set(t, "long", strings.Repeat("v", 1000), time.Minute, 0, 1)

			s := c.mon.Poll(ctx)
			if !s.Masters[0].Up || s.Masters[0].PlainReads != plain {
				t.Fatalf("master with odd keys: up %v, read with plain commands %v; want up, %v: %s", s.Masters[0].Up, s.Masters[0].PlainReads, plain, s.Masters[0].Err)
			}
			if l := lockOf(t, s, "bin"); l.Holder != binary[:min(16, len(binary))] || l.State != StateHeld {
				t.Errorf("binary value: holder %q state %s, want %q held", l.Holder, l.State, binary)
			}
			if l := lockOf(t, s, evilName); l.State != StateHeld || l.Count != 3 {
				t.Errorf("escape-sequence name: %s count %d, want held by 3", l.State, l.Count)
			}
			if l := lockOf(t, s, "long"); l.Holder != markedToken(strings.Repeat("v", 1000), 16) {
				t.Errorf("long value held by %q, want its first 16 bytes marked with its length and digest", l.Holder)
			}
			for _, name := range []string{"hash", "list", "set", "zset", "no-ttl"} {
				if slices.ContainsFunc(s.Locks, func(l *LockView) bool { return l.Resource == name }) {
					t.Errorf("%q is listed as a lock", name)
				}
			}
			// What the writers make of these keys: render's TestOddKeysWriteNoControlBytes.
		})
	}
}

func TestPollManyKeysAcrossScanPages(t *testing.T) {
	t.Parallel()
	// Embedded masters under -race are slow: clients and deadline longer than the test helpers' 500ms.
	masters := redlocktest.Masters(t, 3)
	clients := make([]*redis.Client, len(masters))
	addrs := make([]string, len(masters))
	for i, m := range masters {
		addrs[i] = m.Addr()
		clients[i] = redis.NewClient(&redis.Options{Addr: m.Addr(), ReadTimeout: 10 * time.Second, ContextTimeoutEnabled: true})
		defer clients[i].Close()
	}
	mon, err := New(clients, addrs, Config{ScanCount: 100, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 2500
	for i, a := range clients {
		pipe := a.Pipeline()
		for k := range n {
			if k%3 != i { // each key on two of three masters: held
				pipe.Set(ctx, fmt.Sprintf("res:%05d", k), "tok"+strconv.Itoa(k), time.Minute)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s := mon.Poll(ctx)
	for polls := 1; !s.Swept; polls++ { // the scan budget may spread the first sweep over several polls
		if polls > 200 {
			t.Fatalf("no full sweep after %d polls", polls)
		}
		s = mon.Poll(ctx)
	}
	if len(s.Locks) != n || s.Truncated {
		t.Fatalf("%d locks (truncated %v), want %d; warnings %v", len(s.Locks), s.Truncated, n, s.Warnings)
	}
	for k, l := range s.Locks {
		if l.Resource != fmt.Sprintf("res:%05d", k) || l.State != StateHeld || l.Holder != "tok"+strconv.Itoa(k) || l.Count != 2 {
			t.Fatalf("lock %d = %s %s %q count %d", k, l.Resource, l.State, l.Holder, l.Count)
		}
	}
	for i, m := range s.Masters {
		if want := n - (n+2-i)/3; m.Keys != want {
			t.Errorf("master %d: %d keys, want %d", i, m.Keys, want)
		}
	}
}

func TestPollTruncatesAtMaxKeys(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, Config{ScanCount: 10, MaxKeys: 50})
	ctx := context.Background()
	pipe := c.admin[0].Pipeline()
	for k := range 120 {
		pipe.Set(ctx, fmt.Sprintf("k%03d", k), "t", time.Minute)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	s := c.mon.Poll(ctx)
	if !s.Truncated || s.Masters[0].Keys != 50 || len(s.Locks) != 50 || !hasWarning(s, WarnTruncated, "") {
		t.Errorf("truncated=%v keys=%d locks=%d warnings=%v; want truncated at 50 with a warning", s.Truncated, s.Masters[0].Keys, len(s.Locks), s.Warnings)
	}
}

func TestDiscoverySpreadsASweepOverPollsAndFinishes(t *testing.T) {
	t.Parallel()
	// 20,000 ordinary keys and one lock. A budget of 0.2% of a core over a 500ms interval is 1ms of server
	// time per poll, and every key scanned is charged at least minKeyCost: a poll scans at most about 1,000
	// keys plus one SCAN step, on a fast machine as on a slow one, so the sweep needs many polls.
	servers := realServers(t, 3)
	masters := make([]redlocktest.Master, len(servers))
	for i, srv := range servers {
		masters[i] = srv
	}
	c := watch(t, masters, Config{ScanBudget: 0.002})
	ctx := context.Background()
	const n = 20000
	for _, srv := range servers {
		a := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: time.Minute})
		defer a.Close()
		pipe := a.Pipeline()
		for k := range n {
			pipe.Set(ctx, fmt.Sprintf("cache:%05d", k), "value", 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c.set(t, "orders:settle", "tok-settle-0123456789", time.Minute, 0, 1, 2)
	var s Snapshot
	polls, lastScanned := 0, int64(-1)
	for !s.Swept {
		if polls++; polls > 1000 {
			t.Fatalf("no full sweep after %d polls: %+v", polls, s.Masters[0].Sweep)
		}
		s = c.mon.Poll(ctx)
		m := s.Masters[0]
		if !m.Up { // a loaded machine may miss the deadline: that poll's reading, and its progress, are dropped
			continue
		}
		if m.Sweep.Completed == 0 {
			if m.Sweep.Scanned <= lastScanned {
				t.Fatalf("poll %d: sweep did not progress: scanned %d after %d", polls, m.Sweep.Scanned, lastScanned)
			}
			if m.Sweep.Total != n+1 || !hasWarning(s, WarnSweeping, m.Addr) {
				t.Errorf("poll %d: sweep %+v, warnings %v; want total %d and a sweeping warning", polls, m.Sweep, s.Warnings, n+1)
			}
			lastScanned = m.Sweep.Scanned
		}
		for _, e := range s.Events {
			if e.Kind == EventLockReleased || e.Kind == EventLockExpired {
				t.Errorf("poll %d: %s event while sweeping: %v", polls, e.Kind, e)
			}
		}
	}
	if polls < 10 {
		t.Errorf("a sweep of %d keys at about 1,000 a poll took %d polls, want at least 10", n, polls)
	}
	if l := lockOf(t, s, "orders:settle"); l.State != StateHeld || l.Count != 3 {
		t.Errorf("after the sweep the lock is %s on %d masters, want held on 3", l.State, l.Count)
	}
	if len(s.Locks) != 1 || hasWarning(s, WarnSweeping, "") {
		t.Errorf("after the sweep: %d locks, warnings %v; want the one lock, no sweeping warning", len(s.Locks), s.Warnings)
	}
}

func TestPollScriptsAndInfoRefusedByACL(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 1)
	ctx := context.Background()
	admin := servers[0].NewClient()
	defer admin.Close()
	if err := admin.Do(ctx, "ACL", "SETUSER", "watcher", "on", ">pw", "~*", "+@all", "-@scripting", "-info").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(ctx, "res", "tok", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	watcher := redis.NewClient(&redis.Options{Addr: servers[0].Addr(), Username: "watcher", Password: "pw", ContextTimeoutEnabled: true})
	defer watcher.Close()
	mon, err := New([]*redis.Client{watcher}, []string{servers[0].Addr()}, Config{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	for poll := range 2 {
		s := mon.Poll(ctx)
		m := s.Masters[0]
		if !m.Up || m.Role != "unknown" || m.Version != "" || m.RunID != "" || m.Uptime != UnknownUptime || m.Replicas != -1 || !m.ClockKnown {
			t.Errorf("poll %d: master %+v; want up, INFO fields unknown, clock known", poll, m)
		}
		if l := lockOf(t, s, "res"); l.Holder != "tok" {
			t.Errorf("poll %d: lock read without scripts: %+v", poll, l)
		}
		if !m.PlainReads {
			t.Errorf("poll %d: the master is not read with plain commands after EVAL was refused", poll)
		}
	}
}

// The clock tests over real time are not run in parallel with the rest: their estimates come from round
// trips, which a core shared with a dozen tests makes uneven (a 5% fast clock measured at 4.1%).

func TestPollMeasuresJumpedClock(t *testing.T) {
	e, err := redlocktest.StartEmbedded(redlocktest.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := watch(t, []redlocktest.Master{e}, Config{})
	ctx := context.Background()
	// An embedded master's TIME lags its clock by up to one clock tick (3ms) and never leads it; on a loaded
	// machine the tick can come late, so the lag allowed here is generous. The estimate itself must be within
	// its uncertainty (RTT/2) of the truth on the other side.
	const lag = 25 * time.Millisecond
	within := func(m MasterStatus, want time.Duration) bool {
		return m.ClockKnown && m.ClockOffset >= want-m.ClockUncertainty-lag && m.ClockOffset <= want+m.ClockUncertainty
	}
	if before := c.mon.Poll(ctx).Masters[0]; !within(before, 0) {
		t.Fatalf("offset before the jump %v ± %v, want about 0", before.ClockOffset, before.ClockUncertainty)
	}
	const jump = 37 * time.Second
	e.JumpClock(jump)
	if after := c.mon.Poll(ctx).Masters[0]; !within(after, jump) {
		t.Errorf("offset after a %v jump = %v ± %v", jump, after.ClockOffset, after.ClockUncertainty)
	}
}

func TestPollMeasuresClockDrift(t *testing.T) {
	es, err := redlocktest.StartEmbeddedCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	masters := make([]redlocktest.Master, len(es))
	for i, e := range es {
		defer e.Close()
		masters[i] = e
	}
	es[1].SetClockRate(1.05) // 50000 ppm fast
	c := watch(t, masters, Config{})
	c.set(t, "r", "T", time.Minute, 0, 1, 2)
	ctx := context.Background()
	var s Snapshot
	for deadline := time.Now().Add(3 * driftMinWindow); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s = c.mon.Poll(ctx); s.Masters[0].DriftKnown && s.Masters[1].DriftKnown {
			break
		}
	}
	fast, steady := s.Masters[1], s.Masters[0]
	if !fast.DriftKnown || fast.DriftPPM < 45000 || fast.DriftPPM > 55000 {
		t.Errorf("drift of a 5%% fast clock = %.0f ppm (known %v), want about 50000", fast.DriftPPM, fast.DriftKnown)
	}
	if !steady.DriftKnown || abs(time.Duration(steady.DriftPPM)) > 5000 {
		t.Errorf("drift of a steady clock = %.0f ppm (known %v), want about 0", steady.DriftPPM, steady.DriftKnown)
	}
	if !hasWarning(s, WarnClockDrift, es[1].Addr()) || hasWarning(s, WarnClockDrift, es[0].Addr()) {
		t.Errorf("want a drift warning for the fast master only: %v", s.Warnings)
	}
	if !slices.Contains(eventKinds(s.Events), EventClockWarning) {
		t.Errorf("no clock-warning event: %v", eventKinds(s.Events))
	}
}

func TestRunDeliversNewestAndStops(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, Config{Interval: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	ch := c.mon.Run(ctx)
	first := <-ch
	time.Sleep(300 * time.Millisecond) // a slow reader
	next := <-ch
	if next.Seq <= first.Seq+2 {
		t.Errorf("after a slow read got seq %d right after %d: snapshots were queued, not replaced", next.Seq, first.Seq)
	}

	c.mon.SetPaused(true)
	time.Sleep(100 * time.Millisecond)
	for len(ch) > 0 {
		<-ch
	}
	select {
	case s := <-ch:
		t.Errorf("snapshot %d delivered while paused", s.Seq)
	case <-time.After(200 * time.Millisecond):
	}
	c.mon.SetInterval(time.Hour)
	c.mon.SetPaused(false)
	select {
	case <-ch: // the next poll is due an hour after the last tick
		t.Errorf("polled at once with an hour-long interval")
	case <-time.After(150 * time.Millisecond):
	}
	c.mon.SetInterval(10 * time.Millisecond)
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
		t.Errorf("no snapshot after the interval was shortened")
	}
	cancel()
	deadline := time.After(2 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed after cancel")
		}
	}
}

func TestPollRefusedLoginIsDown(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 1)
	ctx := context.Background()
	admin := servers[0].NewClient()
	defer admin.Close()
	if err := admin.Do(ctx, "CONFIG", "SET", "requirepass", "secret").Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, password, want string }{
		{"wrong password", "nope", "WRONGPASS"},
		{"no password", "", "NOAUTH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: servers[0].Addr(), Password: tc.password, ContextTimeoutEnabled: true, MaxRetries: -1})
			defer c.Close()
			mon, err := New([]*redis.Client{c}, []string{servers[0].Addr()}, Config{Timeout: testTimeout})
			if err != nil {
				t.Fatal(err)
			}
			m := mon.Poll(ctx).Masters[0]
			if m.Up || !strings.Contains(m.Err, tc.want) {
				t.Fatalf("master with a refused login: up=%v err=%q, want down with %s", m.Up, m.Err, tc.want)
			}
		})
	}
}

func TestPollReadsANewLocksFenceInTheSnapshotThatFindsIt(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, Config{})
	c.set(t, "orders", "Zx9LmPq2Rt7Vw0Yb3Nc6Hd", 30*time.Second, 0, 1, 2)
	c.set(t, "orders"+DefaultFenceSuffix, "41", 0, 0, 1)
	c.set(t, "orders"+DefaultFenceSuffix, "40", 0, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := c.mon.Poll(ctx)
	for len(s.Locks) == 0 && ctx.Err() == nil { // up to the first snapshot that has the lock
		s = c.mon.Poll(ctx)
	}
	if len(s.Locks) != 1 || s.Locks[0].Resource != "orders" || s.Locks[0].Fence != 41 {
		t.Fatalf("locks %+v; want orders alone, with fence 41 from the snapshot that found it", s.Locks)
	}
}

// TestMaxKeysCountsDistinctKeysAcrossSweeps: the cap counts distinct lock keys, so keys found again by a
// second and third sweep do not crowd out keys below it; beyond it the keys left out are counted (issue 25).
func TestMaxKeysCountsDistinctKeysAcrossSweeps(t *testing.T) {
	t.Parallel()
	const maxKeys = 40
	for _, n := range []int{maxKeys - 1, maxKeys, maxKeys + 1, maxKeys + 15} {
		t.Run(fmt.Sprintf("%d keys", n), func(t *testing.T) {
			c := newCluster(t, 3, Config{ScanCount: 10, MaxKeys: maxKeys})
			ctx := context.Background()
			for _, a := range c.admin {
				pipe := a.Pipeline()
				for k := range n {
					pipe.Set(ctx, fmt.Sprintf("k%03d", k), fmt.Sprintf("tok%03d", k), time.Minute)
				}
				if _, err := pipe.Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			s := c.mon.Poll(ctx)
			for polls := 1; s.Masters[0].Sweep.Completed < 3; polls++ {
				if polls > 500 {
					t.Fatalf("fewer than 3 sweeps after %d polls", polls)
				}
				s = c.mon.Poll(ctx)
			}
			wantLeft := max(n-maxKeys, 0)
			if len(s.Locks) != min(n, maxKeys) || s.Truncated != (wantLeft > 0) || s.Untracked != wantLeft ||
				hasWarning(s, WarnTruncated, "") != (wantLeft > 0) {
				t.Errorf("after 3 sweeps: %d locks, truncated %v, untracked %d, warnings %v; want %d, %v, %d",
					len(s.Locks), s.Truncated, s.Untracked, s.Warnings, min(n, maxKeys), wantLeft > 0, wantLeft)
			}
		})
	}
}
