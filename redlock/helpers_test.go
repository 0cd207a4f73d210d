package redlock

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// cluster is n test masters with one raw client each, for checking keys by hand.
type cluster struct {
	masters []redlocktest.Master
	raw     []*redis.Client
	proxies []*redlocktest.Proxy // in front of the masters, if any
	addrs   []string             // the proxies' addresses
}

func newCluster(t testing.TB, n int) *cluster {
	t.Helper()
	m := redlocktest.Masters(t, n)
	return &cluster{masters: m, raw: redlocktest.Clients(t, m)}
}

// client returns a new Redlock client on fresh connections to every master.
// Its node timeout is a generous 500ms unless opts say otherwise: the suite
// runs beside others under -race on two cores, and only tests about timeouts
// should depend on them.
func (c *cluster) client(t testing.TB, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithNodeTimeout(500 * time.Millisecond)}, opts...)
	rc, err := New(c.clients(t), opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(rc.Close)
	return rc
}

// values returns the key's value on every master ("" when absent or down).
func (c *cluster) values(t testing.TB, key string) []string {
	t.Helper()
	out := make([]string, len(c.raw))
	for i, r := range c.raw {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		v, err := r.Get(ctx, key).Result()
		cancel()
		if err == nil {
			out[i] = v
		}
	}
	return out
}

func count(vals []string, want string) int {
	n := 0
	for _, v := range vals {
		if v == want {
			n++
		}
	}
	return n
}

// tickingClock advances by step on every reading, so elapsed times are exact.
type tickingClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *tickingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

func (c *tickingClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// TestMain silences go-redis's pool log (the tests stop masters on purpose) and runs two parallel tests per
// CPU by default: they own their masters, and spend their time waiting on them, but many count on a keeper or
// a node timeout answering within a third of a second, which more at once would starve on a loaded machine.
func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{})
	redlocktest.WaitBoundParallelism(2)
	os.Exit(m.Run())
}

// settle waits for n masters to hold want for key ("" for absent) and
// returns how many do: a round is decided at quorum, and a failed
// acquisition's late answers are released in the background, so the last
// masters' commands may still be on their way when a call returns. It returns
// as soon as n do; its deadline of ten seconds only bounds a failure, and is
// generous for a loaded machine running the package's tests in parallel.
func (c *cluster) settle(t testing.TB, key, want string, n int) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := count(c.values(t, key), want)
		if got == n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// newProxiedCluster is newCluster with every master behind a redlocktest
// Proxy delaying each direction by latency; clients dial the proxies, raw
// clients dial the masters directly.
func newProxiedCluster(t testing.TB, n int, latency time.Duration) *cluster {
	t.Helper()
	c := newCluster(t, n)
	for _, m := range c.masters {
		p, addr := redlocktest.WithProxy(t, m)
		p.SetLatency(latency)
		c.proxies = append(c.proxies, p)
		c.addrs = append(c.addrs, addr)
	}
	return c
}

// clients returns one new go-redis client per master, through the proxies
// when there are any, that never retries a command.
func (c *cluster) clients(t testing.TB) []*redis.Client {
	t.Helper()
	if c.proxies == nil {
		return redlocktest.Clients(t, c.masters)
	}
	out := make([]*redis.Client, len(c.addrs))
	for i, addr := range c.addrs {
		out[i] = redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true,
			DialTimeout: time.Second, ReadTimeout: 2 * time.Second, MaxRetries: -1, DialerRetries: 1})
		t.Cleanup(func() { out[i].Close() })
	}
	return out
}
