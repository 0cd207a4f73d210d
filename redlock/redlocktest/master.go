// Package redlocktest starts Redis masters that tests and the demo can break
// on purpose: real redis-server processes (Server), in-process miniredis
// masters with a controllable clock (Embedded), a TCP fault Proxy, and a
// ReplyProxy that answers chosen commands with chosen replies (error replies,
// replies of the wrong type, no reply, a closed connection).
//
// Like net/http/httptest, everything listens on free loopback ports, and the
// testing.TB helpers (StartServers, RealServers, Masters, Clients, WithProxy,
// WithReplyProxy) release what they start with tb.Cleanup. The package needs a Unix system (signals and
// process groups).
package redlocktest

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Master is one Redis master that a test or the demo can break on purpose.
// Implementations are safe for concurrent use.
type Master interface {
	// Addr returns the "127.0.0.1:PORT" address clients dial; it stays the
	// same across Stop and Start.
	Addr() string
	// NewClient returns a new go-redis client for Addr with
	// ContextTimeoutEnabled, a 200ms DialTimeout, 500ms Read/WriteTimeout,
	// and no retries (MaxRetries -1, DialerRetries 1); the caller closes it.
	NewClient() *redis.Client
	// Stop crashes the master: connections are closed and the port refuses
	// new ones. Stopping a stopped master does nothing.
	Stop() error
	// Start brings a stopped master back on the same port; keys are lost
	// unless persistence was asked for. Starting a running master does
	// nothing.
	Start() error
	// Pause freezes the master (as SIGSTOP or a long GC pause would):
	// connections stay open and nothing is answered.
	Pause() error
	// Resume undoes Pause; queued commands are then answered.
	Resume() error
	// Close releases everything for good. It is idempotent.
	Close() error
}

// envBackend selects the backend of Masters: "required" fails tests when
// redis-server is missing, "embedded" forces embedded masters; anything else
// means redis-server when it is on PATH, embedded masters otherwise.
const envBackend = "REDLOCK_TEST_REDIS"

// Backend names reported by Backend.
const (
	backendRedisServer = "redis-server"
	backendEmbedded    = "embedded"
)

// rebindTimeout bounds how long Start retries when the port of a stopped
// master is briefly taken by someone else.
const rebindTimeout = time.Second

// rebind calls listen until it succeeds, fails for another reason than a
// busy port, or rebindTimeout has passed, and returns its last error.
func rebind(listen func() error, busy func(error) bool) error {
	deadline := time.Now().Add(rebindTimeout)
	for {
		err := listen()
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Client settings of NewClient: short timeouts so faults show up quickly,
// and no retries so a test sees every failure.
const (
	clientDialTimeout = 200 * time.Millisecond
	clientIOTimeout   = 500 * time.Millisecond
)

// Both kinds of master implement Master.
var (
	_ Master = (*Server)(nil)
	_ Master = (*Embedded)(nil)
)

var (
	errClosed  = errors.New("redlocktest: master is closed")
	errStopped = errors.New("redlocktest: master is stopped")
)

// newClient returns a client for addr with the package's client settings.
func newClient(addr, password string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                  addr,
		Password:              password,
		ContextTimeoutEnabled: true,
		DialTimeout:           clientDialTimeout,
		ReadTimeout:           clientIOTimeout,
		WriteTimeout:          clientIOTimeout,
		MaxRetries:            -1,
		DialerRetries:         1,
	})
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Backend reports the backend Masters uses: "redis-server" or "embedded".
// REDLOCK_TEST_REDIS=embedded forces "embedded"; with
// REDLOCK_TEST_REDIS=required it reports "redis-server" even if redis-server
// is missing (Masters then fails the test).
func Backend() string {
	switch os.Getenv(envBackend) {
	case "required":
		return backendRedisServer
	case backendEmbedded:
		return backendEmbedded
	}
	if HaveRedisServer() {
		return backendRedisServer
	}
	return backendEmbedded
}

// Masters starts n masters for a test: real redis-server processes when
// redis-server is on PATH, embedded masters otherwise. With
// REDLOCK_TEST_REDIS=required, a missing redis-server fails the test instead;
// with REDLOCK_TEST_REDIS=embedded, embedded masters are used regardless.
// tb.Cleanup closes them.
func Masters(tb testing.TB, n int) []Master {
	tb.Helper()
	ms := make([]Master, 0, n)
	if Backend() == backendRedisServer {
		if !HaveRedisServer() {
			tb.Fatalf("redlocktest: %s=required but redis-server is not on PATH", envBackend)
		}
		for _, s := range StartServers(tb, n, ServerOptions{}) {
			ms = append(ms, s)
		}
		return ms
	}
	es, err := StartEmbeddedCluster(n)
	if err != nil {
		tb.Fatalf("redlocktest: %v", err)
	}
	for _, e := range es {
		tb.Cleanup(func() { e.Close() })
		ms = append(ms, e)
	}
	return ms
}

// Clients returns one new client per master (from Master.NewClient), closed
// at tb cleanup.
func Clients(tb testing.TB, masters []Master) []*redis.Client {
	tb.Helper()
	cs := make([]*redis.Client, len(masters))
	for i, m := range masters {
		c := m.NewClient()
		tb.Cleanup(func() { c.Close() })
		cs[i] = c
	}
	return cs
}

// WithProxy puts a new Proxy in front of m and returns it with the address
// clients should dial to go through it (its Addr). tb.Cleanup closes the
// proxy. The proxy keeps pointing at m.Addr() across m's Stop and Start.
func WithProxy(tb testing.TB, m Master) (*Proxy, string) {
	tb.Helper()
	p, err := NewProxy(m.Addr())
	if err != nil {
		tb.Fatalf("redlocktest: proxy for %s: %v", m.Addr(), err)
	}
	tb.Cleanup(func() { p.Close() })
	return p, p.Addr()
}

// WithReplyProxy puts a new ReplyProxy in front of m and returns it with
// the address clients should dial to go through it (its Addr). tb.Cleanup
// closes the proxy. The proxy keeps pointing at m.Addr() across m's Stop
// and Start.
func WithReplyProxy(tb testing.TB, m Master) (*ReplyProxy, string) {
	tb.Helper()
	p, err := NewReplyProxy(m.Addr())
	if err != nil {
		tb.Fatalf("redlocktest: reply proxy for %s: %v", m.Addr(), err)
	}
	tb.Cleanup(func() { p.Close() })
	return p, p.Addr()
}
