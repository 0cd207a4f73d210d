package redlock

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// section is one critical section, on the test's monotonic clock.
type section struct {
	who        int
	start, end time.Duration
}

// runContention has workers, each with its own client, take one resource
// rounds times and record their critical sections. During runs, during is
// called once, concurrently. opts add to the clients' options.
func runContention(t *testing.T, cl *cluster, workers, rounds int, during func(), opts ...Option) []section {
	t.Helper()
	origin := time.Now()
	ctx := ctxTimeout(t, 10*time.Minute) // a bound against a hang: under -race on a loaded machine 1,600 rounds took over 2 minutes
	var (
		mu       sync.Mutex
		sections []section
		wg       sync.WaitGroup
	)
	for w := range workers {
		c := cl.client(t, append([]Option{WithRetries(10000), WithRetryDelay(0, 3*time.Millisecond),
			WithNodeTimeout(100 * time.Millisecond)}, opts...)...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				l, err := c.Acquire(ctx, "exclusive", 2*time.Second)
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				s := section{who: w, start: time.Since(origin)}
				time.Sleep(50 * time.Microsecond)
				s.end = time.Since(origin)
				if l.Validity() <= 0 {
					t.Errorf("worker %d: critical section outlived the lock's validity", w)
				}
				mu.Lock()
				sections = append(sections, s)
				mu.Unlock()
				_ = l.Release(ctx)
			}
		}()
	}
	if during != nil {
		during()
	}
	wg.Wait()
	return sections
}

func overlaps(sections []section) []string {
	slices.SortFunc(sections, func(a, b section) int { return int(a.start - b.start) })
	var bad []string
	for i := 1; i < len(sections); i++ {
		if sections[i].start < sections[i-1].end {
			bad = append(bad, sections[i-1].String()+" overlaps "+sections[i].String())
		}
	}
	return bad
}

func (s section) String() string {
	return "worker " + string(rune('0'+s.who)) + " [" + s.start.String() + ", " + s.end.String() + "]"
}

func TestMutualExclusion(t *testing.T) {
	// Not parallel: its clients contend without pause, and the CPU they take would starve the timing of
	// the tests beside it.
	if testing.Short() {
		t.Skip("contention run takes seconds")
	}
	const workers = 8
	rounds := redlocktest.Soak(50, 200) // 400 contended acquisitions already overlap when exclusion breaks
	cl := newCluster(t, 5)
	sections := runContention(t, cl, workers, rounds, nil)
	if len(sections) != workers*rounds {
		t.Fatalf("%d critical sections recorded, want %d", len(sections), workers*rounds)
	}
	if bad := overlaps(sections); len(bad) > 0 {
		t.Fatalf("%d overlapping critical sections, first: %s", len(bad), bad[0])
	}
}

func TestMutualExclusionWhileAMasterRestarts(t *testing.T) {
	// Not parallel: its clients contend without pause, and the CPU they take would starve the timing of
	// the tests beside it.
	if testing.Short() {
		t.Skip("contention run takes seconds")
	}
	const workers, rounds = 8, 200
	cl := newCluster(t, 5)
	sections := runContention(t, cl, workers, rounds, func() {
		time.Sleep(200 * time.Millisecond)
		if err := cl.masters[2].Stop(); err != nil {
			t.Error(err)
			return
		}
		// The delayed-restart rule: stay down longer than the TTL in use, so the
		// restarted, empty master cannot grant a lock another client still holds.
		time.Sleep(2*time.Second + 100*time.Millisecond)
		if err := cl.masters[2].Start(); err != nil {
			t.Error(err)
		}
	})
	if len(sections) != workers*rounds {
		t.Fatalf("%d critical sections recorded, want %d", len(sections), workers*rounds)
	}
	if bad := overlaps(sections); len(bad) > 0 {
		t.Fatalf("%d overlapping critical sections, first: %s", len(bad), bad[0])
	}
}

// TestMutualExclusionWithLatency runs the contention over masters behind
// proxies with different latencies, so that rounds are decided at quorum
// with commands still on their way and several connections per master.
func TestMutualExclusionWithLatency(t *testing.T) {
	// Not parallel: its clients contend without pause, and the CPU they take would starve the timing of
	// the tests beside it.
	if testing.Short() {
		t.Skip("contention run takes seconds")
	}
	const workers = 8
	rounds := redlocktest.Soak(50, 200)
	cl := newProxiedCluster(t, 5, 0)
	for i, p := range cl.proxies {
		p.SetLatency(time.Duration(i+1) * 200 * time.Microsecond) // 0.2ms to 1ms each way
	}
	// Retries a few round trips apart: retrying faster only adds rounds that find the lock held.
	sections := runContention(t, cl, workers, rounds, nil, WithRetryDelay(2*time.Millisecond, 10*time.Millisecond))
	if len(sections) != workers*rounds {
		t.Fatalf("%d critical sections recorded, want %d", len(sections), workers*rounds)
	}
	if bad := overlaps(sections); len(bad) > 0 {
		t.Fatalf("%d overlapping critical sections, first: %s", len(bad), bad[0])
	}
}
