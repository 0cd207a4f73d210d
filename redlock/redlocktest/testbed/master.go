// Package testbed holds Redis masters that the demo and the tests break on
// purpose: real redis-server processes (Server), in-process miniredis masters
// with a controllable clock (Embedded), a TCP fault Proxy, a ReplyProxy that
// answers chosen commands with chosen replies, and a FencedStore that refuses
// stale fencing tokens.
//
// It is what the shipped demo runs on, so it does not import testing; the
// testing.TB helpers that start and clean up these pieces for a test live in
// redlock/redlocktest. Everything listens on free loopback ports. The package
// needs a Unix system (signals and process groups).
package testbed

import (
	"errors"
	"net"
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
	errClosed  = errors.New("testbed: master is closed")
	errStopped = errors.New("testbed: master is stopped")
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
