package testbed

import (
	"context"
	"net"
	"sync"
	"time"
)

// proxyDialTimeout bounds the dial from a proxy to its target.
const proxyDialTimeout = time.Second

// relay is what both proxies are made of: a listener on a loopback port that pairs each connection it
// accepts with a new connection to the target and has serve pump between them until the pair is cut, and a
// close that cuts every pair and waits for every goroutine serving them. While refusing (a partition), it
// closes what it accepts at once.
type relay struct {
	target string
	ln     net.Listener
	ctx    context.Context // cancelled by close; bounds dials to the target
	cancel context.CancelFunc
	wg     sync.WaitGroup // the accept loop and every goroutine serving a pair; serve adds its own
	serve  func(*pair)    // serves a pair until it is cut or either side closes

	mu       sync.Mutex
	pairs    map[*pair]struct{}
	refusing bool
	closed   bool
}

// pair is one client connection and its connection to the target.
type pair struct {
	client, server net.Conn
	done           chan struct{} // closed when the pair is cut
	once           sync.Once
}

// cut closes both sides; the goroutines serving the pair then return.
func (c *pair) cut() {
	c.once.Do(func() {
		close(c.done)
		c.client.Close()
		c.server.Close()
	})
}

// newRelay listens on listen to relay every connection to target through serve, once started.
func newRelay(listen, target string, serve func(*pair)) (*relay, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &relay{target: target, ln: ln, ctx: ctx, cancel: cancel, serve: serve, pairs: map[*pair]struct{}{}}, nil
}

// start accepts connections: the owner calls it once it holds the relay, which serve may use.
func (r *relay) start() {
	r.wg.Add(1)
	go r.acceptLoop()
}

// setRefusing starts or ends a partition: with on, every pair is cut and new connections are closed at once.
func (r *relay) setRefusing(on bool) {
	r.mu.Lock()
	r.refusing = on
	var cut []*pair
	if on {
		cut = r.takePairsLocked()
	}
	r.mu.Unlock()
	for _, c := range cut {
		c.cut()
	}
}

// close stops the listener, cuts every pair and waits for every goroutine of the relay. It is idempotent.
func (r *relay) close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	cut := r.takePairsLocked()
	r.mu.Unlock()

	r.cancel()
	err := r.ln.Close()
	for _, c := range cut {
		c.cut()
	}
	r.wg.Wait()
	return err
}

// takePairsLocked removes and returns every pair.
func (r *relay) takePairsLocked() []*pair {
	cs := make([]*pair, 0, len(r.pairs))
	for c := range r.pairs {
		cs = append(cs, c)
		delete(r.pairs, c)
	}
	return cs
}

func (r *relay) acceptLoop() {
	defer r.wg.Done()
	for {
		conn, err := r.ln.Accept()
		r.mu.Lock()
		closed, refuse := r.closed, r.refusing
		if err == nil && !closed && !refuse {
			r.wg.Add(1)
		}
		r.mu.Unlock()
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
			go r.handle(conn)
		}
	}
}

// handle dials the target for client and serves the pair until it ends.
func (r *relay) handle(client net.Conn) {
	defer r.wg.Done()
	d := net.Dialer{Timeout: proxyDialTimeout}
	server, err := d.DialContext(r.ctx, "tcp", r.target)
	if err != nil {
		client.Close()
		return
	}
	c := &pair{client: client, server: server, done: make(chan struct{})}
	r.mu.Lock()
	if r.closed || r.refusing {
		r.mu.Unlock()
		c.cut()
		return
	}
	r.pairs[c] = struct{}{}
	r.mu.Unlock()

	r.serve(c)

	r.mu.Lock()
	delete(r.pairs, c)
	r.mu.Unlock()
}
