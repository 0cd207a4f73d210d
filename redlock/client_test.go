package redlock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestNewRejectsBadMasterLists(t *testing.T) {
	t.Parallel()
	a := redis.NewClient(&redis.Options{Addr: "127.0.0.1:7001"})
	b := redis.NewClient(&redis.Options{Addr: "127.0.0.1:7002"})
	sameAsA := redis.NewClient(&redis.Options{Addr: "localhost:7001", DB: 3})
	mappedA := redis.NewClient(&redis.Options{Addr: "[::ffff:127.0.0.1]:7001"})
	zeroPaddedA := redis.NewClient(&redis.Options{Addr: "127.0.0.1:07001"})
	longV6 := redis.NewClient(&redis.Options{Addr: "[0:0:0:0:0:0:0:1]:7002"})
	shortV6 := redis.NewClient(&redis.Options{Addr: "[::1]:7002"})
	for _, c := range []*redis.Client{a, b, sameAsA, mappedA, zeroPaddedA, longV6, shortV6} {
		defer c.Close()
	}
	cases := []struct {
		name    string
		masters []*redis.Client
		opts    []Option
		want    string
	}{
		{"empty", nil, nil, "no masters"},
		{"nil client", []*redis.Client{a, nil}, nil, "master 2 is nil"},
		{"same address twice", []*redis.Client{a, b, a}, nil, "master 3 (127.0.0.1:7001) is the same as master 1"},
		{"same server other spelling", []*redis.Client{a, sameAsA}, nil, "same as master 1"},
		{"IPv4-mapped IPv6", []*redis.Client{a, b, mappedA}, nil, "master 3 ([::ffff:127.0.0.1]:7001) is the same as master 1"},
		{"port with a leading zero", []*redis.Client{zeroPaddedA, b, a}, nil, "master 3 (127.0.0.1:7001) is the same as master 1"},
		{"IPv6 spelled out", []*redis.Client{longV6, shortV6}, nil, "same as master 1"},
		{"zero node timeout", []*redis.Client{a}, []Option{WithNodeTimeout(0)}, "node timeout"},
		{"drift factor of one", []*redis.Client{a}, []Option{WithDriftFactor(1)}, "drift factor"},
		{"retry delay inverted", []*redis.Client{a}, []Option{WithRetryDelay(time.Second, time.Millisecond)}, "retry delay"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.masters, tc.opts...)
			if err == nil {
				c.Close()
				t.Fatalf("New accepted %s", tc.name)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestQuorumAndTopologyWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, quorum int
		warns     bool
	}{{1, 1, true}, {2, 2, true}, {3, 2, false}, {4, 3, true}, {5, 3, false}, {7, 4, false}} {
		var masters []*redis.Client
		for i := range tc.n {
			m := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + string(rune('0'+i)) + "000"})
			defer m.Close()
			masters = append(masters, m)
		}
		c, err := New(masters)
		if err != nil {
			t.Fatalf("New(%d masters): %v", tc.n, err)
		}
		if c.Quorum() != tc.quorum {
			t.Errorf("%d masters: quorum %d, want %d", tc.n, c.Quorum(), tc.quorum)
		}
		if got := c.TopologyWarning() != ""; got != tc.warns {
			t.Errorf("%d masters: warning %q, want a warning: %v", tc.n, c.TopologyWarning(), tc.warns)
		}
		c.Close()
	}
}

func TestAcquireExcludesSecondClientUntilRelease(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	a, b := cl.client(t), cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)

	l, err := a.TryAcquire(ctx, "billing:nightly", 10*time.Second)
	if err != nil {
		t.Fatalf("first acquire: %v", err)
	}
	if n := cl.settle(t, "billing:nightly", l.Token(), 5); n != 5 {
		t.Fatalf("token on %d of 5 masters after acquire, want 5", n)
	}
	if r := l.LastRound(); r.OK != 5 && r.OK < a.Quorum() {
		t.Fatalf("round reports %d OK", r.OK)
	}
	if _, err := b.TryAcquire(ctx, "billing:nightly", 10*time.Second); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("second client acquired a held lock: err=%v", err)
	}
	var re *RoundError
	_, err = b.TryAcquire(ctx, "billing:nightly", 10*time.Second)
	if !errors.As(err, &re) || re.Round.OK != 0 {
		t.Fatalf("failed round should carry per-master outcomes: %v", err)
	}
	held := 0
	for _, n := range re.Round.Nodes {
		if n.Outcome == OutcomeHeldByOther {
			held++
		}
	}
	if held < len(re.Round.Nodes)-a.Quorum()+1 {
		t.Fatalf("round decided with only %d masters reporting the lock held: %s", held, re.Round.Summary())
	}
	if n := count(cl.values(t, "billing:nightly"), l.Token()); n != 5 {
		t.Fatalf("the loser's cleanup touched the holder's keys: token left on %d of 5", n)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	if vals := cl.values(t, "billing:nightly"); count(vals, "") != 5 {
		t.Fatalf("keys left after release: %q", vals)
	}
	l2, err := b.TryAcquire(ctx, "billing:nightly", 10*time.Second)
	if err != nil {
		t.Fatalf("second client after release: %v", err)
	}
	_ = l2.Release(ctx)
}

func TestAcquireSurvivesMinorityDownAndFailsFastWithMajorityDown(t *testing.T) {
	// Not parallel: it bounds how long calls take against node timeouts, which parallel tests would eat into.
	cl := newCluster(t, 5)
	const nodeTimeout, retries, maxDelay = 200 * time.Millisecond, 2, 20 * time.Millisecond
	c := cl.client(t, WithNodeTimeout(nodeTimeout), WithRetries(retries), WithRetryDelay(10*time.Millisecond, maxDelay))
	ctx := ctxTimeout(t, 10*time.Second)
	for _, i := range []int{0, 1} {
		if err := cl.masters[i].Stop(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := c.Acquire(ctx, "two-down", 5*time.Second)
	if err != nil {
		t.Fatalf("acquire with 2 of 5 masters down: %v", err)
	}
	// The round is decided at quorum, so a down master may not have failed
	// its dial yet: it shows as an error or as still pending, never as ok.
	r := l.LastRound()
	for _, i := range []int{0, 1} {
		if o := r.Nodes[i].Outcome; o != OutcomeError && o != OutcomePending {
			t.Fatalf("down master %d shows %s: %s", i+1, o, r.Summary())
		}
	}
	if r.OK != 3 {
		t.Fatalf("per-master outcomes on success should count the three live masters: %s", r.Summary())
	}
	// Masters down before the acquisition never got the key (their SET never went out): the release is
	// complete once the three that had it confirm (issue 42: no "unconfirmed" for keys that never were).
	if err := l.Release(ctx); err != nil {
		t.Fatalf("release with the masters that had the key all confirming, the others down from the start: %v", err)
	}

	if err := cl.masters[2].Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Acquire(ctx, "three-down", 5*time.Second)
	took := time.Since(start)
	if !errors.Is(err, ErrNotAcquired) || !errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("acquire with 3 of 5 down: want retries exhausted, got %v", err)
	}
	// Each attempt: one acquire round and one release round, each at most the
	// node timeout; plus the delays between attempts; plus scheduling slack.
	bound := (retries+1)*2*nodeTimeout + retries*maxDelay + 500*time.Millisecond
	if took > bound {
		t.Fatalf("failed acquire took %s, bound %s", took, bound)
	}
	// The last round's release may still be on its way to the live masters when the call returns.
	if n := cl.settle(t, "three-down", "", 5); n != 5 {
		t.Fatalf("failed acquire left its key on live masters: %q", cl.values(t, "three-down"))
	}
}

// pausedMasterDoesNotDelayAcquire: a paused master costs an acquisition no more than its node timeout.
func pausedMasterDoesNotDelayAcquire(t *testing.T) {
	cl := newCluster(t, 5)
	const nodeTimeout = time.Second
	c := cl.client(t, WithNodeTimeout(nodeTimeout))
	ctx := ctxTimeout(t, 10*time.Second)
	if err := cl.masters[4].Pause(); err != nil {
		t.Fatal(err)
	}
	defer cl.masters[4].Resume()
	for i := range 5 {
		start := time.Now()
		l, err := c.TryAcquire(ctx, "paused", time.Second)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("acquire %d with one paused master: %v", i, err)
		}
		if took >= nodeTimeout {
			t.Fatalf("acquire %d waited %s for the paused master (node timeout %s)", i, took, nodeTimeout)
		}
		_ = l.Release(ctx)
	}
	// A round that needs the paused master ends at the node timeout.
	for _, i := range []int{0, 1} {
		_ = cl.masters[i].Pause()
		defer cl.masters[i].Resume()
	}
	start := time.Now()
	_, err := c.TryAcquire(ctx, "paused", time.Second)
	took := time.Since(start)
	if !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("acquire with 3 paused masters: %v", err)
	}
	var re *RoundError
	if !errors.As(err, &re) || re.Round.Elapsed > nodeTimeout+300*time.Millisecond {
		t.Fatalf("acquire round with paused masters lasted beyond the node timeout: %v", err)
	}
	// Paused masters never answer, so any bound proves the deadline; the slack is for a loaded machine.
	if took > 2*nodeTimeout+500*time.Millisecond {
		t.Fatalf("TryAcquire with paused masters took %s", took)
	}
}

func TestTryAcquireWithEndedContextSendsNothing(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.TryAcquire(ctx, "never", time.Second)
	if !errors.Is(err, ErrNotAcquired) || !errors.Is(err, context.Canceled) {
		t.Fatalf("TryAcquire with a cancelled context: %v", err)
	}
	if got := count(cl.values(t, "never"), ""); got != 3 {
		t.Fatalf("a cancelled TryAcquire set the key on %d masters", 3-got)
	}
}

func TestAcquireReportsEveryFailedRound(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	for _, r := range cl.raw[:2] {
		if err := r.Set(context.Background(), "taken", "other", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c := cl.client(t, WithRetries(2), WithRetryDelay(time.Millisecond, 2*time.Millisecond))
	var attempts []int
	_, err := c.AcquireWithProgress(ctxTimeout(t, 10*time.Second), "taken", time.Second, func(attempt int, r Round) {
		attempts = append(attempts, attempt)
		if r.Op != OpAcquire || r.OK >= r.Quorum || len(r.Nodes) != 3 {
			t.Errorf("progress for attempt %d got round %s", attempt, r.Summary())
		}
	})
	if !errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("want retries exhausted, got %v", err)
	}
	if len(attempts) != 3 || attempts[0] != 1 || attempts[2] != 3 {
		t.Fatalf("progress called for attempts %v, want 1, 2, 3", attempts)
	}
}

// logRecorder keeps what go-redis logs.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

func TestPrivateConnectionsLeaveTheCallersClientAlone(t *testing.T) {
	// Not parallel: it records go-redis's process-wide logger, which other tests' stopped masters would fill.
	cl := newCluster(t, 3)
	rec := &logRecorder{}
	redis.SetLogger(rec)
	t.Cleanup(func() { redis.SetLogger(quietLogger{}) })
	// The callers' clients have not connected yet: their maintenance settings are still go-redis's "auto".
	users := cl.clients(t)
	c, err := New(users)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	l, err := c.TryAcquire(ctx, "private", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if err := u.Ping(ctx).Err(); err != nil {
			t.Errorf("the caller's own client: %v", err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.lines) > 0 {
		t.Errorf("go-redis logged %d lines, first: %s", len(rec.lines), rec.lines[0])
	}
}

// TestAcquisitionTellsTheRoundsAndTheWait has a second client wait for a lock the first lets expire: its lock
// tells how many rounds it took (one more than the failed rounds reported) and how long it waited, which is no
// less than the first lock's keys lived after the second began, and no more than its call took.
func TestAcquisitionTellsTheRoundsAndTheWait(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	a := cl.client(t)
	b := cl.client(t, WithRetries(1000), WithRetryDelay(10*time.Millisecond, 30*time.Millisecond))
	ctx := ctxTimeout(t, 20*time.Second)
	const ttl = 700 * time.Millisecond
	setBefore := time.Now()
	first, err := a.TryAcquire(ctx, "queue", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Acquisition(); got.Rounds != 1 || got.Waited <= 0 || got.Waited > time.Since(setBefore) {
		t.Errorf("a lock won at once: %+v, want 1 round and a wait within its call (%v)", got, time.Since(setBefore))
	}
	failed := 0
	began := time.Now()
	second, err := b.AcquireWithProgress(ctx, "queue", time.Second, func(int, Round) { failed++ })
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release(ctx)
	got := second.Acquisition()
	if got.Rounds != failed+1 || failed == 0 {
		t.Errorf("rounds %d after %d failed rounds, want %d", got.Rounds, failed, failed+1)
	}
	// The first lock's keys were set after setBefore and live for ttl; Redis expires them to the millisecond.
	if least := setBefore.Add(ttl).Sub(began) - 2*time.Millisecond; got.Waited < least || got.Waited > took {
		t.Errorf("waited %v, want between %v (the first lock's keys' life left) and %v (the call)", got.Waited, least, took)
	}
}
