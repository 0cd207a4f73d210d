// Package redlocktest starts Redis masters for tests that break them on
// purpose, on the net/http/httptest model: everything listens on free
// loopback ports, and the testing.TB helpers (StartServers, RealServers,
// Masters, Clients, WithProxy, WithReplyProxy) release what they start with
// tb.Cleanup.
//
// The masters and faults themselves (real redis-server processes, embedded
// miniredis masters with a controllable clock, the fault Proxy, the
// ReplyProxy that answers chosen commands with chosen replies, the
// FencedStore) are the demo's runtime too, and live in a package that does
// not import testing; this package names them as its own.
package redlocktest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// The masters, faults and store, as testbed defines them.
type (
	// Master is one Redis master that a test or the demo can break on purpose.
	Master = testbed.Master
	// Server is a real redis-server process on a loopback port.
	Server = testbed.Server
	// ServerOptions configures a Server.
	ServerOptions = testbed.ServerOptions
	// Embedded is an in-process master with a controllable clock.
	Embedded = testbed.Embedded
	// EmbeddedOptions configures an Embedded master.
	EmbeddedOptions = testbed.EmbeddedOptions
	// Proxy is a TCP proxy that injects latency, partitions and pauses.
	Proxy = testbed.Proxy
	// ReplyProxy is a RESP-aware proxy that answers chosen commands with chosen replies.
	ReplyProxy = testbed.ReplyProxy
	// Fault is what a ReplyProxy does with a command instead of forwarding it.
	Fault = testbed.Fault
	// FencedStore is a storage that refuses writes with stale fencing tokens.
	FencedStore = testbed.FencedStore
	// StoreWrite is one write a FencedStore accepted or refused.
	StoreWrite = testbed.StoreWrite
	// StaleTokenError is a FencedStore's refusal of a stale token.
	StaleTokenError = testbed.StaleTokenError
	// SentinelGroup is a primary, its replicas and the Sentinels that watch them.
	SentinelGroup = testbed.SentinelGroup
	// SentinelOptions configures a SentinelGroup.
	SentinelOptions = testbed.SentinelOptions
)

// SoakEnv names the environment variable that gives soak tests their full length (see Soak).
const SoakEnv = testbed.SoakEnv

// Soak returns full when REDLOCK_TEST_SOAK=full (as CI sets it), short otherwise: soak, contention and
// ground-truth tests run their full length in CI and a shorter one in a contributor's `go test ./...`.
func Soak[T any](short, full T) T { return testbed.Soak(short, full) }

// StartServer starts redis-server on a free 127.0.0.1 port (see testbed.StartServer).
func StartServer(opts ServerOptions) (*Server, error) { return testbed.StartServer(opts) }

// HaveRedisServer reports whether redis-server is on PATH.
func HaveRedisServer() bool { return testbed.HaveRedisServer() }

// StartEmbedded starts an embedded master (see testbed.StartEmbedded).
func StartEmbedded(opts EmbeddedOptions) (*Embedded, error) { return testbed.StartEmbedded(opts) }

// StartEmbeddedCluster starts n embedded masters sharing one clock.
func StartEmbeddedCluster(n int) ([]*Embedded, error) { return testbed.StartEmbeddedCluster(n) }

// NewProxy starts a fault Proxy on a free 127.0.0.1 port to target.
func NewProxy(target string) (*Proxy, error) { return testbed.NewProxy(target) }

// NewReplyProxy starts a ReplyProxy on a free 127.0.0.1 port to target.
func NewReplyProxy(target string) (*ReplyProxy, error) { return testbed.NewReplyProxy(target) }

// ErrorReply is a Fault that answers the error reply msg instead of the master.
func ErrorReply(msg string) Fault { return testbed.ErrorReply(msg) }

// RawReply is a Fault that answers the raw RESP reply resp instead of the master.
func RawReply(resp string) Fault { return testbed.RawReply(resp) }

// TruncatedReply is a Fault that writes the start of a reply, then closes the connection.
func TruncatedReply(resp string) Fault { return testbed.TruncatedReply(resp) }

// Faults that answer nothing, as testbed defines them.
var (
	NoReply          = testbed.NoReply          // never answers; the connection hangs
	CloseBeforeReply = testbed.CloseBeforeReply // closes the connection instead of forwarding
	CloseAfterReply  = testbed.CloseAfterReply  // lets the master run it, then closes instead of replying
)

// envBackend selects the backend of Masters: "required" fails tests when
// redis-server is missing, "embedded" forces embedded masters; anything else
// means redis-server when it is on PATH, embedded masters otherwise.
const envBackend = "REDLOCK_TEST_REDIS"

// Backend names reported by Backend.
const (
	backendRedisServer = "redis-server"
	backendEmbedded    = "embedded"
)

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

// StartServers starts n servers with opts, failing tb on error. tb.Cleanup
// closes all of them, also when a later one fails to start.
func StartServers(tb testing.TB, n int, opts ServerOptions) []*Server {
	tb.Helper()
	ss := make([]*Server, 0, n)
	tb.Cleanup(func() {
		for _, s := range ss {
			s.Close()
		}
	})
	for range n {
		s, err := StartServer(opts)
		if err != nil {
			tb.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

// RealServers starts n real redis-server processes with opts, for tests of
// what only a real server does (replication, ACLs, CONFIG SET). Without
// redis-server on PATH it skips tb, or fails it when REDLOCK_TEST_REDIS=required
// (as CI sets it). tb.Cleanup closes them.
func RealServers(tb testing.TB, n int, opts ServerOptions) []*Server {
	tb.Helper()
	if !HaveRedisServer() {
		if os.Getenv(envBackend) == "required" {
			tb.Fatalf("redlocktest: %s=required but redis-server is not on PATH", envBackend)
		}
		tb.Skip("redis-server is not on PATH")
	}
	return StartServers(tb, n, opts)
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

// Addrs returns the masters' addresses, in order.
func Addrs[M Master](masters []M) []string {
	addrs := make([]string, len(masters))
	for i, m := range masters {
		addrs[i] = m.Addr()
	}
	return addrs
}

// ReplicasOf makes each of replicas a read-only replica of primary, and waits until each has synced.
func ReplicasOf(tb testing.TB, primary *Server, replicas ...*Server) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range replicas {
		if err := s.ReplicaOf(ctx, primary.Addr()); err != nil {
			tb.Fatal(err)
		}
	}
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
