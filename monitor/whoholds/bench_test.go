package whoholds_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// Load of the cost benchmark: what a busy master serves.
const (
	loadRate    = 20_000          // commands a second, GET and SET in equal parts
	loadWorkers = 32              // goroutines sharing the rate, one command in flight each
	costWindow  = 5 * time.Second // the sample's length, and the baseline's
)

// loadResult is what the load generator measured over a window.
type loadResult struct {
	ops       int64
	latencies []time.Duration // a sample of commands' round trips
}

// runLoad sends GET and SET at loadRate in all from loadWorkers goroutines through c for d, each paced to its
// share (a worker behind its schedule catches up at once, so a master that slows down shows as fewer commands).
func runLoad(c *redis.Client, d time.Duration) loadResult {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var ops atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	interval := time.Duration(loadWorkers) * time.Second / loadRate
	start := time.Now()
	for w := range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; ; i++ {
				if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
					time.Sleep(wait)
				}
				if ctx.Err() != nil {
					break
				}
				key := fmt.Sprintf("load:%d:%d", w, i%1000)
				t0 := time.Now()
				var err error
				if i%2 == 0 {
					err = c.Set(ctx, key, "value-of-some-bytes", 0).Err()
				} else {
					err = c.Get(ctx, key).Err()
				}
				if err == nil || err == redis.Nil {
					ops.Add(1)
					if i%16 == 0 {
						mine = append(mine, time.Since(t0))
					}
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return loadResult{ops: ops.Load(), latencies: lat}
}

// selfCPU is the processor time this process (the load generator, and the sample's reader) has used.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// quantile is the q-quantile of sorted durations, in microseconds.
func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[int(q*float64(len(sorted)-1))].Microseconds())
}

// BenchmarkSampleCostOnABusyMaster measures what a 5 s sample costs a real master serving 20,000 commands a
// second: the master's CPU share (from /proc/PID/stat) over 5 s of load alone and over 5 s of load with the
// sample running, and the load's throughput and round trips in both; and this process's own CPU share (the load
// generator, plus the sample's reader in the second window), since on a small machine the reader competes with
// the load for the same cores. A holder extends a lock every 500ms meanwhile,
// and the sample must name it. Run it once: go test ./monitor/whoholds -run '^$' -bench SampleCost -benchtime 1x
func BenchmarkSampleCostOnABusyMaster(b *testing.B) {
	s := redlocktest.RealServers(b, 1, redlocktest.ServerOptions{})[0]
	load := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: loadWorkers, MinIdleConns: loadWorkers})
	defer load.Close()
	admin := s.NewClient()
	defer admin.Close()
	holder := redis.NewClient(&redis.Options{Addr: s.Addr(), ClientName: holderName})
	defer holder.Close()
	ctx := context.Background()
	const key, token = "billing:invoice-7", "the-holders-token"
	if err := holder.Set(ctx, key, token, time.Minute).Err(); err != nil {
		b.Fatal(err)
	}
	extend := redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
	stopHolder := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopHolder:
				return
			case <-time.After(500 * time.Millisecond):
				extend.Run(ctx, holder, []string{key}, token, 60000)
			}
		}
	}()
	defer close(stopHolder)
	runLoad(load, time.Second) // warm up: connections open, keys exist

	window := func(during func()) (cpuShare, selfShare float64, res loadResult) {
		cpu0, err := s.CPUTime()
		if err != nil {
			b.Fatal(err)
		}
		self0 := selfCPU(b)
		t0 := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			if during != nil {
				during()
			}
		}()
		res = runLoad(load, costWindow)
		<-done
		wall := time.Since(t0)
		cpu1, err := s.CPUTime()
		if err != nil {
			b.Fatal(err)
		}
		return float64(cpu1-cpu0) / float64(wall), float64(selfCPU(b)-self0) / float64(wall), res
	}

	var baseSelf, sampleSelf, baseCPU, sampleCPU, baseRate, sampleRate, baseP50, sampleP50, baseP99, sampleP99, lines float64
	for range b.N {
		cpu, self, base := window(nil)
		var report whoholds.Report
		var sampleErr error
		cpuS, selfS, with := window(func() {
			report, sampleErr = whoholds.Sample(ctx, admin, s.Addr(), whoholds.Request{Key: key, Tokens: []string{token},
				For: costWindow, MaxLines: whoholds.MaxMaxLines})
		})
		if sampleErr != nil {
			b.Fatal(sampleErr)
		}
		if h := report.Holders(); len(h) != 1 || h[0].Name != holderName {
			b.Fatalf("under load the sample named %v, want the connection named %s", describeAll(h), holderName)
		}
		if report.Stopped != whoholds.StopTime {
			b.Fatalf("the sample stopped by %s after %d lines; want it to run its 5s", report.Stopped, report.Lines)
		}
		baseCPU += cpu
		baseSelf += self
		sampleSelf += selfS
		sampleCPU += cpuS
		baseRate += float64(base.ops) / costWindow.Seconds()
		sampleRate += float64(with.ops) / costWindow.Seconds()
		baseP50 += quantile(base.latencies, .5)
		sampleP50 += quantile(with.latencies, .5)
		baseP99 += quantile(base.latencies, .99)
		sampleP99 += quantile(with.latencies, .99)
		lines += float64(report.Lines)
	}
	n := float64(b.N)
	b.ReportMetric(100*baseCPU/n, "master-cpu-%-load-only")
	b.ReportMetric(100*sampleCPU/n, "master-cpu-%-with-sample")
	b.ReportMetric(100*baseSelf/n, "bench-process-cpu-%-load-only")
	b.ReportMetric(100*sampleSelf/n, "bench-process-cpu-%-with-sample")
	b.ReportMetric(baseRate/n, "load-ops/s-load-only")
	b.ReportMetric(sampleRate/n, "load-ops/s-with-sample")
	b.ReportMetric(100*(baseRate-sampleRate)/baseRate, "load-throughput-drop-%")
	b.ReportMetric(baseP50/n, "load-p50-µs-load-only")
	b.ReportMetric(sampleP50/n, "load-p50-µs-with-sample")
	b.ReportMetric(baseP99/n, "load-p99-µs-load-only")
	b.ReportMetric(sampleP99/n, "load-p99-µs-with-sample")
	b.ReportMetric(lines/n, "monitor-lines-read")
}
