package redlock

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// benchMasters starts five real redis-server masters and a client on them;
// benchmarks are only meaningful against real servers.
func benchMasters(b *testing.B) ([]*redis.Client, *Client) {
	b.Helper()
	if !redlocktest.HaveRedisServer() {
		b.Skip("benchmarks need redis-server on PATH")
	}
	servers := redlocktest.StartServers(b, 5, redlocktest.ServerOptions{})
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	clients := redlocktest.Clients(b, masters)
	c, err := New(clients)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return clients, c
}

// baselineCycle is the plain way to do a Redlock cycle with go-redis: one
// goroutine per master for SET NX PX, then one per master for the
// compare-and-delete script. Its per-command timeout is generous, so that
// under load it is measured rather than failed.
func baselineCycle(ctx context.Context, masters []*redis.Client, key string, ttl time.Duration) error {
	token := newToken()
	var ok atomic.Int32
	var wg sync.WaitGroup
	for _, m := range masters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			if m.SetNX(cctx, key, token, ttl).Val() {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	for _, m := range masters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			releaseScript.Run(cctx, m, []string{key}, token)
		}()
	}
	wg.Wait()
	if int(ok.Load()) < len(masters)/2+1 {
		return fmt.Errorf("baseline: no quorum")
	}
	return nil
}

func redlockCycle(ctx context.Context, c *Client, key string, ttl time.Duration) error {
	l, err := c.TryAcquire(ctx, key, ttl)
	if err != nil {
		return err
	}
	return l.Release(ctx)
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkAcquireRelease measures one locker's acquire+release latency, the
// client against the baseline, alternating cycles so both see the same
// machine; it reports both medians and their ratio.
func BenchmarkAcquireRelease(b *testing.B) {
	masters, c := benchMasters(b)
	ctx := context.Background()
	var ours, base []time.Duration
	b.ResetTimer()
	for i := range b.N {
		key := fmt.Sprintf("bench:%d", i)
		start := time.Now()
		if err := redlockCycle(ctx, c, key, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		ours = append(ours, time.Since(start))
		start = time.Now()
		if err := baselineCycle(ctx, masters, key, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		base = append(base, time.Since(start))
	}
	b.StopTimer()
	mo, mb := median(ours), median(base)
	b.ReportMetric(float64(mo.Microseconds()), "redlock-median-µs")
	b.ReportMetric(float64(mb.Microseconds()), "baseline-median-µs")
	b.ReportMetric(float64(mo)/float64(mb), "latency-ratio")
}

// BenchmarkContention64 measures cycles per second with 64 concurrent lockers
// on distinct keys, the client against the baseline in the same run, and
// reports both rates and their ratio. b.N cycles are run by each.
func BenchmarkContention64(b *testing.B) {
	masters, c := benchMasters(b)
	ctx := context.Background()
	run := func(cycle func(key string) error) float64 {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(b.N) {
					if err := cycle(fmt.Sprintf("contention:%d", w)); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return float64(b.N) / time.Since(start).Seconds()
	}
	b.ResetTimer()
	ours := run(func(key string) error { return redlockCycle(ctx, c, key, 10*time.Second) })
	base := run(func(key string) error { return baselineCycle(ctx, masters, key, 10*time.Second) })
	b.StopTimer()
	b.ReportMetric(ours, "redlock-cycles/s")
	b.ReportMetric(base, "baseline-cycles/s")
	b.ReportMetric(ours/base, "throughput-ratio")
}
