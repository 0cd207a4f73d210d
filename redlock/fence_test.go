package redlock

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// withoutFenceRound takes the largest counter of the acquire round as the
// token and never runs the fence round: the unsafe design, kept to show that
// the tests catch it.
func withoutFenceRound() Option { return func(c *config) { c.skipFenceRound = true } }

func acquireFence(t *testing.T, c *Client, resource string) uint64 {
	t.Helper()
	l, err := c.Acquire(ctxTimeout(t, 10*time.Second), resource, 2*time.Second)
	if err != nil {
		t.Fatalf("acquire %q: %v", resource, err)
	}
	if err := l.Release(ctxTimeout(t, 5*time.Second)); err != nil && !errors.Is(err, ErrIncomplete) {
		t.Fatalf("release %q: %v", resource, err)
	}
	return l.Fence()
}

func TestFenceGrowsAndSurvivesExtension(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	c := cl.client(t, WithFencing())
	var prev uint64
	for i := range 5 {
		f := acquireFence(t, c, "fenced")
		if f <= prev {
			t.Fatalf("acquisition %d: token %d after %d, want strictly greater", i+1, f, prev)
		}
		prev = f
	}
	l, err := c.Acquire(ctxTimeout(t, 5*time.Second), "fenced", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	before := l.Fence()
	if err := l.Extend(ctxTimeout(t, 5*time.Second), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if l.Fence() != before {
		t.Errorf("extension changed the token from %d to %d", before, l.Fence())
	}
	if got := count(cl.values(t, "fenced"), l.Token()); got != 5 {
		t.Errorf("lock key holds our token on %d of 5 masters, want 5", got)
	}
	for i, r := range cl.raw {
		ttl, err := r.PTTL(context.Background(), "fenced:fence").Result()
		if err != nil || ttl != -1 {
			t.Errorf("master %d: counter PTTL %v (%v), want no TTL", i, ttl, err)
		}
	}
	if f := (&Lock{}).Fence(); f != 0 {
		t.Errorf("unfenced lock: Fence %d, want 0", f)
	}
}

func TestFenceSuffixNamesTheCounter(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithFencing(), WithFenceSuffix("/token"))
	f := acquireFence(t, c, "job")
	for i, v := range cl.values(t, "job/token") {
		if v != "1" || f != 1 {
			t.Errorf("master %d: counter job/token = %q, token %d; want 1 and 1", i, v, f)
		}
	}
	if _, err := New(cl.clients(t), WithFencing(), WithFenceSuffix("")); err == nil {
		t.Error("New accepted an empty fence suffix, which makes the counter the lock's key")
	}
}

// rotate cuts the clients' way to the masters in down (restoring the
// others) and runs n acquisitions, returning their tokens. A cut, unlike a
// paused server, drops the commands sent meanwhile: a paused redis-server
// runs its queued INCRs once resumed, which evens the counters out.
func rotate(t *testing.T, cl *cluster, c *Client, down []int, n int) []uint64 {
	t.Helper()
	for i, p := range cl.proxies {
		p.SetPartitioned(slices.Contains(down, i))
	}
	var out []uint64
	for range n {
		out = append(out, acquireFence(t, c, "rotating"))
	}
	return out
}

// rotation is the fault sequence that makes the maximum of the increments
// go backwards: {A,B,C} and then {C,D,E} leave C's counter ahead, and
// {A,B,E} then misses C.
var rotation = [][]int{{3, 4}, {0, 1}, {2, 3}}

func TestFenceRoundKeepsTokensGrowingAcrossQuorums(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		opts      []Option
		backwards bool
	}{
		{"with the fence round", []Option{WithFencing()}, false},
		{"maximum of increments only", []Option{WithFencing(), withoutFenceRound()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newProxiedCluster(t, 5, 0)
			c := cl.client(t, append(tc.opts, WithNodeTimeout(100*time.Millisecond), WithRetries(100))...)
			var tokens []uint64
			for _, down := range rotation {
				tokens = append(tokens, rotate(t, cl, c, down, 4)...)
			}
			rotate(t, cl, c, nil, 0)
			var backwards bool
			for i := 1; i < len(tokens); i++ {
				backwards = backwards || tokens[i] <= tokens[i-1]
			}
			if backwards != tc.backwards {
				t.Errorf("tokens %v: went backwards %v, want %v", tokens, backwards, tc.backwards)
			}
		})
	}
}

func TestFenceSurvivesLessThanAQuorumOfLostCounters(t *testing.T) {
	t.Parallel()
	ss := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{})
	ms := []redlocktest.Master{ss[0], ss[1], ss[2]}
	cl := &cluster{masters: ms, raw: redlocktest.Clients(t, ms)}
	c := cl.client(t, WithFencing(), WithNodeTimeout(100*time.Millisecond), WithRetries(100))
	for range 5 {
		acquireFence(t, c, "volatile")
	}
	before := acquireFence(t, c, "volatile")
	if err := ss[0].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := ss[0].Start(); err != nil {
		t.Fatal(err)
	}
	after := acquireFence(t, c, "volatile")
	if after <= before {
		t.Errorf("one of three counters lost: token %d after %d, want greater", after, before)
	}

	// A quorum of lost counters, and the one master that kept its counter does not answer: the tokens start
	// again, which is why counters need persistence.
	for _, s := range ss[:2] {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := ss[2].Pause(); err != nil {
		t.Fatal(err)
	}
	defer ss[2].Resume()
	if lost := acquireFence(t, c, "volatile"); lost > after {
		t.Errorf("two of three counters lost: token %d after %d; the guarantee was expected to break", lost, after)
	}
}

func TestFencedAcquireRefusesANonIntegerCounter(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	for _, r := range cl.raw {
		r.Set(context.Background(), "odd:fence", "not a number", 0)
	}
	c := cl.client(t, WithFencing(), WithRetries(0))
	_, err := c.Acquire(ctxTimeout(t, 5*time.Second), "odd", time.Second)
	if !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("acquire with a corrupt counter: %v, want ErrNotAcquired", err)
	}
	if got := count(cl.values(t, "odd"), ""); got != 3 {
		t.Errorf("lock key set on %d masters despite the script's error, want none", 3-got)
	}
}

func TestFencedAndUnfencedClientsExcludeEachOther(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	fenced := cl.client(t, WithFencing(), WithRetries(0))
	plain := cl.client(t, WithRetries(0))
	for _, order := range [][2]*Client{{fenced, plain}, {plain, fenced}} {
		l, err := order[0].Acquire(ctxTimeout(t, 5*time.Second), "shared", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := order[1].Acquire(ctxTimeout(t, 5*time.Second), "shared", 5*time.Second); !errors.Is(err,
			ErrNotAcquired) {
			t.Errorf("second client got the lock the first holds: %v", err)
		}
		if err := l.Release(ctxTimeout(t, 5*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
}
