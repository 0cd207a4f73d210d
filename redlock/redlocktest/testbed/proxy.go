package testbed

import (
	"net"
	"sync"
	"time"
)

// proxyQueueLen is how many chunks a direction of a proxied connection holds
// before the reading side stops reading (back-pressure while paused or slow).
const proxyQueueLen = 64

// Proxy is a TCP proxy on a loopback port that forwards to a target address
// and can inject faults: latency, a network partition, or a pause.
//
// All methods are safe for concurrent use.
type Proxy struct {
	relay *relay
	// beforeRequest, when set, runs before each chunk of a client's bytes is passed on to the target.
	beforeRequest func()

	mu      sync.Mutex
	latency time.Duration
	resumed chan struct{} // nil unless paused; closed when the pause ends
}

// chunk is bytes read from one side, to be written to the other at due.
type chunk struct {
	data []byte
	due  time.Time
}

// NewProxy starts a proxy on a free 127.0.0.1 port that forwards TCP
// connections to target.
func NewProxy(target string) (*Proxy, error) {
	return NewProxyOn("127.0.0.1:0", target)
}

// NewProxyOn starts a proxy listening on listen (such as "127.0.0.1:7000")
// that forwards TCP connections to target. The target is dialled once per
// accepted connection; if that fails, the accepted connection is closed.
func NewProxyOn(listen, target string) (*Proxy, error) {
	return newProxyOn(listen, target, nil)
}

// newProxyOn is NewProxyOn with a function run before each chunk of a client's bytes reaches the target.
func newProxyOn(listen, target string, beforeRequest func()) (*Proxy, error) {
	p := &Proxy{beforeRequest: beforeRequest}
	r, err := newRelay(listen, target, p.serve)
	if err != nil {
		return nil, err
	}
	p.relay = r
	r.start()
	return p, nil
}

// Addr returns the "127.0.0.1:PORT" address the proxy listens on.
func (p *Proxy) Addr() string {
	return p.relay.ln.Addr().String()
}

// SetLatency delays every chunk of bytes, in each direction, by d, so a
// request/response round trip takes at least 2*d longer. Order is preserved.
// The new latency applies to bytes read from now on; 0 turns it off.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// SetPartitioned simulates a network partition. With on, every existing
// connection is cut, and new connections are accepted and then closed at once
// (clients fail fast with EOF or a reset rather than hang; use SetPaused for a
// hang). With off, new connections work normally again.
func (p *Proxy) SetPartitioned(on bool) {
	p.relay.setRefusing(on)
}

// SetPaused with on holds all bytes in both directions, on existing and new
// connections, until SetPaused(false) releases them in order. Connections
// stay open, so clients see a server that does not answer.
func (p *Proxy) SetPaused(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case on && p.resumed == nil:
		p.resumed = make(chan struct{})
	case !on && p.resumed != nil:
		close(p.resumed)
		p.resumed = nil
	}
}

// Close stops the listener, cuts all connections and waits for every
// goroutine of the proxy to return. It is idempotent.
func (p *Proxy) Close() error {
	return p.relay.close()
}

// serve pumps bytes both ways between the pair's sides, delayed by the
// latency and held while paused, until either side closes or the pair is cut.
func (p *Proxy) serve(c *pair) {
	up := make(chan chunk, proxyQueueLen)
	down := make(chan chunk, proxyQueueLen)
	p.relay.wg.Add(3)
	go func() {
		defer p.relay.wg.Done()
		p.read(c, c.client, up)
	}()
	go func() {
		defer p.relay.wg.Done()
		p.read(c, c.server, down)
	}()
	go func() {
		defer p.relay.wg.Done()
		p.write(c, c.server, up, p.beforeRequest)
	}()
	p.write(c, c.client, down, nil)
}

// read queues what src sends, stamped with the time it is due; it closes q
// when src is done so the writer can flush and then cut the connection.
func (p *Proxy) read(c *pair, src net.Conn, q chan<- chunk) {
	defer close(q)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			due := time.Now().Add(p.latency)
			p.mu.Unlock()
			select {
			case q <- chunk{data: append([]byte(nil), buf[:n]...), due: due}:
			case <-c.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// write sends queued chunks to dst once they are due and the proxy is not
// paused, running before (when set) ahead of each. When the queue ends (the
// other side closed) or a write fails, the whole connection is cut.
func (p *Proxy) write(c *pair, dst net.Conn, q <-chan chunk, before func()) {
	defer c.cut()
	for ch := range q {
		if wait := time.Until(ch.due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-c.done:
				t.Stop()
				return
			}
		}
		if !p.waitResumed(c) {
			return
		}
		if before != nil {
			before()
		}
		if _, err := dst.Write(ch.data); err != nil {
			return
		}
	}
}

// waitResumed blocks while the proxy is paused; it reports false if the
// connection was cut meanwhile.
func (p *Proxy) waitResumed(c *pair) bool {
	for {
		p.mu.Lock()
		resumed := p.resumed
		p.mu.Unlock()
		if resumed == nil {
			return true
		}
		select {
		case <-resumed:
		case <-c.done:
			return false
		}
	}
}
