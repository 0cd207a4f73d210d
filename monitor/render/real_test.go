package render

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The writers over snapshots of real redis-server masters: what the keys real servers hold become in the
// table, the report and the JSON.

// realWatch is a monitor on real masters, with an admin client of each for the test's own writes.
type realWatch struct {
	mon   *monitor.Monitor
	admin []*redis.Client
}

// watchReal starts n real redis-server masters and a monitor with cfg on them, reading as the user of
// clientOpts' Username when given (set up by setUser on each before the monitor starts); all is closed by
// t.Cleanup. Without redis-server the test is skipped, or fails under REDLOCK_TEST_REDIS=required.
func watchReal(t *testing.T, n int, cfg monitor.Config, user ...string) *realWatch {
	t.Helper()
	servers := redlocktest.RealServers(t, n, redlocktest.ServerOptions{})
	w := &realWatch{}
	clients := make([]*redis.Client, n)
	addrs := make([]string, n)
	for i, srv := range servers {
		admin := srv.NewClient()
		t.Cleanup(func() { _ = admin.Close() })
		w.admin = append(w.admin, admin)
		opts := &redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, ReadTimeout: 5 * time.Second}
		if len(user) > 0 {
			args := []any{"ACL", "SETUSER", "reader", "on", ">pw", "~*", "&*"}
			for _, rule := range user {
				args = append(args, rule)
			}
			if err := admin.Do(context.Background(), args...).Err(); err != nil {
				t.Fatal(err)
			}
			opts.Username, opts.Password = "reader", "pw"
		}
		clients[i] = redis.NewClient(opts)
		t.Cleanup(func() { _ = clients[i].Close() })
		addrs[i] = srv.Addr()
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	mon, err := monitor.New(clients, addrs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Close() })
	w.mon = mon
	return w
}

// set puts key=value with ttl (0: no TTL) on the masters at the given indexes.
func (w *realWatch) set(t *testing.T, key, value string, ttl time.Duration, on ...int) {
	t.Helper()
	for _, i := range on {
		if err := w.admin[i].Set(context.Background(), key, value, ttl).Err(); err != nil {
			t.Fatalf("SET %q on master %d: %v", key, i, err)
		}
	}
}

// pollUntil polls until ok holds of a snapshot, for up to limit.
func (w *realWatch) pollUntil(t *testing.T, limit time.Duration, what string, ok func(monitor.Snapshot) bool) monitor.Snapshot {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) {
		if s := w.mon.Poll(context.Background()); ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", limit, what)
		}
	}
}

// TestOddKeysWriteNoControlBytes holds keys of every odd kind on three real masters (binary values, a name
// with escape sequences, a long value) and reads them with scripts and with plain commands (a user the ACL
// refuses scripts): the table carries no control byte, and the JSON is valid.
func TestOddKeysWriteNoControlBytes(t *testing.T) {
	t.Parallel()
	for mode, rules := range [][]string{{"+@all"}, {"+@all", "-@scripting"}} {
		t.Run([]string{"scripted", "pipelined"}[mode], func(t *testing.T) {
			t.Parallel()
			w := watchReal(t, 3, monitor.Config{MaxValueLen: 16}, rules...)
			ctx := context.Background()
			if err := w.admin[0].HSet(ctx, "hash", "f", "v").Err(); err != nil {
				t.Fatal(err)
			}
			w.set(t, "no-ttl", "T", 0, 0)
			w.set(t, "bin", "\x00\xff\x1b[2J\r\x41\x9b\r\n\x07\x1b]0;", time.Minute, 0, 1)
			w.set(t, "name\x1b]0;pwned\x07\x1b[31m\xfe", "tok", time.Minute, 0, 1, 2)
			w.set(t, "long", strings.Repeat("v", 1000), time.Minute, 0, 1)
			s := w.mon.Poll(ctx)
			if m := s.Masters[0]; !m.Up || m.PlainReads != (mode == 1) {
				t.Fatalf("master with odd keys: up %v, read with plain commands %v: %s", m.Up, m.PlainReads, m.Err)
			}
			if len(s.Locks) < 3 {
				t.Fatalf("%d locks read; want bin, the escape-sequence name and long at least", len(s.Locks))
			}
			var buf bytes.Buffer
			if err := WriteTable(&buf, s); err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(buf.String(), "\x1b\x07\x00") {
				t.Errorf("table carries control bytes:\n%q", buf.String())
			}
			buf.Reset()
			if err := WriteJSON(&buf, s); err != nil || !json.Valid(buf.Bytes()) {
				t.Errorf("JSON invalid (%v):\n%s", err, buf.String())
			}
		})
	}
}

// TestALockStoredAsItsExpiryIsWrittenWithoutAHolder: a client that stores its expiry in Unix milliseconds
// under lock.<name>, on three real masters: the table and the report say its holder is unknown and its value
// an expiry, never the value as a token, and the JSON gives its value_time.
func TestALockStoredAsItsExpiryIsWrittenWithoutAHolder(t *testing.T) {
	t.Parallel()
	w := watchReal(t, 3, monitor.Config{})
	expiry := time.Now().Add(30 * time.Second)
	stamp := strconv.FormatInt(expiry.UnixMilli(), 10)
	w.set(t, "lock.orders", stamp, 30*time.Second, 0, 1, 2)
	s := w.pollUntil(t, 20*time.Second, "lock.orders held, its value a time", func(s monitor.Snapshot) bool {
		l := s.Lock("lock.orders")
		return l != nil && l.State == monitor.StateHeld && !l.ValueTime.IsZero()
	})
	var table, report, js bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(&report, s, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"table": table.String(), "report": report.String()} {
		if !strings.Contains(out, "unknown (its value: expires at ") || strings.Contains(out, "| "+stamp[:7]) {
			t.Errorf("the %s does not say lock.orders' holder is unknown and its value an expiry:\n%s", what, out)
		}
	}
	var doc struct {
		Locks []struct {
			Resource  string     `json:"resource"`
			ValueTime *time.Time `json:"value_time"`
		} `json:"locks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(doc.Locks, func(l struct {
		Resource  string     `json:"resource"`
		ValueTime *time.Time `json:"value_time"`
	}) bool {
		return l.Resource == "lock.orders"
	})
	if want := s.Lock("lock.orders").ValueTime; i < 0 || doc.Locks[i].ValueTime == nil || !doc.Locks[i].ValueTime.Equal(want) {
		t.Errorf("the JSON's value_time of lock.orders: %+v, want %v", doc.Locks, want)
	}
}

// TestKeysLeftOutAreCountedInTheJSONAndTheTable: a real master that is also a cache (3,000 JSON documents with
// an hour's TTL) beside one lock: the JSON counts the keys left out as not lock-shaped, and so does the
// table's first line.
func TestKeysLeftOutAreCountedInTheJSONAndTheTable(t *testing.T) {
	t.Parallel()
	w := watchReal(t, 1, monitor.Config{ScanBudget: 1})
	ctx := context.Background()
	const cached = 3000
	pipe := w.admin[0].Pipeline()
	for i := range cached {
		doc, _ := json.Marshal(map[string]any{"id": i, "name": "product " + strconv.Itoa(i), "price": 9.5})
		pipe.Set(ctx, "cache:product:"+strconv.Itoa(i), doc, time.Hour)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	w.set(t, "orders:settle", "Zk3q9V2mXc7LbR1tYw8sNa", time.Minute, 0)
	s := w.pollUntil(t, 30*time.Second, "a full sweep with the lock", func(s monitor.Snapshot) bool {
		return s.Swept && s.Lock("orders:settle") != nil
	})
	if n := s.NotLockShaped(); n != cached || len(s.Locks) != 1 {
		t.Fatalf("%d locks, %d keys not lock-shaped; want 1 and %d", len(s.Locks), n, cached)
	}
	var out strings.Builder
	if err := WriteJSON(&out, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"not_lock_shaped": `+strconv.Itoa(cached)) {
		t.Errorf("the JSON snapshot does not count the keys left out:\n%.2000s", out.String())
	}
	out.Reset()
	if err := WriteTable(&out, s); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(out.String(), "\n"); !strings.Contains(head, "1 lock (and 3,000 keys not lock-shaped)") {
		t.Errorf("table header %q does not count the keys left out", head)
	}
}

// TestTheJSONNamesEachLocksFamily: locks whose keys and tokens are redis-py's (a UUID1 in hex, plain and under
// django-redis's key) on three real masters are written in the JSON with the family the monitor named.
func TestTheJSONNamesEachLocksFamily(t *testing.T) {
	t.Parallel()
	w := watchReal(t, 3, monitor.Config{})
	tokens := map[string]string{"jobs:nightly": "5f1c2e8a8c3b11efb3e60242ac120002", ":1:report": "6a2d3f9b8c3b11efb3e60242ac120002"}
	for key, token := range tokens {
		w.set(t, key, token, time.Minute, 0, 1, 2)
	}
	s := w.pollUntil(t, 20*time.Second, "both locks held", func(s monitor.Snapshot) bool {
		a, b := s.Lock("jobs:nightly"), s.Lock(":1:report")
		return s.Swept && a != nil && a.State == monitor.StateHeld && b != nil && b.State == monitor.StateHeld
	})
	var js strings.Builder
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	for key := range tokens {
		family := s.Lock(key).Family
		if want, _ := json.Marshal(family); family == "" || !strings.Contains(js.String(), `"family": `+string(want)) {
			t.Errorf("the JSON snapshot does not name %s's family %q", key, family)
		}
	}
}
