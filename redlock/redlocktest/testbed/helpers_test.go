package testbed

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// requireRedisServer skips t when redis-server is missing, or fails it when
// REDLOCK_TEST_REDIS=required.
func requireRedisServer(t *testing.T) {
	t.Helper()
	if HaveRedisServer() {
		return
	}
	if os.Getenv("REDLOCK_TEST_REDIS") == "required" {
		t.Fatal("redis-server is not on PATH")
	}
	t.Skip("redis-server is not on PATH")
}

// startServers starts n servers with opts, closed at cleanup.
func startServers(t *testing.T, n int, opts ServerOptions) []*Server {
	t.Helper()
	ss := make([]*Server, 0, n)
	t.Cleanup(func() {
		for _, s := range ss {
			s.Close()
		}
	})
	for range n {
		s, err := StartServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

// withReplyProxy puts a new ReplyProxy in front of m, closed at cleanup, and returns it with its address.
func withReplyProxy(t *testing.T, m Master) (*ReplyProxy, string) {
	t.Helper()
	p, err := NewReplyProxy(m.Addr())
	if err != nil {
		t.Fatalf("reply proxy for %s: %v", m.Addr(), err)
	}
	t.Cleanup(func() { p.Close() })
	return p, p.Addr()
}

// timeout returns a context that ends after d or with the test.
func timeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// client returns m.NewClient(), closed at cleanup.
func client(t *testing.T, m Master) *redis.Client {
	t.Helper()
	c := m.NewClient()
	t.Cleanup(func() { c.Close() })
	return c
}

// ping sends PING with a 1s deadline.
func ping(t *testing.T, c *redis.Client) error {
	t.Helper()
	return c.Ping(timeout(t, time.Second)).Err()
}

// eventually polls f every 10ms until it returns nil, failing t with the
// last error after limit.
func eventually(t *testing.T, limit time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing after %v: %v", limit, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testStopStart checks that Stop makes m unreachable and Start brings it
// back on the same address, with its keys kept or not.
func testStopStart(t *testing.T, m Master, keep bool) {
	t.Helper()
	c := client(t, m)
	if err := c.Set(timeout(t, time.Second), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	addr := m.Addr()
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	// The pooled connection is dead and new ones are refused.
	for i := range 2 {
		if err := ping(t, c); err == nil {
			t.Fatalf("PING %d succeeded on a stopped master", i)
		}
	}
	if err := m.Pause(); err == nil {
		t.Error("Pause of a stopped master succeeded")
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if got := m.Addr(); got != addr {
		t.Fatalf("Addr after Start = %s, want %s", got, addr)
	}
	c2 := client(t, m)
	if err := ping(t, c2); err != nil {
		t.Fatalf("PING after Start: %v", err)
	}
	// The old client recovers too, once it has dropped its dead connection.
	eventually(t, 2*time.Second, func() error { return ping(t, c) })
	n, err := c2.Exists(timeout(t, time.Second), "k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]int64{false: 0, true: 1}[keep]; n != want {
		t.Fatalf("EXISTS k after restart = %d, want %d (persistence %v)", n, want, keep)
	}
}

// testPauseResume checks that a paused master answers nothing and that
// Resume answers what was queued.
func testPauseResume(t *testing.T, m Master) {
	t.Helper()
	c := client(t, m)
	if err := c.Set(timeout(t, time.Second), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := m.Pause(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := c.Get(timeout(t, 100*time.Millisecond), "k").Err()
	if err == nil {
		t.Fatal("GET answered while paused")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("GET with a 100ms deadline took %v", d)
	}

	// A command sent while paused is answered after Resume.
	queued := make(chan error, 1)
	qc := client(t, m)
	if err := ping(t, qc); err == nil {
		t.Fatal("PING on a new connection answered while paused")
	}
	go func() {
		v, err := qc.Get(timeout(t, 5*time.Second), "k").Result()
		if err == nil && v != "v" {
			err = errUnexpected(v)
		}
		queued <- err
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-queued:
		t.Fatalf("GET answered while paused: %v", err)
	default:
	}
	if err := m.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := <-queued; err != nil {
		t.Fatalf("queued GET after Resume: %v", err)
	}
	eventually(t, 2*time.Second, func() error { return ping(t, c) })
}

type errUnexpected string

func (e errUnexpected) Error() string { return "unexpected value " + string(e) }

// goroutinesSettle waits up to 3s for the number of goroutines to fall to limit and returns it.
func goroutinesSettle(limit int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); n > limit && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}
