package redlocktest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestBackend(t *testing.T) {
	t.Setenv(envBackend, "")
	want := "embedded"
	if HaveRedisServer() {
		want = "redis-server"
	}
	if got := Backend(); got != want {
		t.Errorf("Backend() = %q, want %q", got, want)
	}
	t.Setenv(envBackend, "embedded")
	if got := Backend(); got != "embedded" {
		t.Errorf("Backend() with %s=embedded = %q", envBackend, got)
	}
	t.Setenv(envBackend, "required")
	if got := Backend(); got != "redis-server" {
		t.Errorf("Backend() with %s=required = %q", envBackend, got)
	}
}

// TestMasters runs Masters and Clients on both backends.
// requireRedisServer skips t when redis-server is missing, or fails it when REDLOCK_TEST_REDIS=required.
func requireRedisServer(t *testing.T) {
	t.Helper()
	if HaveRedisServer() {
		return
	}
	if os.Getenv(envBackend) == "required" {
		t.Fatal("redis-server is not on PATH")
	}
	t.Skip("redis-server is not on PATH")
}

func TestMasters(t *testing.T) {
	for _, backend := range []string{"redis-server", "embedded"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "redis-server" {
				requireRedisServer(t)
				t.Setenv(envBackend, "required")
			} else {
				t.Setenv(envBackend, "embedded")
			}
			ms := Masters(t, 3)
			if len(ms) != 3 {
				t.Fatalf("%d masters, want 3", len(ms))
			}
			for _, m := range ms {
				_, isServer := m.(*Server)
				if isServer != (backend == "redis-server") {
					t.Fatalf("master %T for backend %s", m, backend)
				}
			}
			cs := Clients(t, ms)
			for i, c := range cs {
				if err := c.Set(timeout(t, time.Second), "k", i, 0).Err(); err != nil {
					t.Fatalf("SET on master %d: %v", i, err)
				}
			}
			for i, c := range cs {
				if v, err := c.Get(timeout(t, time.Second), "k").Int(); err != nil || v != i {
					t.Fatalf("GET on master %d = %d, %v", i, v, err)
				}
			}
		})
	}
}

func TestWithProxy(t *testing.T) {
	m := Masters(t, 1)[0]
	p, addr := WithProxy(t, m)
	if addr != p.Addr() || addr == m.Addr() {
		t.Fatalf("proxy address %s (Addr %s, master %s)", addr, p.Addr(), m.Addr())
	}
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	if err := ping(t, c); err != nil {
		t.Fatal(err)
	}
	p.SetPartitioned(true)
	if err := ping(t, c); err == nil {
		t.Fatal("PING through a partitioned proxy succeeded")
	}
	// The master itself is still reachable directly.
	if err := ping(t, Clients(t, []Master{m})[0]); err != nil {
		t.Fatal(err)
	}
}

// timeout returns a context that ends after d or with the test.
func timeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// ping sends PING with a 1s deadline.
func ping(t *testing.T, c *redis.Client) error {
	t.Helper()
	return c.Ping(timeout(t, time.Second)).Err()
}
