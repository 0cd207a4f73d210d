package testbed

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// proxied starts a miniredis and a proxy in front of it, both closed at
// cleanup, and returns the proxy and a client that goes through it.
func proxied(t *testing.T) (*Proxy, *redis.Client) {
	t.Helper()
	mr := miniredis.RunT(t)
	p, err := NewProxy(mr.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := newClient(p.Addr(), "")
	t.Cleanup(func() { c.Close() })
	return p, c
}

func TestProxyForwards(t *testing.T) {
	p, c := proxied(t)
	if !strings.HasPrefix(p.Addr(), "127.0.0.1:") {
		t.Fatalf("Addr = %s", p.Addr())
	}
	ctx := timeout(t, 5*time.Second)
	// A value larger than one read chunk crosses intact.
	big := strings.Repeat("0123456789", 20000)
	if err := c.Set(ctx, "big", big, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(ctx, "big").Result(); err != nil || got != big {
		t.Fatalf("GET big: %d bytes, %v", len(got), err)
	}
}

func TestProxyLatency(t *testing.T) {
	p, _ := proxied(t)
	// Generous timeouts: only the delays the proxy adds are measured, on a machine however loaded.
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: 10 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	pingFor := func() time.Duration {
		t.Helper()
		start := time.Now()
		if err := c.Ping(timeout(t, 10*time.Second)).Err(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	pingFor() // connect before measuring
	const d = 150 * time.Millisecond
	p.SetLatency(d)
	// Request and reply are each delayed by d.
	if took := pingFor(); took < 2*d {
		t.Fatalf("PING with %v latency took %v, want at least %v", d, took, 2*d)
	}
	p.SetLatency(0)
	fastest := pingFor()
	for range 4 {
		fastest = min(fastest, pingFor())
	}
	if fastest >= 2*d {
		t.Fatalf("PING without latency took at least %v, five times", fastest)
	}
}

func TestProxyPartition(t *testing.T) {
	p, c := proxied(t)
	if err := ping(t, c); err != nil {
		t.Fatal(err)
	}
	p.SetPartitioned(true)
	for i := range 3 { // the cut pooled connection, then new ones
		start := time.Now()
		if err := ping(t, c); err == nil {
			t.Fatalf("PING %d through a partition succeeded", i)
		}
		if took := time.Since(start); took > 400*time.Millisecond {
			t.Fatalf("PING %d through a partition took %v, want a fast failure", i, took)
		}
	}
	p.SetPartitioned(false)
	if err := ping(t, c); err != nil {
		t.Fatalf("PING after the partition healed: %v", err)
	}
}

func TestProxyPause(t *testing.T) {
	p, c := proxied(t)
	if err := ping(t, c); err != nil {
		t.Fatal(err)
	}
	p.SetPaused(true)
	if err := c.Ping(timeout(t, 100*time.Millisecond)).Err(); err == nil {
		t.Fatal("PING answered while paused")
	}
	done := make(chan error, 1)
	go func() { done <- c.Ping(timeout(t, 2*time.Second)).Err() }()
	time.Sleep(50 * time.Millisecond)
	p.SetPaused(false)
	if err := <-done; err != nil {
		t.Fatalf("PING sent while paused, after resume: %v", err)
	}
}

func TestProxyTargetDown(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProxy(fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newClient(p.Addr(), "")
	defer c.Close()
	if err := ping(t, c); err == nil {
		t.Fatal("PING through a proxy to nothing succeeded")
	}
}

func TestProxyNoGoroutineLeak(t *testing.T) {
	mr := miniredis.RunT(t)
	base := runtime.NumGoroutine()

	p, err := NewProxy(mr.Addr())
	if err != nil {
		t.Fatal(err)
	}
	p.SetLatency(time.Millisecond)
	cs := make([]*redis.Client, 3)
	for i := range cs {
		cs[i] = newClient(p.Addr(), "")
		if err := ping(t, cs[i]); err != nil {
			t.Fatal(err)
		}
	}
	// Leave a request held by a pause.
	p.SetPaused(true)
	ctx := timeout(t, 2*time.Second)
	go cs[0].Ping(ctx)
	time.Sleep(20 * time.Millisecond)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, c := range cs {
		c.Close()
	}
	if n := goroutinesSettle(base); n > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

func TestEmbeddedNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := e.NewClient()
	if err := ping(t, c); err != nil {
		t.Fatal(err)
	}
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, func() error {
		if n := runtime.NumGoroutine(); n > base {
			return fmt.Errorf("%d goroutines after Close, %d before", n, base)
		}
		return nil
	})
}
