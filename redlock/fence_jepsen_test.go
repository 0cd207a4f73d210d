package redlock

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// acquisition is one fenced lock a Jepsen worker got, on the test's clock:
// begin is before Acquire was called, end after it returned, so the
// acquisition itself lies inside [begin, end].
type acquisition struct {
	who        int
	fence      uint64
	begin, end time.Duration
}

// fault is one phase of the fault schedule: which masters are paused
// (SIGSTOP) and which are killed (SIGKILL; restarted with their data, as
// persistence is on) during the next acquisitions.
type fault struct {
	paused, killed []int
	acquisitions   int
}

// faults is the schedule, cycled. Its first three phases move the quorum
// from {A,B,C} to {C,D,E} to {A,B,E}: the maximum of the increments alone
// goes backwards there.
// Phases with paused masters are short: a round that fails waits the node
// timeout for them.
var faults = []fault{
	{paused: []int{3, 4}, acquisitions: 10}, {paused: []int{0, 1}, acquisitions: 10},
	{paused: []int{2, 3}, acquisitions: 10}, {killed: []int{4}, acquisitions: 25}, {acquisitions: 50},
	{killed: []int{1}, paused: []int{2}, acquisitions: 10}, {acquisitions: 50},
	{paused: []int{0}, killed: []int{3}, acquisitions: 10}, {acquisitions: 50},
}

// jepsen is one run of the fenced workload.
type jepsen struct {
	acqs  []acquisition
	store redlocktest.FencedStore
}

// runJepsen has workers clients take one resource rounds times each. Every
// holder waits a random pause, a few of them longer than the TTL, then writes
// its acquisition's index to a fenced store with its token and releases.
// Meanwhile the fault schedule pauses and kills a minority of five
// persistent masters.
func runJepsen(t *testing.T, workers, rounds int, opts ...Option) *jepsen {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("the Jepsen workload kills and restarts redis-server processes")
	}
	servers := redlocktest.StartServers(t, 5, redlocktest.ServerOptions{Persistence: true})
	ms := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		ms[i] = s
	}
	cl := &cluster{masters: ms}
	const ttl = 100 * time.Millisecond
	ctx := ctxTimeout(t, 6*time.Minute) // 45s on an idle machine; a loaded one needs several times that
	origin := time.Now()
	j := &jepsen{}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		progress atomic.Int64
	)
	done := make(chan struct{})
	for w := range workers {
		c := cl.client(t, append([]Option{WithFencing(), WithRetries(1 << 20), WithRetryDelay(3*time.Millisecond, 12*time.Millisecond),
			WithNodeTimeout(40 * time.Millisecond)}, opts...)...)
		rng := rand.New(rand.NewPCG(uint64(w), 10))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				begin := time.Since(origin)
				l, err := c.Acquire(ctx, "jepsen", ttl)
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				mu.Lock()
				id := len(j.acqs)
				j.acqs = append(j.acqs, acquisition{who: w, fence: l.Fence(), begin: begin, end: time.Since(origin)})
				mu.Unlock()
				pause := time.Duration(rng.IntN(1000)) * time.Microsecond
				if rng.IntN(100) < 2 {
					pause = ttl + time.Duration(rng.IntN(50))*time.Millisecond
				}
				time.Sleep(pause)
				var stale *redlocktest.StaleTokenError
				if err := j.store.Write(l.Fence(), strconv.Itoa(id)); err != nil && !errors.As(err, &stale) {
					t.Errorf("worker %d: write: %v", w, err)
				}
				_ = l.Release(ctx)
				progress.Add(1)
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	for phase := 0; ; phase++ {
		f := faults[phase%len(faults)]
		apply(t, servers, f)
		until := progress.Load() + int64(f.acquisitions)
		for progress.Load() < until {
			select {
			case <-done:
				apply(t, servers, fault{})
				return j
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

// apply brings every master back, then pauses and kills those f names.
func apply(t *testing.T, servers []*redlocktest.Server, f fault) {
	t.Helper()
	for _, s := range servers {
		if err := errors.Join(s.Start(), s.Resume()); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range f.paused {
		if err := servers[i].Pause(); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range f.killed {
		if err := servers[i].Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// backwards lists the acquisitions whose token is not above that of an
// acquisition that completed before they began.
func (j *jepsen) backwards() []string {
	byBegin, byEnd := slices.Clone(j.acqs), slices.Clone(j.acqs)
	slices.SortFunc(byBegin, func(a, b acquisition) int { return int(a.begin - b.begin) })
	slices.SortFunc(byEnd, func(a, b acquisition) int { return int(a.end - b.end) })
	var (
		bad  []string
		best acquisition // the largest token among those completed so far
		next int
	)
	for _, a := range byBegin {
		for ; next < len(byEnd) && byEnd[next].end < a.begin; next++ {
			if byEnd[next].fence > best.fence {
				best = byEnd[next]
			}
		}
		if next > 0 && a.fence <= best.fence {
			bad = append(bad, fmt.Sprintf("worker %d got token %d at %s, after worker %d's token %d completed at %s",
				a.who, a.fence, a.begin, best.who, best.fence, best.end))
		}
	}
	return bad
}

// staleAccepted lists the writes the store accepted from a holder after it
// had accepted one from a later holder: one whose acquisition began after
// the writer's had completed.
func (j *jepsen) staleAccepted() []string {
	var (
		bad    []string
		latest acquisition // the accepted writer that began last so far
	)
	for _, w := range j.store.Log() {
		if !w.Accepted {
			continue
		}
		id, _ := strconv.Atoi(w.Value)
		a := j.acqs[id]
		if latest.begin > a.end {
			bad = append(bad, fmt.Sprintf("write %d by worker %d (token %d, acquired by %s) accepted after worker %d's "+
				"(token %d, acquired from %s)", w.Seq, a.who, w.Token, a.end, latest.who, latest.fence, latest.begin))
		}
		if a.begin > latest.begin {
			latest = a
		}
	}
	return bad
}

func (j *jepsen) refused() int {
	n := 0
	for _, w := range j.store.Log() {
		if !w.Accepted {
			n++
		}
	}
	return n
}

func TestJepsenFencedWritesUnderFaults(t *testing.T) {
	// Not parallel: its clients contend without pause, and the CPU they take would starve the timing of
	// the tests beside it.
	if testing.Short() {
		t.Skip("the Jepsen workload takes seconds")
	}
	const workers = 8
	rounds := redlocktest.Soak(50, 200)
	j := runJepsen(t, workers, rounds)
	if len(j.acqs) != workers*rounds {
		t.Fatalf("%d acquisitions, want %d", len(j.acqs), workers*rounds)
	}
	stale, back := j.staleAccepted(), j.backwards()
	t.Logf("%d acquisitions, last token %d, %d stale writes refused, %d accepted", len(j.acqs),
		j.acqs[len(j.acqs)-1].fence, j.refused(), len(stale))
	if len(stale) > 0 {
		t.Errorf("%d stale writes accepted, first: %s", len(stale), stale[0])
	}
	if len(back) > 0 {
		t.Errorf("%d tokens not above an earlier acquisition's, first: %s", len(back), back[0])
	}
	if j.refused() == 0 {
		t.Error("no write was refused: the pauses longer than the TTL did not test the fencing")
	}
}

// TestJepsenCatchesTheMaximumOfIncrements runs the workload with the fence
// round skipped, the design that takes the largest INCR of a quorum as the
// token; the schedule's first phases make it go backwards, and the checks
// must say so.
func TestJepsenCatchesTheMaximumOfIncrements(t *testing.T) {
	// Not parallel: its clients contend without pause, and the CPU they take would starve the timing of
	// the tests beside it.
	if testing.Short() {
		t.Skip("the Jepsen workload takes seconds")
	}
	j := runJepsen(t, 8, 15, withoutFenceRound())
	back := j.backwards()
	t.Logf("%d acquisitions, %d tokens went backwards, %d writes refused", len(j.acqs), len(back), j.refused())
	if len(back) == 0 {
		t.Fatal("without the fence round no token went backwards: the test cannot tell a broken design")
	}
	t.Logf("first: %s", back[0])
}
