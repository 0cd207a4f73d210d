package redlock

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Sentinel names a master by the name its Sentinels know it by. One master of a Redlock set may be a primary
// with replicas that Sentinels fail over: NewFailoverClient reaches whichever server is its primary now.
type Sentinel struct {
	MasterName string   // as in the Sentinels' "sentinel monitor NAME host port quorum"
	Addrs      []string // host:port of one or more of its Sentinels, asked in turn
	Username   string   // the Sentinels' own user, when they require one (not the master's: that is in the options)
	Password   string   // the Sentinels' own password, when they require one
}

// Name is how the master is shown: its name, "@" and its first Sentinel, e.g. "mymaster@10.0.0.1:26379".
// It never holds a password.
func (s Sentinel) Name() string {
	if len(s.Addrs) == 0 {
		return s.MasterName
	}
	return s.MasterName + "@" + s.Addrs[0]
}

// Keys are the keys under which ServerKeys knows s's master: one per Sentinel, of the master name and that
// Sentinel's ServerKey, so that two lists of Sentinels with one in common and one master name are one master
// (the Sentinels of one deployment know each other), while "mymaster" of another deployment is another.
func (s Sentinel) Keys() []string {
	keys := make([]string, len(s.Addrs))
	for i, a := range s.Addrs {
		keys[i] = "sentinel:" + s.MasterName + "@" + ServerKey(&redis.Options{Network: "tcp", Addr: a})
	}
	return keys
}

// check reports what makes s unusable.
func (s Sentinel) check() error {
	switch {
	case s.MasterName == "":
		return errors.New("redlock: a Sentinel master needs its name")
	case len(s.Addrs) == 0:
		return fmt.Errorf("redlock: master %q needs at least one Sentinel address", s.MasterName)
	}
	for _, a := range s.Addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("redlock: Sentinel address %q of %q: %v", a, s.MasterName, err)
		}
	}
	return nil
}

// ServerKeys returns every key under which the server that o's client reaches is known: ServerKey's for a
// master given by address, Sentinel.Keys for a client of NewFailoverClient. Two clients with a key in common
// reach the same master; New refuses them.
func ServerKeys(o *redis.Options) []string {
	if f := failoverOf(o); f != nil {
		return f.spec.Keys()
	}
	return []string{ServerKey(o)}
}

// NewFailoverClient returns a client of the primary that the Sentinels of s name, with o's settings for it
// (credentials, database, TLS, timeouts, pool; o.Addr and o.Dialer are replaced, and Addr becomes s.Name()).
// Every connection it makes first asks the Sentinels for the current primary, within the dial's deadline, so
// a failover is followed by the next connection; and once the Sentinels name another primary (asked by a
// dial, by Primary, or every second while the client has connections), its connections to the former one are
// closed, so that no command goes on reaching a demoted primary. With TLS, each server is verified under its
// own host name, and the Sentinels are reached with TLS too.
//
// New, and its private clients, follow the failovers of such a client; ServerKey and ServerKeys know it by
// its master name and Sentinels.
func NewFailoverClient(s Sentinel, o *redis.Options) (*redis.Client, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.Addrs = slices.Clone(s.Addrs)
	f := &failover{spec: s, opts: *o, conns: map[*primaryConn]struct{}{}}
	p := *o
	p.Network, p.Addr = "tcp", s.Name()
	p.Dialer = f.dial
	// Maintenance notifications describe the endpoint dialled by address; here the Sentinels say where it is.
	p.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	c := redis.NewClient(&p)
	failovers.Store(c.Options(), f)
	runtime.AddCleanup(c, func(o *redis.Options) { failovers.Delete(o) }, c.Options())
	return c, nil
}

// Primary asks the Sentinels of a client made by NewFailoverClient for the address of its current primary,
// within ctx; ok is false for any other client. Its error, a *SentinelError, says what each Sentinel
// answered.
func Primary(ctx context.Context, c *redis.Client) (addr string, ok bool, err error) {
	f := failoverOf(c.Options())
	if f == nil {
		return "", false, nil
	}
	addr, err = f.resolve(ctx)
	return addr, true, err
}

// SentinelError is why no Sentinel named a primary for a master: what each one answered, or why it did not.
type SentinelError struct {
	Master  string
	Unknown []string // the Sentinels that answered that they know no master by that name
	Watched []string // the masters those Sentinels watch instead
	Answers []string // the other Sentinels asked: each one's address and what it said, or why it said nothing
	// Refused is set when every Sentinel answered and none can name a primary: none knows the name, or an
	// address is not a Sentinel. Asking again will not help.
	Refused bool
}

func (e *SentinelError) Error() string {
	answers := e.Answers
	if n := len(e.Unknown); n > 0 {
		unknown := fmt.Sprintf("%s knows no master %q", e.Unknown[0], e.Master)
		if n > 1 {
			unknown = fmt.Sprintf("%s know no master %q", strings.Join(e.Unknown, ", "), e.Master)
		}
		if len(e.Watched) > 0 {
			they := "it watches "
			if n > 1 {
				they = "they watch "
			}
			unknown += " (" + they + strings.Join(e.Watched, ", ") + ")"
		}
		answers = append([]string{unknown}, answers...)
	}
	return fmt.Sprintf("no Sentinel named a primary for %q: %s", e.Master, strings.Join(answers, "; "))
}

// SentinelPortError is a Sentinel given where a master was expected: it answers PING, INFO and ROLE, but no
// lock command. Its text tells how to give the master behind it.
type SentinelPortError struct {
	Addr    string   // host:port, as given
	TLS     bool     // it was reached with TLS
	Masters []string // the masters it watches, from its ROLE; nil when unknown
}

func (e *SentinelPortError) Error() string {
	name, scheme := "MASTERNAME", "redis+sentinel://"
	if len(e.Masters) == 1 {
		name = e.Masters[0]
	}
	if e.TLS {
		scheme = "rediss+sentinel://"
	}
	msg := fmt.Sprintf("%s is a Sentinel, not a master: give %s%s/%s", e.Addr, scheme, e.Addr, name)
	if len(e.Masters) > 1 {
		msg += " (it watches " + strings.Join(e.Masters, ", ") + ")"
	}
	return msg
}

// SentinelRole returns a *SentinelPortError for the server at addr (reached with TLS when tls is set) when
// its ROLE reply says it is a Sentinel, and nil otherwise.
func SentinelRole(role []any, addr string, tls bool) error {
	if len(role) == 0 || role[0] != "sentinel" {
		return nil
	}
	e := &SentinelPortError{Addr: addr, TLS: tls}
	if len(role) > 1 {
		names, _ := role[1].([]any)
		for _, n := range names {
			if s, ok := n.(string); ok {
				e.Masters = append(e.Masters, s)
			}
		}
	}
	return e
}

// failovers maps the options of each client of NewFailoverClient (its Options()) to its failover. An entry
// goes when its client is garbage collected.
var failovers sync.Map

// failoverOf returns the failover of a client of NewFailoverClient by its options, nil for any other.
func failoverOf(o *redis.Options) *failover {
	if v, ok := failovers.Load(o); ok {
		return v.(*failover)
	}
	return nil
}

// followEvery is how often a failover asks its Sentinels for the primary while its client has connections.
const followEvery = time.Second

// failover finds the primary of a Sentinel-named master and keeps track of the connections made to it.
type failover struct {
	spec Sentinel
	opts redis.Options // the client's settings: timeouts and TLS for the Sentinels and the primary

	mu        sync.Mutex
	sentinels []*redis.SentinelClient // aligned with spec.Addrs while in use; nil otherwise
	users     int                     // resolutions using sentinels
	first     int                     // the Sentinel asked first: the last that named a primary
	primary   string                  // the primary the Sentinels named last; "" not yet asked
	conns     map[*primaryConn]struct{}
	following bool // follow runs
}

// resolve asks the Sentinels, the last one that answered first, for the primary's address. Each gets an
// equal share of what is left of ctx, so that one that does not answer leaves time for the others.
func (f *failover) resolve(ctx context.Context) (string, error) {
	clients, first := f.acquire()
	defer f.release()
	e := &SentinelError{Master: f.spec.MasterName, Refused: true}
	for k := range clients {
		i := (first + k) % len(clients)
		if addr := f.ask(ctx, clients[i], f.spec.Addrs[i], len(clients)-k, e); addr != "" {
			f.named(addr, i)
			return addr, nil
		}
	}
	return "", e
}

// ask asks one Sentinel, at sentinelAddr, within a share of ctx (1/left of what is left of it), for the
// primary's address; when it names none, it adds what it answered instead to e.
func (f *failover) ask(ctx context.Context, c *redis.SentinelClient, sentinelAddr string, left int, e *SentinelError) string {
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/time.Duration(left)))
		defer cancel()
	}
	hostPort, err := c.GetMasterAddrByName(ctx, f.spec.MasterName).Result()
	switch {
	case err == nil && len(hostPort) == 2:
		return net.JoinHostPort(hostPort[0], hostPort[1])
	case errors.Is(err, redis.Nil):
		e.Unknown = append(e.Unknown, sentinelAddr)
		for _, name := range watched(ctx, c) {
			if !slices.Contains(e.Watched, name) {
				e.Watched = append(e.Watched, name)
			}
		}
		return ""
	case redis.HasErrorPrefix(err, "unknown command"): // go-redis compares without the ERR
		e.Answers = append(e.Answers, sentinelAddr+" is not a Sentinel (it does not know the SENTINEL command)")
		return ""
	case err == nil:
		err = fmt.Errorf("%q is not an address", hostPort)
	}
	e.Answers = append(e.Answers, fmt.Sprintf("%s: %v", sentinelAddr, err))
	e.Refused = false
	return ""
}

// watched returns the names of the masters a Sentinel watches, from its ROLE; nil when it does not say.
func watched(ctx context.Context, c *redis.SentinelClient) []string {
	cmd := redis.NewSliceCmd(ctx, "role")
	if err := c.Process(ctx, cmd); err != nil {
		return nil
	}
	var e *SentinelPortError
	if errors.As(SentinelRole(cmd.Val(), "", false), &e) {
		return e.Masters
	}
	return nil
}

// acquire returns the clients of the Sentinels, created if need be, and the one to ask first; release ends
// their use. They are closed when no resolution uses them and no connection to the primary is open.
func (f *failover) acquire() ([]*redis.SentinelClient, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sentinels == nil {
		for _, a := range f.spec.Addrs {
			f.sentinels = append(f.sentinels, redis.NewSentinelClient(f.sentinelOptions(a)))
		}
	}
	f.users++
	return f.sentinels, f.first
}

// release ends a use of the Sentinels' clients.
func (f *failover) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users--
	f.closeIdleLocked()
}

// closeIdleLocked closes the Sentinels' clients when nothing uses them.
func (f *failover) closeIdleLocked() {
	if f.users > 0 || len(f.conns) > 0 || f.sentinels == nil {
		return
	}
	for _, c := range f.sentinels {
		_ = c.Close()
	}
	f.sentinels = nil
}

// sentinelOptions are the options of the client of the Sentinel at addr: the client's timeouts and TLS, the
// Sentinels' own credentials, no retries.
func (f *failover) sentinelOptions(addr string) *redis.Options {
	o := &redis.Options{
		Addr:                  addr,
		Username:              f.spec.Username,
		Password:              f.spec.Password,
		DialTimeout:           f.opts.DialTimeout,
		ReadTimeout:           f.opts.ReadTimeout,
		WriteTimeout:          f.opts.WriteTimeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
		DialerRetries:         1,
		PoolSize:              2,
		DisableIdentity:       true,
	}
	if f.opts.TLSConfig != nil {
		o.TLSConfig = tlsFor(f.opts.TLSConfig, addr)
	}
	return o
}

// tlsFor is cfg for the server at addr: verified under its own host name.
func tlsFor(cfg *tls.Config, addr string) *tls.Config {
	c := cfg.Clone()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		c.ServerName = host
	}
	return c
}

// named records that Sentinel i named primary addr, and closes the connections to any other server (a former
// primary): go-redis finds them closed and connects again, through dial.
func (f *failover) named(addr string, i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.first, f.primary = i, addr
	for c := range f.conns { // a dial may have reached the former primary while another asked the Sentinels
		if c.addr != addr {
			delete(f.conns, c)
			_ = c.Conn.Close()
		}
	}
}

// dial connects to the primary the Sentinels name now; the address go-redis passes is the client's name.
func (f *failover) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	addr, err := f.resolve(ctx)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Timeout: f.opts.DialTimeout}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if f.opts.TLSConfig != nil {
		tc := tls.Client(conn, tlsFor(f.opts.TLSConfig, addr))
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
			return nil, err
		}
		conn = tc
	}
	return f.track(conn, addr), nil
}

// track wraps a connection to the primary at addr so that named can close it, and follows the Sentinels
// while there is any.
func (f *failover) track(conn net.Conn, addr string) net.Conn {
	c := &primaryConn{Conn: conn, f: f, addr: addr}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.conns[c] = struct{}{}
	if !f.following {
		f.following = true
		go f.follow()
	}
	if _, ok := conn.(syscall.Conn); ok {
		return primarySysConn{c} // lets go-redis find a connection closed under it before it uses it
	}
	return c
}

// follow asks the Sentinels for the primary every followEvery while connections to it are open, so that a
// client that only writes (a Redlock client) leaves a demoted primary within a second of the Sentinels
// naming another.
func (f *failover) follow() {
	t := time.NewTicker(followEvery)
	defer t.Stop()
	for range t.C {
		f.mu.Lock()
		if len(f.conns) == 0 {
			f.following = false
			f.closeIdleLocked()
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), followEvery)
		_, _ = f.resolve(ctx)
		cancel()
	}
}

// primaryConn is a connection to a primary the Sentinels named.
type primaryConn struct {
	net.Conn
	f    *failover
	addr string
}

// Close leaves the failover's set and closes the connection.
func (c *primaryConn) Close() error {
	c.f.mu.Lock()
	delete(c.f.conns, c)
	c.f.mu.Unlock()
	return c.Conn.Close()
}

// primarySysConn is a primaryConn over a connection with a file descriptor, which go-redis checks for health
// before it uses a pooled connection.
type primarySysConn struct{ *primaryConn }

// SyscallConn is the underlying connection's.
func (c primarySysConn) SyscallConn() (syscall.RawConn, error) {
	return c.Conn.(syscall.Conn).SyscallConn()
}
