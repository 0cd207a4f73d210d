package reading

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// testTimeout bounds each read of the tests against real servers, generous for a loaded machine.
const testTimeout = 10 * time.Second

// realMaster starts a real redis-server with args and returns it, a client of it as the monitor dials one, and
// an admin client for the test's own writes; all are closed by t.Cleanup. Without redis-server the test is
// skipped, or fails under REDLOCK_TEST_REDIS=required.
func realMaster(t *testing.T, args ...string) (*redlocktest.Server, *redis.Client, *redis.Client) {
	t.Helper()
	srv := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Args: args})[0]
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, ReadTimeout: testTimeout})
	admin := srv.NewClient()
	t.Cleanup(func() { _ = client.Close(); _ = admin.Close() })
	return srv, client, admin
}

// masterOf returns the source of the master client reaches, untracked, closed by t.Cleanup.
func masterOf(t *testing.T, client *redis.Client, addr string) *poller {
	t.Helper()
	p := NewMaster(client, addr, nil, false, time.Minute).(*poller)
	t.Cleanup(p.Close)
	return p
}

// readOnce reads p once with a deadline, as a poll does, and accepts the reading.
func readOnce(t *testing.T, p Source, cfg Config, known *KnownList) Reading {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	r := p.Read(ctx, cfg, known)
	if r.Err != nil {
		t.Fatalf("read of %s: %v", p.Name(), r.Err)
	}
	p.Accept(r)
	return r
}
