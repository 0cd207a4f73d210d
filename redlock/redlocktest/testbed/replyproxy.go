package testbed

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Limits of the RESP reader, as redis-server's own: a line (simple string,
// error, inline command, length) and a bulk string.
const (
	respMaxLine = 1 << 20
	respMaxBulk = 512 << 20
	respMaxNest = 128
	respBufSize = 32 << 10
)

// errProtocol is wrapped by every RESP syntax error. Its text is redis-server's own ("-ERR Protocol error: …"),
// which the proxy answers as redis-server does.
//
//lint:ignore ST1005 the text is redis-server's reply, capital and all, not a Go error to be wrapped.
var errProtocol = errors.New("Protocol error")

// ReplyProxy is a RESP-aware proxy on a loopback port in front of a Redis
// server. It forwards requests and passes replies back in request order
// (also when clients pipeline), except for commands given a Fault with Set:
// those get the fault's reply, no reply, or a closed connection instead.
// Out-of-band RESP3 pushes from the server are passed straight on.
//
// Pub/Sub and other modes where replies do not answer requests one for one
// are not supported. All methods are safe for concurrent use.
type ReplyProxy struct {
	relay *relay

	mu    sync.Mutex
	rules map[string]Fault // by upper-case command name
	hits  map[string]int
}

// faultKind is what a Fault does; the zero kind forwards normally.
type faultKind uint8

const (
	forward        faultKind = iota // pass the request on and its reply back
	answer                          // answer reply instead of the server
	answerAndClose                  // write reply (maybe nothing), then close
	hang                            // answer nothing on the connection again
	closeAfter                      // let the server run it, drop the reply, close
)

// Fault is what a ReplyProxy does with a request instead of forwarding it
// normally. The zero Fault forwards normally.
type Fault struct {
	kind  faultKind
	reply string
}

// ErrorReply is a Fault that does not forward the request and answers the
// error reply "-"+msg+"\r\n", such as ErrorReply("READONLY You can't write
// against a read only replica."). Line breaks in msg become spaces.
func ErrorReply(msg string) Fault {
	msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	return Fault{kind: answer, reply: "-" + msg + "\r\n"}
}

// RawReply is a Fault that does not forward the request and answers resp,
// which should be one complete RESP reply, such as ":1\r\n" (an integer
// where SET answers a status).
func RawReply(resp string) Fault {
	return Fault{kind: answer, reply: resp}
}

// TruncatedReply is a Fault that does not forward the request, writes resp
// (the start of a reply, such as "$5\r\nOK"), then closes the connection.
func TruncatedReply(resp string) Fault {
	return Fault{kind: answerAndClose, reply: resp}
}

// NoReply is a Fault that does not forward the request and never answers:
// the connection stays open, and later requests on it are neither forwarded
// nor answered, as with a server that hangs.
var NoReply = Fault{kind: hang}

// CloseBeforeReply is a Fault that does not forward the request and closes
// the connection in its place. Later requests on it are not forwarded.
var CloseBeforeReply = Fault{kind: answerAndClose}

// CloseAfterReply is a Fault that forwards the request, waits until the
// server has answered it (so it ran), and then closes the connection instead
// of passing the reply on. Later requests on it are not forwarded.
var CloseAfterReply = Fault{kind: closeAfter}

// NewReplyProxy starts a ReplyProxy on a free 127.0.0.1 port that forwards
// to the Redis server at target. The target is dialled once per accepted
// connection; if that fails, the accepted connection is closed.
func NewReplyProxy(target string) (*ReplyProxy, error) {
	p := &ReplyProxy{rules: map[string]Fault{}, hits: map[string]int{}}
	r, err := newRelay("127.0.0.1:0", target, p.serve)
	if err != nil {
		return nil, err
	}
	p.relay = r
	r.start()
	return p, nil
}

// Addr returns the "127.0.0.1:PORT" address the proxy listens on.
func (p *ReplyProxy) Addr() string {
	return p.relay.ln.Addr().String()
}

// Set gives f to every request from now on whose command name (its first
// element, compared case-insensitively) is command, on new and existing
// connections. Set with the zero Fault forwards command normally again.
func (p *ReplyProxy) Set(command string, f Fault) {
	name := strings.ToUpper(command)
	p.mu.Lock()
	defer p.mu.Unlock()
	if f == (Fault{}) {
		delete(p.rules, name)
		return
	}
	p.rules[name] = f
}

// Clear removes every Fault given with Set: all requests are forwarded
// normally again. Hits are kept.
func (p *ReplyProxy) Clear() {
	p.mu.Lock()
	clear(p.rules)
	p.mu.Unlock()
}

// Hits returns how many requests named command (case-insensitive) were
// given a Fault since the proxy started.
func (p *ReplyProxy) Hits(command string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[strings.ToUpper(command)]
}

// Close stops the listener, closes every connection and waits for every
// goroutine of the proxy to return. It is idempotent.
func (p *ReplyProxy) Close() error {
	return p.relay.close()
}

// match returns the Fault for a request named name (upper case), counting
// a hit if there is one.
func (p *ReplyProxy) match(name string) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.rules[name]
	if ok {
		p.hits[name]++
	}
	return f
}

// replyConn is one client connection, its connection to the target, and
// the queue of what the client gets back, one entry per request in order.
type replyConn struct {
	*pair

	mu     sync.Mutex
	queue  []Fault       // forward: the server's next reply; else injected
	ended  bool          // no more entries will be queued
	queued chan struct{} // signalled (capacity 1) when queue or ended changes
}

// push queues f for the writer.
func (c *replyConn) push(f Fault) {
	c.mu.Lock()
	c.queue = append(c.queue, f)
	c.mu.Unlock()
	c.signal()
}

// end tells the writer that nothing more will be queued.
func (c *replyConn) end() {
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	c.signal()
}

func (c *replyConn) signal() {
	select {
	case c.queued <- struct{}{}:
	default:
	}
}

// next waits for the next entry; it reports false once the queue has ended
// and is empty, or the connection was cut.
func (c *replyConn) next() (Fault, bool) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			f := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return f, true
		}
		ended := c.ended
		c.mu.Unlock()
		if ended {
			return Fault{}, false
		}
		select {
		case <-c.queued:
		case <-c.done:
			return Fault{}, false
		}
	}
}

// serve reads the client's requests (readRequests) while a second goroutine
// writes the replies (writeReplies), until the connection is cut.
func (p *ReplyProxy) serve(pc *pair) {
	c := &replyConn{pair: pc, queued: make(chan struct{}, 1)}
	written := make(chan struct{})
	p.relay.wg.Add(1)
	go func() {
		defer p.relay.wg.Done()
		defer close(written)
		c.writeReplies()
	}()
	p.readRequests(c)
	<-written
}

// readRequests parses the client's requests, forwards those without a
// Fault and queues one entry per request for writeReplies. It returns after
// a closing Fault (writeReplies then closes the connection in its place),
// or cuts the connection when the client closes it or a write to the server
// fails.
func (p *ReplyProxy) readRequests(c *replyConn) {
	defer c.end()
	cr := bufio.NewReaderSize(c.client, respBufSize)
	sw := bufio.NewWriterSize(c.server, respBufSize)
	var raw []byte
	for {
		var name string
		var err error
		raw, name, err = readRequest(cr, raw[:0])
		if errors.Is(err, errProtocol) {
			// As redis-server does: answer the error, then close.
			sw.Flush()
			c.push(Fault{kind: answerAndClose, reply: "-ERR " + err.Error() + "\r\n"})
			return
		}
		if err != nil {
			c.cut()
			return
		}
		if name == "" {
			continue // an empty request; redis-server ignores it too
		}
		f := p.match(name)
		if f.kind == forward || f.kind == closeAfter {
			if _, err := sw.Write(raw); err != nil {
				c.cut()
				return
			}
		}
		c.push(f)
		// Forward in batches: flush once the client has nothing more
		// buffered, and before forwarding stops.
		stop := f.kind == answerAndClose || f.kind == closeAfter || f.kind == hang
		if cr.Buffered() == 0 || stop {
			if err := sw.Flush(); err != nil {
				c.cut()
				return
			}
		}
		if f.kind == hang {
			io.Copy(io.Discard, cr) // until the client or the proxy closes
			c.cut()
		}
		if stop {
			return
		}
	}
}

// writeReplies walks the queue: for each forwarded request it passes the
// server's next reply to the client, for each Fault it does what the Fault
// says. It cuts the connection when done.
func (c *replyConn) writeReplies() {
	defer c.cut()
	sr := bufio.NewReaderSize(c.server, respBufSize)
	var buf []byte
	for {
		f, ok := c.next()
		if !ok {
			return
		}
		switch f.kind {
		case forward, closeAfter:
			var err error
			buf, err = c.serverReply(sr, buf[:0])
			if err != nil || f.kind == closeAfter {
				return
			}
			if _, err := c.client.Write(buf); err != nil {
				return
			}
		case answer:
			if _, err := io.WriteString(c.client, f.reply); err != nil {
				return
			}
		case answerAndClose:
			io.WriteString(c.client, f.reply)
			return
		case hang:
			<-c.done
			return
		}
	}
}

// serverReply reads the server's next reply into buf, writing any pushes
// that come first straight to the client.
func (c *replyConn) serverReply(sr *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		reply, push, err := readReply(sr, buf[:0])
		if err != nil || !push {
			return reply, err
		}
		if _, err := c.client.Write(reply); err != nil {
			return reply, err
		}
		buf = reply
	}
}

// readRequest appends one request read from r to dst and returns it with
// its command name in upper case. A request is a RESP array of bulk strings
// or an inline command (a line of words). An empty request (an empty line,
// or an array of no elements) has the name "" and gets no reply from Redis.
func readRequest(r *bufio.Reader, dst []byte) ([]byte, string, error) {
	b, err := r.Peek(1)
	if err != nil {
		return dst, "", err
	}
	if b[0] != '*' {
		dst, line, err := readLine(r, dst)
		if err != nil {
			return dst, "", err
		}
		words := bytes.Fields(line)
		if len(words) == 0 {
			return dst, "", nil
		}
		return dst, strings.ToUpper(string(words[0])), nil
	}
	dst, n, err := readHeader(r, dst)
	if err != nil || n <= 0 {
		return dst, "", err
	}
	var name string
	for i := range n {
		b, err := r.Peek(1)
		if err == nil && b[0] != '$' {
			err = fmt.Errorf("%w: expected '$', got %q", errProtocol, b[0])
		}
		var size int
		if err == nil {
			dst, size, err = readBulk(r, dst)
		}
		if err == nil && size < 0 {
			err = fmt.Errorf("%w: null bulk string in a request", errProtocol)
		}
		if err != nil {
			return dst, "", unexpectedEOF(err, true)
		}
		if i == 0 {
			name = strings.ToUpper(string(dst[len(dst)-size-2 : len(dst)-2]))
		}
	}
	return dst, name, nil
}

// readReply appends one complete reply read from r to dst, including any
// attributes before it, and reports whether it is an out-of-band push.
// Every RESP2 and RESP3 type is understood except streamed strings and
// aggregates (which Redis does not send).
func readReply(r *bufio.Reader, dst []byte) ([]byte, bool, error) {
	start := len(dst)
	dst, typ, err := readValue(r, dst, 0)
	return dst, typ == '>', unexpectedEOF(err, len(dst) > start)
}

// readValue appends one value read from r to dst and returns its type;
// attributes before the value are appended too.
func readValue(r *bufio.Reader, dst []byte, depth int) ([]byte, byte, error) {
	if depth > respMaxNest {
		return dst, 0, fmt.Errorf("%w: nested too deep", errProtocol)
	}
	for {
		b, err := r.Peek(1)
		if err != nil {
			return dst, 0, err
		}
		typ := b[0]
		switch typ {
		case '+', '-', ':', '_', ',', '#', '(':
			dst, _, err = readLine(r, dst)
			return dst, typ, err
		case '$', '!', '=':
			dst, _, err = readBulk(r, dst)
			return dst, typ, err
		case '*', '~', '>', '%', '|':
			var n int
			if dst, n, err = readHeader(r, dst); err != nil {
				return dst, typ, err
			}
			if typ == '%' || typ == '|' {
				n *= 2 // maps and attributes count pairs
			}
			for range n {
				if dst, _, err = readValue(r, dst, depth+1); err != nil {
					return dst, typ, err
				}
			}
			if typ != '|' {
				return dst, typ, nil
			}
			// An attribute annotates the value that follows it.
		default:
			return dst, typ, fmt.Errorf("%w: unknown type '%c'", errProtocol, typ)
		}
	}
}

// readBulk appends a bulk string ($, or the RESP3 ! and =) read from r to
// dst and returns its length; -1 is a null, without data.
func readBulk(r *bufio.Reader, dst []byte) ([]byte, int, error) {
	dst, n, err := readHeader(r, dst)
	if err != nil || n < 0 {
		return dst, n, err
	}
	if n > respMaxBulk {
		return dst, n, fmt.Errorf("%w: bulk length %d", errProtocol, n)
	}
	start := len(dst)
	dst = append(dst, make([]byte, n+2)...)
	if _, err := io.ReadFull(r, dst[start:]); err != nil {
		return dst[:start], n, err
	}
	if !bytes.HasSuffix(dst, []byte("\r\n")) {
		return dst, n, fmt.Errorf("%w: bulk string not followed by CRLF", errProtocol)
	}
	return dst, n, nil
}

// readHeader appends a line such as "*3\r\n" read from r to dst and returns
// its length, which is -1 or more.
func readHeader(r *bufio.Reader, dst []byte) ([]byte, int, error) {
	dst, line, err := readLine(r, dst)
	if err != nil {
		return dst, 0, err
	}
	if len(line) < 2 || line[len(line)-1] != '\r' {
		return dst, 0, fmt.Errorf("%w: bad header %q", errProtocol, line)
	}
	n, err := strconv.Atoi(string(line[1 : len(line)-1]))
	if err != nil || n < -1 {
		return dst, 0, fmt.Errorf("%w: bad length %q", errProtocol, line)
	}
	return dst, n, nil
}

// readLine appends a line read from r, with its "\n", to dst and returns
// the line without the "\n". Lines are limited to respMaxLine bytes.
func readLine(r *bufio.Reader, dst []byte) ([]byte, []byte, error) {
	start := len(dst)
	for {
		frag, err := r.ReadSlice('\n')
		dst = append(dst, frag...)
		switch {
		case len(dst)-start > respMaxLine:
			return dst, nil, fmt.Errorf("%w: line longer than %d bytes", errProtocol, respMaxLine)
		case err == nil:
			return dst, dst[start : len(dst)-1], nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return dst, nil, unexpectedEOF(err, len(dst) > start)
		}
	}
}

// unexpectedEOF turns io.EOF into io.ErrUnexpectedEOF when started reports
// that part of a value was read.
func unexpectedEOF(err error, started bool) error {
	if started && err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
