package monitor_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The contention test: 20 clients, half of them ours and half redsync, contend for 3 resources on 3 real
// masters, each holding for a known time and logging its tenures, while a monitor polls at 100 ms. Nine
// clients take each of the first two resources again at once; two take the third after a rest, so that it
// stays free between holders. Every
// interval the monitor records must be a client's tenure, bracketed as the monitor says to within one poll,
// and the figures it gives must be the clients' own to within the brackets.
const (
	contClients   = 20
	contResources = 3
	contMinHold   = 300 * time.Millisecond
	contMaxHold   = 700 * time.Millisecond
	contInterval  = 100 * time.Millisecond
	contTTL       = 10 * time.Second
)

// contRun is how long the clients contend: 15s with REDLOCK_TEST_SOAK=full, as CI runs it; 6s otherwise,
// some ten tenures of each contended resource and four of the rested one.
var contRun = redlocktest.Soak(6*time.Second, 15*time.Second)

// tenure is one client's holding, from its own log: its acquisition asked (asked) and returned (from), its
// release began (to) and returned (released). Its keys landed on a quorum between asked and from: on a loaded
// machine the call returns well after, waiting for the last master's answer or for the scheduler.
type tenure struct {
	resource, token           string
	asked, from, to, released time.Time
}

// tenureLog collects the clients' tenures.
type tenureLog struct {
	mu   sync.Mutex
	list []tenure
}

func (l *tenureLog) add(t tenure) { l.mu.Lock(); l.list = append(l.list, t); l.mu.Unlock() }

// contender is a client that takes resource, holds it, and releases it: ours or redsync's.
type contender func(ctx context.Context, resource string) (token string, release func(), err error)

// ourContender returns a contender made of our client on the masters. Its node timeout is generous: a round
// that counted a loaded master's late answer as a failure would leave its token on a quorum for a moment, a
// holder no client knows of (which the monitor rightly reports).
func ourContender(t *testing.T, masters []redlocktest.Master) contender {
	rc, err := redlock.New(redlocktest.Clients(t, masters), redlock.WithRetries(0), redlock.WithNodeTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	return func(ctx context.Context, resource string) (string, func(), error) {
		l, err := rc.TryAcquire(ctx, resource, contTTL)
		if err != nil {
			return "", nil, err
		}
		return l.Token(), func() {
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = l.Release(rctx)
		}, nil
	}
}

// redsyncContender returns a contender made of a redsync client on the masters.
func redsyncContender(t *testing.T, masters []redlocktest.Master) contender {
	var pools []redsyncredis.Pool
	for _, m := range masters {
		c := redis.NewClient(&redis.Options{Addr: m.Addr(), ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
		t.Cleanup(func() { _ = c.Close() })
		pools = append(pools, goredis.NewPool(c))
	}
	rs := redsync.New(pools...)
	return func(ctx context.Context, resource string) (string, func(), error) {
		// A generous per-round timeout (0.3 of the TTL, where redsync's default is 0.05), as ourContender's.
		m := rs.NewMutex(resource, redsync.WithExpiry(contTTL), redsync.WithTries(1), redsync.WithTimeoutFactor(0.3))
		if err := m.LockContext(ctx); err != nil {
			return "", nil, err
		}
		return m.Value(), func() {
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, _ = m.UnlockContext(rctx)
		}, nil
	}
}

// contendFor runs client c on resource until ctx is done, holding for a time in [contMinHold, contMaxHold)
// and resting up to rest (at least 5ms) after each release.
func contendFor(ctx context.Context, c contender, resource string, rest time.Duration, seed uint64, log *tenureLog) {
	rng := rand.New(rand.NewPCG(seed, 7))
	sleep := func(lo, hi time.Duration) {
		select {
		case <-ctx.Done():
		case <-time.After(lo + time.Duration(rng.Int64N(int64(hi-lo)))):
		}
	}
	for ctx.Err() == nil {
		// The run's end stops new acquisitions, never one in flight: cut short once it had its quorum, it
		// would fail and release, leaving on a quorum for a poll a holder no client logged.
		asked := time.Now()
		token, release, err := c(context.WithoutCancel(ctx), resource)
		if err != nil {
			sleep(10*time.Millisecond, 40*time.Millisecond)
			continue
		}
		from := time.Now()
		sleep(contMinHold, contMaxHold)
		to := time.Now()
		release()
		log.add(tenure{resource, token, asked, from, to, time.Now()})
		sleep(5*time.Millisecond, max(rest, 6*time.Millisecond))
	}
}

// TestContentionMatchesTheClientsLogs runs the workload and compares the monitor's intervals and figures with
// the clients' logs.
func TestContentionMatchesTheClientsLogs(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server")
	}
	servers := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{})
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	mon, err := monitor.New(redlocktest.Clients(t, masters), redlocktest.Addrs(masters), monitor.Config{Interval: contInterval})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var polls []time.Time
	mon.Observe(func(_ *monitor.Snapshot, s monitor.Snapshot) { mu.Lock(); polls = append(polls, s.Time); mu.Unlock() })
	monCtx, stopMonitor := context.WithCancel(context.Background())
	defer stopMonitor()
	snaps := mon.Run(monCtx)
	var final monitor.Snapshot
	monDone := make(chan struct{})
	go func() {
		defer close(monDone)
		for s := range snaps {
			final = s
		}
	}()
	time.Sleep(time.Second) // the first sweep

	log := &tenureLog{}
	ctx, stop := context.WithTimeout(context.Background(), contRun)
	defer stop()
	var wg sync.WaitGroup
	for i := range contClients {
		c := ourContender(t, masters)
		if i%2 == 1 {
			c = redsyncContender(t, masters)
		}
		r, rest := min(i/9, 2), 30*time.Millisecond
		if r == 2 {
			rest = time.Second
		}
		wg.Go(func() { contendFor(ctx, c, fmt.Sprintf("cont:%d", r), rest, uint64(i), log) })
	}
	wg.Wait()
	time.Sleep(5 * contInterval) // the last releases are seen
	stopMonitor()
	<-monDone

	for r := range contResources {
		res := fmt.Sprintf("cont:%d", r)
		var mine []tenure
		for _, h := range log.list {
			if h.resource == res {
				mine = append(mine, h)
			}
		}
		checkResource(t, final, res, mine, polls)
	}
}

// checkResource compares the monitor's intervals and figures for res in s with the clients' tenures of it.
// polls are the times of every snapshot. tol is what a poll's reads may precede its time by, and a client's
// log follow its command's effect by: one poll interval as it really was, the longest time between two polls
// (the interval on a quiet machine; more on a loaded one, where polls and clients are late alike).
func checkResource(t *testing.T, s monitor.Snapshot, res string, tenures []tenure, polls []time.Time) {
	t.Helper()
	tol := contInterval
	for k := 1; k < len(polls); k++ {
		tol = max(tol, polls[k].Sub(polls[k-1]))
	}
	h := s.HoldLog(res)
	ivs := h.Intervals(s.Time.Add(-s.Window()))
	byToken := map[string]tenure{}
	for _, c := range tenures {
		byToken[c.token] = c
	}
	var bound time.Duration // the largest error the brackets allow any figure
	var monHolds, cliHolds, monGaps, cliGaps []time.Duration
	longest := time.Duration(0)
	for k, iv := range ivs {
		c, ok := byToken[iv.Token]
		switch {
		case !ok:
			t.Errorf("%s: interval of %q, which no client held", res, iv.Token)
			continue
		case iv.Ended != monitor.EndReleased && iv.Ended != monitor.EndTakenOver:
			t.Errorf("%s: %q ended %s, want released or taken over (every client released)", res, iv.Token, iv.Ended)
			continue
		}
		if c.from.Before(iv.Start.Add(-iv.StartSlack-tol)) || c.asked.After(iv.Start.Add(tol)) {
			t.Errorf("%s: %q acquired between %v and %v by its log; the monitor says within %v before %v (±%v)", res, iv.Token,
				c.asked.Format("15:04:05.000"), c.from.Format("15:04:05.000"), iv.StartSlack, iv.Start.Format("15:04:05.000"), tol)
		}
		if c.to.After(iv.End.Add(tol)) || c.released.Before(iv.End.Add(-iv.EndSlack-tol)) {
			t.Errorf("%s: %q released between %v and %v by its log; the monitor says within %v before %v (±%v)", res,
				iv.Token, c.to.Format("15:04:05.000"), c.released.Format("15:04:05.000"), iv.EndSlack, iv.End.Format("15:04:05.000"), tol)
		}
		d := iv.StartSlack + iv.EndSlack + c.from.Sub(c.asked) + c.released.Sub(c.to) + 2*tol
		bound = max(bound, d)
		monHolds, cliHolds = append(monHolds, iv.HeldFor(s.Time)), append(cliHolds, c.to.Sub(c.from))
		longest = max(longest, c.to.Sub(c.from))
		if prev, ok := byToken[ivs[max(k-1, 0)].Token]; k > 0 && ok {
			monGaps = append(monGaps, max(iv.Start.Sub(ivs[k-1].End), 0))
			cliGaps = append(cliGaps, max(c.from.Sub(prev.to), 0))
		}
	}
	seen := map[string]bool{}
	for _, iv := range ivs {
		seen[iv.Token] = true
	}
	for _, c := range tenures {
		within := 0
		for _, p := range polls {
			if p.After(c.from) && p.Before(c.to) {
				within++
			}
		}
		if !seen[c.token] {
			t.Logf("%s: %q held %v-%v through %d polls: not in the history", res, c.token, c.from.Format("15:04:05.000"), c.to.Format("15:04:05.000"), within)
		}
		if within >= 2 && !seen[c.token] {
			t.Errorf("%s: %q held %v-%v through %d polls, not in the history", res, c.token, c.from.Format("15:04:05.000"), c.to.Format("15:04:05.000"), within)
		}
	}
	checkStrip(t, s, res, ivs, tenures, polls, tol)
	checkFigures(t, s.Contention(h, s.Window()), res, len(ivs), bound, longest, [2][]time.Duration{monHolds, cliHolds}, [2][]time.Duration{monGaps, cliGaps})
	t.Logf("%s: %d tenures logged, %d intervals recorded; one poll interval, as it was: %v", res, len(tenures), len(ivs), tol)
}

// checkFigures compares the monitor's figures c with those of the clients' tenures: each hold and gap of the
// monitor differs from its client's by at most bound, so each percentile does too.
func checkFigures(t *testing.T, c monitor.Contention, res string, intervals int, bound, longest time.Duration, holds, gaps [2][]time.Duration) {
	t.Helper()
	if c.Acquisitions != intervals || c.Holders != intervals || c.Holds != intervals {
		t.Errorf("%s: %d acquisitions, %d holders, %d holds; want %d each (one token per tenure)", res, c.Acquisitions, c.Holders, c.Holds, intervals)
	}
	if want := float64(intervals) * float64(time.Minute) / float64(c.Period); c.PerMinute != want {
		t.Errorf("%s: %.2f handovers a minute, want %.2f", res, c.PerMinute, want)
	}
	near := func(name string, got time.Duration, of []time.Duration, p float64) {
		want := pct(of, p)
		if got < want-bound || got > want+bound {
			t.Errorf("%s: %s = %v, the clients' %v: off by more than %v", res, name, got, want, bound)
		}
	}
	near("hold p50", c.HoldP50, holds[1], 0.5)
	near("hold p95", c.HoldP95, holds[1], 0.95)
	near("hold max", c.HoldMax, holds[1], 1)
	near("gap p50", c.GapP50, gaps[1], 0.5)
	near("gap p95", c.GapP95, gaps[1], 0.95)
	if c.Gaps != len(gaps[1]) {
		t.Errorf("%s: %d gaps, want %d", res, c.Gaps, len(gaps[1]))
	}
	if share := float64(longest) / float64(c.Period); c.BusiestShare < share-float64(bound)/float64(c.Period) || c.BusiestShare > share+float64(bound)/float64(c.Period) {
		t.Errorf("%s: busiest share %.3f, the longest tenure's %.3f", res, c.BusiestShare, share)
	}
	t.Logf("%s: %.1f/min, hold p50 %v p95 %v max %v (clients %v %v %v), gap p50 %v (clients %v), bound %v, resolution %v",
		res, c.PerMinute, c.HoldP50, c.HoldP95, c.HoldMax, pct(holds[1], 0.5), pct(holds[1], 0.95), pct(holds[1], 1),
		c.GapP50, pct(gaps[1], 0.5), bound, c.Resolution)
}

// pct is the nearest-rank percentile p of ds (a sorted copy).
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	rank := int(float64(len(s))*p+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}
