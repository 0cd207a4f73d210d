package redlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// benchServers starts five real redis-server masters; benchmarks are only
// meaningful against real servers.
func benchServers(b *testing.B) []redlocktest.Master {
	b.Helper()
	if !redlocktest.HaveRedisServer() {
		b.Skip("benchmarks need redis-server on PATH")
	}
	servers := redlocktest.StartServers(b, 5, redlocktest.ServerOptions{})
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	return masters
}

// benchMasters starts five real redis-server masters and a client on them.
func benchMasters(b *testing.B) ([]*redis.Client, *Client) {
	b.Helper()
	clients := redlocktest.Clients(b, benchServers(b))
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

// pingRTT is the median round trip of 50 PINGs, each to every master at once
// and done when the slowest answers, as in a release round.
func pingRTT(ctx context.Context, masters []*redis.Client) time.Duration {
	var rtts []time.Duration
	for range 50 {
		start := time.Now()
		var wg sync.WaitGroup
		for _, m := range masters {
			wg.Go(func() { m.Ping(ctx) })
		}
		wg.Wait()
		rtts = append(rtts, time.Since(start))
	}
	return median(rtts)
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

// BenchmarkNetwork measures cycles per second of 1, 4 and 16 lockers on
// distinct keys with every master behind a proxy delaying each direction by
// 15 ms (node timeout 100 ms), the client against the baseline over the same
// proxies in the same run. It reports both rates, their ratio, the client's
// rate as a fraction of the physical limit (lockers / two round trips), and
// the acquisitions of free keys that failed (and the client's releases that
// some master did not confirm in time); a new client's first acquisition
// must succeed. Since the proxy's timers fire late by a fraction of a
// millisecond, it also reports the rate as a fraction of the limit set by
// the round trip measured through the proxies (a PING's median). b.N cycles
// are run by each locker.
func BenchmarkNetwork(b *testing.B) {
	if !redlocktest.HaveRedisServer() {
		b.Skip("benchmarks need redis-server on PATH")
	}
	const oneWay = 15 * time.Millisecond
	for _, lockers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("lockers=%d", lockers), func(b *testing.B) {
			cl := newProxiedCluster(b, 5, oneWay)
			c, err := New(cl.clients(b), WithNodeTimeout(100*time.Millisecond))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			if err := redlockCycle(ctx, c, "first", 10*time.Second); err != nil {
				b.Errorf("a new client's first acquisition failed: %v", err)
			}
			baseline := cl.clients(b)
			var failed, unconfirmed atomic.Int64
			run := func(cycle func(key string) error) float64 {
				var wg sync.WaitGroup
				start := time.Now()
				for w := range lockers {
					wg.Go(func() {
						for i := range b.N {
							switch err := cycle(fmt.Sprintf("net:%d:%d", w, i)); {
							case errors.Is(err, ErrIncomplete):
								unconfirmed.Add(1)
							case err != nil:
								failed.Add(1)
							}
						}
					})
				}
				wg.Wait()
				return float64(lockers*b.N) / time.Since(start).Seconds()
			}
			// One cycle per locker first, so that both have their connections.
			run(func(key string) error { return baselineCycle(ctx, baseline, "warm:"+key, 10*time.Second) })
			failed.Store(0)
			measured := float64(lockers) / (2 * pingRTT(ctx, baseline)).Seconds()
			b.ResetTimer()
			ours := run(func(key string) error { return redlockCycle(ctx, c, key, 10*time.Second) })
			oursFailed := failed.Swap(0)
			base := run(func(key string) error { return baselineCycle(ctx, baseline, key, 10*time.Second) })
			b.StopTimer()
			limit := float64(lockers) / (2 * 2 * oneWay).Seconds()
			b.ReportMetric(ours, "redlock-cycles/s")
			b.ReportMetric(base, "baseline-cycles/s")
			b.ReportMetric(ours/base, "throughput-ratio")
			b.ReportMetric(ours/limit, "of-limit")
			b.ReportMetric(ours/measured, "of-measured-limit")
			b.ReportMetric(float64(oursFailed), "redlock-failed")
			b.ReportMetric(float64(unconfirmed.Load()), "redlock-unconfirmed-releases")
			b.ReportMetric(float64(failed.Load()), "baseline-failed")
		})
	}
}
