package redlock

import (
	"context"
	"net"
	"sync"
	"time"
)

// connSet tracks a node's network connections so that closing the node can
// interrupt I/O that would otherwise wait for a master that does not answer
// (a paused master during a connection's handshake, or a client whose reads
// have no deadline).
type connSet struct {
	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool
}

// trackedConn is a connection of a connSet; closing it leaves the set.
type trackedConn struct {
	net.Conn
	set *connSet
}

func (c *trackedConn) Close() error {
	c.set.mu.Lock()
	delete(c.set.conns, c)
	c.set.mu.Unlock()
	return c.Conn.Close()
}

// dialer wraps dial so that the connections it makes join the set.
func (s *connSet) dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error),
) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			_ = conn.Close()
			return nil, errClosed
		}
		t := &trackedConn{Conn: conn, set: s}
		if s.conns == nil {
			s.conns = make(map[*trackedConn]struct{})
		}
		s.conns[t] = struct{}{}
		return t, nil
	}
}

// interrupt makes every pending and future read and write on the set's
// connections fail at once, and refuses new ones.
func (s *connSet) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.conns {
		_ = c.SetDeadline(time.Unix(1, 0))
	}
}
