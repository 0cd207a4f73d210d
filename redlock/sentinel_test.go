package redlock

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// testOptions are the settings of the clients these tests make: short timeouts, no retries.
func testOptions() *redis.Options {
	return &redis.Options{ContextTimeoutEnabled: true, DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second,
		WriteTimeout: time.Second, MaxRetries: -1, DialerRetries: 1}
}

// failoverClient returns a client of NewFailoverClient for s, closed at cleanup.
func failoverClient(t *testing.T, s Sentinel) *redis.Client {
	t.Helper()
	c, err := NewFailoverClient(s, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// valueOn returns key's value on server s, "" when absent.
func valueOn(t *testing.T, s *redlocktest.Server, key string) string {
	t.Helper()
	c := s.NewClient()
	defer c.Close()
	v, err := c.Get(ctxTimeout(t, 5*time.Second), key).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("GET %s on %s: %v", key, s.Addr(), err)
	}
	return v
}

// replicated waits until s's replicas have every write made on s so far.
func replicated(t *testing.T, s *redlocktest.Server) {
	t.Helper()
	c := s.NewClient()
	defer c.Close()
	if n, err := c.Do(ctxTimeout(t, 10*time.Second), "wait", 1, 5000).Int(); err != nil || n < 1 {
		t.Fatalf("WAIT 1 on %s: %d, %v; want a replica to have the writes", s.Addr(), n, err)
	}
}

func TestFailoverClientLocksOnThePrimaryAndFollowsAFailover(t *testing.T) {
	t.Parallel()
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	ctx := ctxTimeout(t, 2*time.Minute)
	fc := failoverClient(t, Sentinel{MasterName: g.Name, Addrs: g.SentinelAddrs()})
	if want := g.Name + "@" + g.SentinelAddrs()[0]; fc.Options().Addr != want {
		t.Errorf("the client's name is %q, want %q", fc.Options().Addr, want)
	}
	rc, err := New([]*redis.Client{fc}, WithNodeTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	if m := rc.Masters(); len(m) != 1 || m[0] != fc.Options().Addr {
		t.Errorf("Masters() = %q, want the client's name", m)
	}

	before, err := g.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if addr, ok, err := Primary(ctx, fc); !ok || err != nil || addr != before.Addr() {
		t.Fatalf("Primary = %q, %v, %v; want %s, the primary the Sentinels name", addr, ok, err, before.Addr())
	}
	l, err := rc.Acquire(ctx, "R", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if v := valueOn(t, before, "R"); v != l.Token() {
		t.Fatalf("R on the primary %s = %q, want the lock's token %q", before.Addr(), v, l.Token())
	}
	replicated(t, before)

	from, to, err := g.Failover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The former primary stays a writable master until the Sentinels reconfigure it, seconds later; the
	// client must leave it on its own (it asks the Sentinels every second), without anyone calling Primary.
	var l2 *Lock
	for deadline := time.Now().Add(5 * time.Second); ; { // the Sentinels reconfigure it about 8s after the failover
		if l2, err = rc.Acquire(ctx, "R2", time.Minute); err != nil {
			t.Fatalf("acquire after the failover: %v", err)
		}
		if valueOn(t, to, "R2") == l2.Token() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5s after the failover R2 is still acquired on the former primary %s (%q), not on %s",
				from.Addr(), valueOn(t, from, "R2"), to.Addr())
		}
		// Acquired on the former primary, before the client learnt of the failover: by the time of the release it
		// may have left it, and finds no key on the new one. Either way the key on the former primary is
		// wiped when the Sentinels make it a replica.
		_ = l2.Release(ctx)
		time.Sleep(100 * time.Millisecond)
	}
	if addr, _, err := Primary(ctx, fc); err != nil || addr != to.Addr() {
		t.Fatalf("Primary after the failover = %q, %v; want the new primary %s", addr, err, to.Addr())
	}
	for _, lock := range []*Lock{l, l2} {
		if err := lock.Release(ctx); err != nil {
			t.Errorf("release %s after the failover: %v", lock.Resource(), err)
		}
		if v := valueOn(t, to, lock.Resource()); v != "" {
			t.Errorf("%s on the new primary after its release = %q, want it gone", lock.Resource(), v)
		}
	}
}

func TestFailoverClientSaysWhatTheSentinelsAnswered(t *testing.T) {
	t.Parallel()
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	dataNode := g.Servers[0].Addr()
	tests := []struct {
		name     string
		sentinel Sentinel
		want     string
		refused  bool
	}{
		{"unknown name", Sentinel{MasterName: "nosuch", Addrs: g.SentinelAddrs()[:1]},
			`no Sentinel named a primary for "nosuch": ` + g.SentinelAddrs()[0] + ` knows no master "nosuch" (it watches mymaster)`, true},
		{"not a Sentinel", Sentinel{MasterName: g.Name, Addrs: []string{dataNode}},
			dataNode + " is not a Sentinel (it does not know the SENTINEL command)", true},
		{"nothing listening", Sentinel{MasterName: g.Name, Addrs: []string{"127.0.0.1:1"}}, "127.0.0.1:1: dial tcp", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := failoverClient(t, tc.sentinel)
			start := time.Now()
			_, ok, err := Primary(ctxTimeout(t, 10*time.Second), fc)
			var se *SentinelError
			if !ok || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || se.Refused != tc.refused {
				t.Fatalf("Primary: ok %v, error %v; want a SentinelError containing %q, refused %v", ok, err, tc.want, tc.refused)
			}
			rc, err := New([]*redis.Client{fc}, WithNodeTimeout(300*time.Millisecond), WithRetries(1))
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			_, err = rc.Acquire(ctxTimeout(t, 10*time.Second), "R", 10*time.Second)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Acquire: %v; want an error saying %q", err, tc.want)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("took %v: an unusable name must fail fast, not hang", d)
			}
		})
	}
}

func TestASentinelGivenAsAMasterIsNamed(t *testing.T) {
	t.Parallel()
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	s := g.Sentinels[0]
	c := s.NewClient()
	t.Cleanup(func() { c.Close() })
	rc, err := New([]*redis.Client{c}, WithNodeTimeout(300*time.Millisecond), WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	_, err = rc.Acquire(ctxTimeout(t, 10*time.Second), "R", 10*time.Second)
	var re *RoundError
	if !errors.As(err, &re) || len(re.Round.Nodes) != 1 {
		t.Fatalf("Acquire on a Sentinel: %v; want a failed round", err)
	}
	var pe *SentinelPortError
	want := s.Addr() + " is a Sentinel, not a master: give redis+sentinel://" + s.Addr() + "/mymaster"
	if nerr := re.Round.Nodes[0].Err; !errors.As(nerr, &pe) || nerr.Error() != want {
		t.Errorf("the master's error is %v; want %q", nerr, want)
	}
}

func TestSentinelPortErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    SentinelPortError
		want string
	}{
		{SentinelPortError{Addr: "h:26379"}, "h:26379 is a Sentinel, not a master: give redis+sentinel://h:26379/MASTERNAME"},
		{SentinelPortError{Addr: "h:26379", TLS: true, Masters: []string{"m"}}, "h:26379 is a Sentinel, not a master: give rediss+sentinel://h:26379/m"},
		{SentinelPortError{Addr: "h:26379", Masters: []string{"a", "b"}},
			"h:26379 is a Sentinel, not a master: give redis+sentinel://h:26379/MASTERNAME (it watches a, b)"},
	}
	for _, tc := range tests {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
	if err := SentinelRole([]any{"master", int64(0), []any{}}, "h:1", false); err != nil {
		t.Errorf("a master's ROLE: %v, want nil", err)
	}
}

func TestSentinelMastersAreTheSameWhenTheyShareANameAndASentinel(t *testing.T) {
	t.Parallel()
	// Nothing listens: New connects in the background, and these tests only compare.
	a, b, c := "127.0.0.1:1", "localhost:01", "127.0.0.1:2"
	tests := []struct {
		name string
		x, y Sentinel
		same bool
	}{
		{"one Sentinel in two spellings", Sentinel{MasterName: "m", Addrs: []string{a}}, Sentinel{MasterName: "m", Addrs: []string{b}}, true},
		{"a Sentinel in common", Sentinel{MasterName: "m", Addrs: []string{a, c}}, Sentinel{MasterName: "m", Addrs: []string{c}}, true},
		{"other Sentinels", Sentinel{MasterName: "m", Addrs: []string{a}}, Sentinel{MasterName: "m", Addrs: []string{c}}, false},
		{"another name", Sentinel{MasterName: "m", Addrs: []string{a}}, Sentinel{MasterName: "n", Addrs: []string{a}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, y := failoverClient(t, tc.x), failoverClient(t, tc.y)
			rc, err := New([]*redis.Client{x, y})
			if err == nil {
				rc.Close()
			}
			if refused := err != nil; refused != tc.same {
				t.Errorf("New refused them: %v (%v); want %v", refused, err, tc.same)
			}
			if same := ServerKey(x.Options()) == ServerKey(y.Options()); same && !tc.same {
				t.Errorf("ServerKey is %q for both", ServerKey(x.Options()))
			}
		})
	}
}

func TestGoRedisFailoverClientsAreTwoMasters(t *testing.T) {
	t.Parallel()
	x := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "a", SentinelAddrs: []string{"127.0.0.1:1"}})
	y := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "b", SentinelAddrs: []string{"127.0.0.1:1"}})
	t.Cleanup(func() { x.Close(); y.Close() })
	if ServerKey(x.Options()) == ServerKey(y.Options()) {
		t.Errorf("two go-redis failover clients have one key, %q: New would refuse them", ServerKey(x.Options()))
	}
	if _, err := New([]*redis.Client{x, x}); err == nil {
		t.Error("New accepted one go-redis failover client twice")
	}
	if _, err := NewFailoverClient(Sentinel{MasterName: "m"}, testOptions()); err == nil {
		t.Error("NewFailoverClient accepted no Sentinel address")
	}
	if _, err := NewFailoverClient(Sentinel{Addrs: []string{"h:1"}}, testOptions()); err == nil {
		t.Error("NewFailoverClient accepted no master name")
	}
}
