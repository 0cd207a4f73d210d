package testbed

import (
	"context"
	"net"
	"sync"
	"time"
)

// proxyQueueLen is how many chunks a direction of a proxied connection holds
// before the reading side stops reading (back-pressure while paused or slow).
const proxyQueueLen = 64

// proxyDialTimeout bounds the dial from the proxy to its target.
const proxyDialTimeout = time.Second

// Proxy is a TCP proxy on a loopback port that forwards to a target address
// and can inject faults: latency, a network partition, or a pause.
//
// All methods are safe for concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	ctx    context.Context // cancelled by Close; bounds dials to the target
	cancel context.CancelFunc
	wg     sync.WaitGroup // accept loop and every connection goroutine

	mu          sync.Mutex
	latency     time.Duration
	partitioned bool
	resumed     chan struct{} // nil unless paused; closed when the pause ends
	conns       map[*proxyConn]struct{}
	closed      bool
}

// proxyConn is one client connection and its connection to the target.
type proxyConn struct {
	client, server net.Conn
	done           chan struct{} // closed when the connection is cut
	once           sync.Once
}

// cut closes both sides; goroutines serving the connection then return.
func (c *proxyConn) cut() {
	c.once.Do(func() {
		close(c.done)
		c.client.Close()
		c.server.Close()
	})
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
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		target: target,
		ln:     ln,
		ctx:    ctx,
		cancel: cancel,
		conns:  map[*proxyConn]struct{}{},
	}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr returns the "127.0.0.1:PORT" address the proxy listens on.
func (p *Proxy) Addr() string {
	return p.ln.Addr().String()
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
	p.mu.Lock()
	p.partitioned = on
	var cut []*proxyConn
	if on {
		cut = p.takeConnsLocked()
	}
	p.mu.Unlock()
	for _, c := range cut {
		c.cut()
	}
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
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	cut := p.takeConnsLocked()
	p.mu.Unlock()

	p.cancel()
	err := p.ln.Close()
	for _, c := range cut {
		c.cut()
	}
	p.wg.Wait()
	return err
}

// takeConnsLocked removes and returns all tracked connections.
func (p *Proxy) takeConnsLocked() []*proxyConn {
	cs := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		cs = append(cs, c)
		delete(p.conns, c)
	}
	return cs
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		p.mu.Lock()
		closed, refuse := p.closed, p.partitioned
		if err == nil && !closed && !refuse {
			p.wg.Add(1)
		}
		p.mu.Unlock()
		switch {
		case closed:
			if err == nil {
				conn.Close()
			}
			return
		case err != nil:
			time.Sleep(10 * time.Millisecond) // such as EMFILE; try again
		case refuse:
			conn.Close()
		default:
			go p.serve(conn)
		}
	}
}

// serve dials the target for client and pumps bytes until either side
// closes or the connection is cut.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	d := net.Dialer{Timeout: proxyDialTimeout}
	server, err := d.DialContext(p.ctx, "tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	c := &proxyConn{client: client, server: server, done: make(chan struct{})}
	p.mu.Lock()
	if p.closed || p.partitioned {
		p.mu.Unlock()
		c.cut()
		return
	}
	p.conns[c] = struct{}{}
	p.wg.Add(3)
	p.mu.Unlock()

	up := make(chan chunk, proxyQueueLen)
	down := make(chan chunk, proxyQueueLen)
	go func() {
		defer p.wg.Done()
		p.read(c, client, up)
	}()
	go func() {
		defer p.wg.Done()
		p.read(c, server, down)
	}()
	go func() {
		defer p.wg.Done()
		p.write(c, server, up)
	}()
	p.write(c, client, down)

	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// read queues what src sends, stamped with the time it is due; it closes q
// when src is done so the writer can flush and then cut the connection.
func (p *Proxy) read(c *proxyConn, src net.Conn, q chan<- chunk) {
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
// paused. When the queue ends (the other side closed) or a write fails, the
// whole connection is cut.
func (p *Proxy) write(c *proxyConn, dst net.Conn, q <-chan chunk) {
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
		if _, err := dst.Write(ch.data); err != nil {
			return
		}
	}
}

// waitResumed blocks while the proxy is paused; it reports false if the
// connection was cut meanwhile.
func (p *Proxy) waitResumed(c *proxyConn) bool {
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
