package testbed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/redis/go-redis/v9"
)

// replyServer starts a redis-server for t and returns it with a client
// straight to it; both are closed at cleanup.
func replyServer(t *testing.T) (*Server, *redis.Client) {
	t.Helper()
	requireRedisServer(t)
	s := startServers(t, 1, ServerOptions{})[0]
	return s, client(t, s)
}

// replyProxied puts a new ReplyProxy in front of m and returns it with a
// client that goes through it; both are closed at cleanup. The client has
// NewClient's settings but 5s timeouts, so that only a context deadline or
// a fault makes a command fail, however slow the machine.
func replyProxied(t *testing.T, m Master) (*ReplyProxy, *redis.Client) {
	t.Helper()
	p, addr := withReplyProxy(t, m)
	c := redis.NewClient(&redis.Options{
		Addr:                  addr,
		ContextTimeoutEnabled: true,
		DialTimeout:           5 * time.Second,
		ReadTimeout:           5 * time.Second,
		WriteTimeout:          5 * time.Second,
		MaxRetries:            -1,
		DialerRetries:         1,
	})
	t.Cleanup(func() { c.Close() })
	return p, c
}

// isTimeout reports whether err is a deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// isRedisError reports whether err is an error reply from the server.
func isRedisError(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// exists returns how many of keys exist, asked with c.
func exists(t *testing.T, c *redis.Client, keys ...string) int64 {
	t.Helper()
	n, err := c.Exists(timeout(t, 5*time.Second), keys...).Result()
	if err != nil {
		t.Fatalf("EXISTS %v: %v", keys, err)
	}
	return n
}

// resp encodes a request as a RESP array of bulk strings.
func resp(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// wire is a raw client connection, for checking the exact bytes a proxy
// sends back.
type wire struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

// dialWire connects to addr; every read and write on the connection must
// be done within 10s. The connection is closed at cleanup.
func dialWire(t *testing.T, addr string) *wire {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return &wire{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// send writes requests, which may be several pipelined ones, in one write.
func (w *wire) send(requests string) {
	w.t.Helper()
	if _, err := io.WriteString(w.conn, requests); err != nil {
		w.t.Fatalf("send %q: %v", requests, err)
	}
}

// reply reads one complete reply and reports whether it is a push.
func (w *wire) reply() (string, bool) {
	w.t.Helper()
	b, push, err := readReply(w.r, nil)
	if err != nil {
		w.t.Fatalf("reading a reply: %v (got %q)", err, b)
	}
	return string(b), push
}

// expect reads one reply per want and compares them in order.
func (w *wire) expect(want ...string) {
	w.t.Helper()
	for i, wt := range want {
		if got, _ := w.reply(); got != wt {
			w.t.Fatalf("reply %d = %q, want %q", i, got, wt)
		}
	}
}

// rest reads until the connection ends and returns what came; it fails
// the test if the connection is still open after its deadline.
func (w *wire) rest() string {
	w.t.Helper()
	var got []byte
	buf := make([]byte, 512)
	for {
		n, err := w.r.Read(buf)
		got = append(got, buf[:n]...)
		if isTimeout(err) {
			w.t.Fatalf("connection still open after %q", got)
		}
		if err != nil {
			return string(got)
		}
	}
}

func TestReadReply(t *testing.T) {
	tests := []struct {
		name, in string
		push     bool
	}{
		{"status", "+OK\r\n", false},
		{"error", "-ERR unknown command 'x'\r\n", false},
		{"integer", ":-12\r\n", false},
		{"bulk", "$5\r\nhe\r\no\r\n", false},
		{"empty bulk", "$0\r\n\r\n", false},
		{"null bulk", "$-1\r\n", false},
		{"null array", "*-1\r\n", false},
		{"empty array", "*0\r\n", false},
		{"long line", "+" + strings.Repeat("x", 100) + "\r\n", false},
		{"nested array", "*3\r\n$1\r\na\r\n*2\r\n:1\r\n*0\r\n_\r\n", false},
		{"null", "_\r\n", false},
		{"double", ",1.5e3\r\n", false},
		{"boolean", "#t\r\n", false},
		{"big number", "(3492890328409238509324850943850943825024385\r\n", false},
		{"blob error", "!21\r\nSYNTAX invalid syntax\r\n", false},
		{"verbatim", "=15\r\ntxt:Some string\r\n", false},
		{"map counts pairs", "%2\r\n+a\r\n:1\r\n+b\r\n%1\r\n+c\r\n~2\r\n#f\r\n,inf\r\n", false},
		{"set", "~2\r\n+a\r\n+b\r\n", false},
		{"attribute before reply", "|1\r\n+ttl\r\n:3\r\n$1\r\nx\r\n", false},
		{"attribute in array", "*2\r\n|1\r\n+k\r\n+v\r\n:2\r\n:3\r\n", false},
		{"push", ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n", true},
		{"attribute before push", "|0\r\n>1\r\n+x\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte per read, into the smallest buffer: every value is
			// split at every byte.
			const next = "+NEXT\r\n"
			r := bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(tt.in+next)), 16)
			got, push, err := readReply(r, []byte("kept"))
			if err != nil {
				t.Fatalf("readReply(%q): %v", tt.in, err)
			}
			if string(got) != "kept"+tt.in || push != tt.push {
				t.Fatalf("readReply(%q) = %q, push %v; want the input after \"kept\", push %v", tt.in, got, push, tt.push)
			}
			if got, _, err := readReply(r, nil); err != nil || string(got) != next {
				t.Fatalf("reply after %q = %q, %v; want %q", tt.in, got, err, next)
			}
		})
	}
}

func TestReadReplyErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"nothing", "", io.EOF},
		{"unknown type", "?x\r\n", errProtocol},
		{"no CRLF", "+OK", io.ErrUnexpectedEOF},
		{"short bulk", "$3\r\nab", io.ErrUnexpectedEOF},
		{"bulk without CRLF", "$2\r\nabcd", errProtocol},
		{"bad length", "$-2\r\n", errProtocol},
		{"not a number", "*x\r\n", errProtocol},
		{"length without CR", "*1\n:1\r\n", errProtocol},
		{"short array", "*2\r\n:1\r\n", io.ErrUnexpectedEOF},
		{"short map", "%1\r\n+a\r\n", io.ErrUnexpectedEOF},
		{"attribute without reply", "|1\r\n+a\r\n+b\r\n", io.ErrUnexpectedEOF},
		{"too deep", strings.Repeat("*1\r\n", respMaxNest+2) + ":1\r\n", errProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readReply(bufio.NewReader(strings.NewReader(tt.in)), nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("readReply(%q) error = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestReadRequest(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"array", resp("get", "k"), "GET", nil},
		{"binary argument", resp("SET", "k", "a\r\nb"), "SET", nil},
		{"inline", "ping\r\n", "PING", nil},
		{"inline LF", "echo hi\n", "ECHO", nil},
		{"empty line", " \r\n", "", nil},
		{"empty array", "*0\r\n", "", nil},
		{"null array", "*-1\r\n", "", nil},
		{"integer element", "*1\r\n:1\r\n", "", errProtocol},
		{"null element", "*1\r\n$-1\r\n", "", errProtocol},
		{"bad count", "*a\r\n", "", errProtocol},
		{"short", "*2\r\n$3\r\nGET\r\n", "", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const next = "PING\r\n"
			r := bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(tt.in+next)), 16)
			if tt.err != nil {
				r = bufio.NewReader(strings.NewReader(tt.in))
			}
			raw, name, err := readRequest(r, nil)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("readRequest(%q) error = %v, want %v", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || name != tt.want || string(raw) != tt.in {
				t.Fatalf("readRequest(%q) = %q, %q, %v; want the input, %q", tt.in, raw, name, err, tt.want)
			}
			if _, name, err := readRequest(r, nil); err != nil || name != "PING" {
				t.Fatalf("request after %q = %q, %v; want PING", tt.in, name, err)
			}
		})
	}
}

// TestReplyProxyForwards checks plain forwarding with a go-redis client
// (RESP3): commands, a large value, a pipeline and map replies.
func TestReplyProxyForwards(t *testing.T) {
	s, direct := replyServer(t)
	p, c := replyProxied(t, s)
	if !strings.HasPrefix(p.Addr(), "127.0.0.1:") || p.Addr() == s.Addr() {
		t.Fatalf("Addr = %s (server %s)", p.Addr(), s.Addr())
	}
	ctx := timeout(t, 10*time.Second)

	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET through the proxy: %v", err)
	}
	if v, err := direct.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET k on the server after SET through the proxy = %q, %v", v, err)
	}
	if _, err := c.Get(ctx, "missing").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET missing through the proxy: %v, want redis.Nil", err)
	}
	// A value larger than the proxy's buffers crosses intact.
	big := strings.Repeat("0123456789", 20000)
	if err := c.Set(ctx, "big", big, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(ctx, "big").Result(); err != nil || got != big {
		t.Fatalf("GET big: %d bytes, %v; want %d bytes", len(got), err, len(big))
	}

	// A pipeline of 100 commands gets 100 replies, in order.
	pipe := c.Pipeline()
	incrs := make([]*redis.IntCmd, 100)
	for i := range incrs {
		incrs[i] = pipe.IncrBy(ctx, fmt.Sprintf("n%d", i%10), int64(i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("pipeline of 100: %v", err)
	}
	sums := map[int]int64{}
	for i, cmd := range incrs {
		sums[i%10] += int64(i)
		if cmd.Val() != sums[i%10] {
			t.Fatalf("pipelined INCRBY %d = %d, want %d: replies out of order", i, cmd.Val(), sums[i%10])
		}
	}

	// RESP3 maps: HELLO 3 and CONFIG GET *.
	hello, err := c.Do(ctx, "HELLO", "3").Result()
	if err != nil {
		t.Fatalf("HELLO 3: %v", err)
	}
	if m, ok := hello.(map[any]any); !ok || m["server"] != "redis" || m["proto"] != int64(3) {
		t.Fatalf("HELLO 3 = %#v, want a map with server redis, proto 3", hello)
	}
	cfg, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatalf("CONFIG GET *: %v", err)
	}
	if _, ok := cfg["maxmemory"]; !ok || len(cfg) < 100 {
		t.Fatalf("CONFIG GET * gave %d parameters, maxmemory %v", len(cfg), ok)
	}
	if n := p.Hits("SET") + p.Hits("GET") + p.Hits("HELLO"); n != 0 {
		t.Fatalf("%d hits without any Fault set", n)
	}
}

// TestReplyProxyWire checks the exact bytes sent back for pipelined
// requests, inline commands, empty requests and an injected reply.
func TestReplyProxyWire(t *testing.T) {
	s, direct := replyServer(t)
	p, _ := replyProxied(t, s)
	p.Set("get", RawReply("$3\r\nxyz\r\n"))
	w := dialWire(t, p.Addr())
	w.send("PING\r\n" + "\r\n" + "*0\r\n" + resp("SET", "a", "1") + resp("GET", "x") +
		resp("set", "b", "2") + "ECHO inline\r\n" + resp("GET", "a"))
	w.expect("+PONG\r\n", "+OK\r\n", "$3\r\nxyz\r\n", "+OK\r\n", "$6\r\ninline\r\n", "$3\r\nxyz\r\n")
	if n := p.Hits("GET"); n != 2 {
		t.Fatalf("Hits(GET) = %d, want 2", n)
	}
	if n := exists(t, direct, "a", "b"); n != 2 {
		t.Fatalf("%d of keys a, b set, want both", n)
	}

	// A request that is not RESP is answered as redis-server would.
	w = dialWire(t, p.Addr())
	w.send("*1\r\n:5\r\n")
	if got, want := w.rest(), "-ERR Protocol error: expected '$', got ':'\r\n"; got != want {
		t.Fatalf("reply to a malformed request = %q, want %q and a close", got, want)
	}
}

// TestReplyProxyPipelineClose checks that a closing Fault in the middle of
// a pipeline comes after the replies before it, and that the requests after
// it never reach the server.
func TestReplyProxyPipelineClose(t *testing.T) {
	s, direct := replyServer(t)
	tests := []struct {
		name    string
		fault   Fault
		want    string // everything the client gets
		wantSet int64  // how many of the keys a, b, c are set
	}{
		{"CloseBeforeReply", CloseBeforeReply, "+OK\r\n", 1},
		{"CloseAfterReply", CloseAfterReply, "+OK\r\n", 2},
		{"TruncatedReply", TruncatedReply("+O"), "+OK\r\n+O", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := replyProxied(t, s)
			p.Set("INCR", tt.fault)
			key := func(k string) string { return tt.name + ":" + k }
			w := dialWire(t, p.Addr())
			w.send(resp("SET", key("a"), "1") + resp("INCR", key("b")) + resp("SET", key("c"), "1"))
			if got := w.rest(); got != tt.want {
				t.Fatalf("client got %q, want %q and a close", got, tt.want)
			}
			if n := exists(t, direct, key("a"), key("b"), key("c")); n != tt.wantSet {
				t.Fatalf("%d of keys a, b, c set on the server, want %d", n, tt.wantSet)
			}
			if n := p.Hits("INCR"); n != 1 {
				t.Fatalf("Hits(INCR) = %d, want 1", n)
			}
		})
	}
}

// TestReplyProxyPush checks that a RESP3 push (a client-tracking
// invalidation) is passed on and not taken for the reply to a request.
func TestReplyProxyPush(t *testing.T) {
	s, direct := replyServer(t)
	p, _ := replyProxied(t, s)
	if err := direct.Set(timeout(t, 5*time.Second), "tracked", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	w := dialWire(t, p.Addr())
	w.send(resp("HELLO", "3"))
	if hello, _ := w.reply(); !strings.HasPrefix(hello, "%") {
		t.Fatalf("HELLO 3 reply %q is not a map", hello)
	}
	w.send(resp("CLIENT", "TRACKING", "on") + resp("GET", "tracked"))
	w.expect("+OK\r\n", "$2\r\nv1\r\n")
	// Changing the key queues an invalidation push to the tracking client.
	if err := direct.Set(timeout(t, 5*time.Second), "tracked", "v2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	w.send(resp("PING"))
	got, push := w.reply()
	if !push || !strings.Contains(got, "invalidate") || !strings.Contains(got, "tracked") {
		t.Fatalf("first reply after the change = %q (push %v), want the invalidation push", got, push)
	}
	w.expect("+PONG\r\n")
}

// TestReplyProxyErrorReplies checks that an injected error reply reaches a
// go-redis client as the command's error, with the exact text, and that
// the command never reached the server.
func TestReplyProxyErrorReplies(t *testing.T) {
	s, direct := replyServer(t)
	tests := []struct {
		cmd []any
		msg string
	}{
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "READONLY You can't write against a read only replica."},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "OOM command not allowed when used memory > 'maxmemory'."},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "LOADING Redis is loading the dataset in memory"},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "NOPERM User default has no permissions to run the 'set' command"},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "MOVED 1234 127.0.0.1:7000"},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "ASK 1234 127.0.0.1:7000"},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "CLUSTERDOWN The cluster is down"},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "TRYAGAIN Multiple keys request during rehashing of slot"},
		{[]any{"SET", "k", "v", "NX", "PX", "1000"}, "ERR unknown"},
		{[]any{"GET", "k"}, "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{[]any{"EVALSHA", "0123456789012345678901234567890123456789", "1", "k"}, "NOSCRIPT No matching script. Please use EVAL."},
		{[]any{"EVAL", "return 1", "1", "k"}, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT."},
	}
	for _, tt := range tests {
		name := strings.Fields(tt.msg)[0]
		t.Run(name, func(t *testing.T) {
			p, c := replyProxied(t, s)
			p.Set(tt.cmd[0].(string), ErrorReply(tt.msg))
			_, err := c.Do(timeout(t, 5*time.Second), tt.cmd...).Result()
			if err == nil || err.Error() != tt.msg || !isRedisError(err) {
				t.Fatalf("%v = error %v (%T), want the error reply %q", tt.cmd, err, err, tt.msg)
			}
			if n := exists(t, direct, "k"); n != 0 {
				t.Fatalf("key k set on the server: the request was forwarded")
			}
			if n := p.Hits(tt.cmd[0].(string)); n != 1 {
				t.Fatalf("Hits(%s) = %d, want 1", tt.cmd[0], n)
			}
		})
	}
}

// TestReplyProxyRawReplies checks that a reply of another type than the
// command's usual one reaches a go-redis client as that type, and that the
// connection's replies stay in step afterwards.
func TestReplyProxyRawReplies(t *testing.T) {
	s, direct := replyServer(t)
	p, c := replyProxied(t, s)
	tests := []struct {
		name    string
		cmd     []any
		reply   string
		want    any
		wantErr error
	}{
		{"integer for SET", []any{"SET", "k", "v", "NX", "PX", "1000"}, ":1\r\n", int64(1), nil},
		{"true for SET", []any{"SET", "k", "v", "NX", "PX", "1000"}, "#t\r\n", true, nil},
		{"null for SET", []any{"SET", "k", "v", "NX", "PX", "1000"}, "_\r\n", nil, redis.Nil},
		{"array for SET", []any{"SET", "k", "v"}, "*2\r\n:1\r\n$2\r\nOK\r\n", []any{int64(1), "OK"}, nil},
		{"status for a script", []any{"EVAL", "return 0", "1", "k"}, "+OK\r\n", "OK", nil},
		{"double for a script", []any{"EVALSHA", "0123456789012345678901234567890123456789", "1", "k"}, ",1.5\r\n", 1.5, nil},
		{"map for GET", []any{"GET", "k"}, "%1\r\n+a\r\n:1\r\n", map[any]any{"a": int64(1)}, nil},
		{"RESP2 null for GET", []any{"GET", "k"}, "$-1\r\n", nil, redis.Nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := timeout(t, 5*time.Second)
			p.Set(tt.cmd[0].(string), RawReply(tt.reply))
			got, err := c.Do(ctx, tt.cmd...).Result()
			if !errors.Is(err, tt.wantErr) || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("%v with reply %q = %#v, %v; want %#v, %v", tt.cmd, tt.reply, got, err, tt.want, tt.wantErr)
			}
			if n := exists(t, direct, "k"); n != 0 {
				t.Fatal("key k set on the server: the request was forwarded")
			}
			p.Clear()
			if got, err := c.Echo(ctx, "in step").Result(); err != nil || got != "in step" {
				t.Fatalf("ECHO after the raw reply = %q, %v: replies out of step", got, err)
			}
		})
	}
}

// TestReplyProxyConnectionFaults checks the faults that end or hang the
// connection, each with a go-redis client: what the client sees, whether the
// command ran on the server, and that the client works again afterwards.
func TestReplyProxyConnectionFaults(t *testing.T) {
	s, direct := replyServer(t)
	const deadline = 300 * time.Millisecond
	tests := []struct {
		name        string
		fault       Fault
		wantTimeout bool // the command times out at its deadline
		wantSet     bool // SET ran on the server
	}{
		{"CloseBeforeReply", CloseBeforeReply, false, false},
		{"CloseAfterReply", CloseAfterReply, false, true},
		{"TruncatedReply status", TruncatedReply("+O"), false, false},
		{"TruncatedReply bulk", TruncatedReply("$5\r\nOK"), false, false},
		{"NoReply", NoReply, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, c := replyProxied(t, s)
			if err := c.Ping(timeout(t, 5*time.Second)).Err(); err != nil { // connect before the fault
				t.Fatal(err)
			}
			p.Set("set", tt.fault)
			key := "key:" + tt.name
			start := time.Now()
			ctx := t.Context()
			if tt.wantTimeout {
				ctx = timeout(t, deadline)
			}
			err := c.Set(ctx, key, "v", 0).Err()
			took := time.Since(start)
			switch {
			case err == nil || isRedisError(err):
				t.Fatalf("SET = %v, want a connection error", err)
			case isTimeout(err) != tt.wantTimeout:
				t.Fatalf("SET = %v after %v; timeout %v, want %v", err, took, isTimeout(err), tt.wantTimeout)
			case tt.wantTimeout && took < deadline:
				t.Fatalf("SET timed out after %v, before its deadline %v", took, deadline)
			}
			if got := exists(t, direct, key) == 1; got != tt.wantSet {
				t.Fatalf("key set on the server: %v, want %v", got, tt.wantSet)
			}
			if n := p.Hits("SET"); n != 1 {
				t.Fatalf("Hits(SET) = %d, want 1", n)
			}
			p.Clear()
			if err := c.Set(timeout(t, 5*time.Second), key, "v2", 0).Err(); err != nil {
				t.Fatalf("SET after Clear: %v", err)
			}
		})
	}
}

// TestReplyProxyPipeline checks that in a go-redis pipeline a Fault on the
// middle command leaves the commands around it their real replies, in order.
func TestReplyProxyPipeline(t *testing.T) {
	s, direct := replyServer(t)
	p, c := replyProxied(t, s)
	tests := []struct {
		name    string
		fault   Fault
		want    string
		wantErr string
	}{
		{"ErrorReply", ErrorReply("READONLY You can't write against a read only replica."), "", "READONLY You can't write against a read only replica."},
		{"RawReply", RawReply(":7\r\n"), "7", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := timeout(t, 5*time.Second)
			p.Set("GET", tt.fault)
			a, b := tt.name+":a", tt.name+":b"
			pipe := c.Pipeline()
			setA := pipe.Set(ctx, a, "1", 0)
			get := pipe.Get(ctx, "x")
			setB := pipe.Set(ctx, b, "2", 0)
			pipe.Exec(ctx)
			if v, err := setA.Result(); err != nil || v != "OK" {
				t.Errorf("SET a = %q, %v; want OK", v, err)
			}
			if v, err := setB.Result(); err != nil || v != "OK" {
				t.Errorf("SET b = %q, %v; want OK", v, err)
			}
			v, err := get.Result()
			if gotErr := fmt.Sprint(err); v != tt.want || (err != nil || tt.wantErr != "") && gotErr != tt.wantErr {
				t.Errorf("GET x = %q, %v; want %q, error %q", v, err, tt.want, tt.wantErr)
			}
			if n := exists(t, direct, a, b); n != 2 {
				t.Errorf("%d of keys a, b set on the server, want 2", n)
			}
		})
	}
}

// TestReplyProxySetClearHits checks rule matching (any case), removing one
// rule, Clear, and Hits.
func TestReplyProxySetClearHits(t *testing.T) {
	s, _ := replyServer(t)
	p, c := replyProxied(t, s)
	ctx := timeout(t, 5*time.Second)
	const msg = "ERR injected"
	p.Set("get", ErrorReply(msg))
	p.Set("ECHO", ErrorReply(msg))
	for _, name := range []string{"GET", "get", "gEt"} {
		if err := c.Do(ctx, name, "k").Err(); err == nil || err.Error() != msg {
			t.Fatalf("%s with a Fault set for get = %v, want %q", name, err, msg)
		}
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET without a Fault: %v", err)
	}
	if got := [3]int{p.Hits("GET"), p.Hits("get"), p.Hits("SET")}; got != [3]int{3, 3, 0} {
		t.Fatalf("Hits GET, get, SET = %v, want [3 3 0]", got)
	}
	p.Set("Get", Fault{})
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET after its rule was removed = %q, %v; want v", v, err)
	}
	if err := c.Echo(ctx, "x").Err(); err == nil || err.Error() != msg {
		t.Fatalf("ECHO, whose rule was kept = %v, want %q", err, msg)
	}
	p.Clear()
	if v, err := c.Echo(ctx, "x").Result(); err != nil || v != "x" {
		t.Fatalf("ECHO after Clear = %q, %v; want x", v, err)
	}
	if got := [2]int{p.Hits("GET"), p.Hits("ECHO")}; got != [2]int{3, 1} {
		t.Fatalf("Hits GET, ECHO after Clear = %v, want [3 1]: Clear keeps hits", got)
	}
}

// TestReplyProxyClose checks that Close ends every connection, also one
// hung by NoReply and one waiting on a blocking command, that it is
// idempotent, and that no goroutine is left behind.
func TestReplyProxyClose(t *testing.T) {
	s, direct := replyServer(t)
	if err := ping(t, direct); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()

	p, err := NewReplyProxy(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	p.Set("GET", NoReply)
	idle := dialWire(t, p.Addr()) // waiting for a request
	idle.send(resp("PING"))
	idle.expect("+PONG\r\n")
	hung := dialWire(t, p.Addr()) // hung by NoReply
	hung.send(resp("GET", "k"))
	eventually(t, 5*time.Second, func() error {
		if n := p.Hits("GET"); n != 1 {
			return fmt.Errorf("Hits(GET) = %d", n)
		}
		return nil
	})
	blocked := dialWire(t, p.Addr()) // waiting for the server's reply
	blocked.send(resp("BLPOP", "list", "0"))
	eventually(t, 5*time.Second, func() error {
		info, err := direct.Info(timeout(t, time.Second), "clients").Result()
		if err != nil || !strings.Contains(info, "blocked_clients:1\r\n") {
			return fmt.Errorf("BLPOP not blocked on the server: %v\n%s", err, info)
		}
		return nil
	})

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for name, w := range map[string]*wire{"idle": idle, "hung": hung, "blocked": blocked} {
		if got := w.rest(); got != "" {
			t.Errorf("%s connection got %q after Close", name, got)
		}
	}
	if n := goroutinesSettle(base); n > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}
