package redlock

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// BenchmarkWaiters is issue 43's item 8: N waiters in one process, on one client, each acquire one lock, hold
// it for a short job and release it, all starting at once on three real masters. "poll" is the waiting of
// earlier versions (the random retry delay alone between rounds), "watch" today's (back off while the lock is
// held, wake on the release's notice). It reports the process CPU per waiter (as a percentage of a core, over
// the time the waiters waited), the masters' commands a second (INFO commandstats), the handover gap (from
// a release's start to the next acquisition) and the overlaps, which must be 0: a job that finds another job
// running. Run it with
//
//	REDLOCK_TEST_REDIS=required go test -run '^$' -bench BenchmarkWaiters -benchtime 1x ./redlock/
func BenchmarkWaiters(b *testing.B) {
	for _, mode := range []string{"poll", "watch"} {
		for _, n := range []int{50, 200} {
			b.Run(fmt.Sprintf("%s/%d", mode, n), func(b *testing.B) {
				for range b.N {
					waitersRun(b, mode == "poll", n)
				}
			})
		}
	}
}

func waitersRun(b *testing.B, poll bool, n int) {
	b.Helper()
	servers := redlocktest.RealServers(b, 3, redlocktest.ServerOptions{})
	ms := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		ms[i] = s
	}
	raw := redlocktest.Clients(b, ms)
	c, err := New(redlocktest.Clients(b, ms), WithRetries(math.MaxInt), WithNodeTimeout(200*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.cfg.pollOnly = poll
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const job, ttl = 50 * time.Millisecond, 10 * time.Second
	var (
		running, overlaps atomic.Int32
		mu                sync.Mutex
		lastRelease       time.Time
		gaps              []time.Duration
		waited            time.Duration
		failed            atomic.Int32
	)
	cmds0, cpu0 := commandCalls(b, raw), processCPU()
	srvCPU0 := serversCPU(servers)
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			l, err := c.Acquire(ctx, "waiters", ttl)
			if err != nil {
				failed.Add(1)
				return
			}
			got := time.Now()
			mu.Lock()
			waited += got.Sub(start)
			if !lastRelease.IsZero() {
				gaps = append(gaps, got.Sub(lastRelease))
			}
			mu.Unlock()
			if running.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(job)
			running.Add(-1)
			mu.Lock()
			lastRelease = time.Now()
			mu.Unlock()
			_ = l.Release(ctx)
		})
	}
	wg.Wait()
	wall := time.Since(start)
	cpu := processCPU() - cpu0
	cmds := commandCalls(b, raw) - cmds0
	srvCPU := serversCPU(servers) - srvCPU0
	slices.Sort(gaps)
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(100*cpu.Seconds()/waited.Seconds(), "cpu%-per-waiter")
	b.ReportMetric(float64(cmds)/wall.Seconds(), "master-cmds/s")
	b.ReportMetric(float64(cmds)/float64(n), "master-cmds/job")
	b.ReportMetric(100*srvCPU.Seconds()/wall.Seconds(), "masters-cpu%")
	if len(gaps) > 0 {
		b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds())/1000, "gap-p50-ms")
		b.ReportMetric(float64(gaps[len(gaps)*9/10].Microseconds())/1000, "gap-p90-ms")
	}
	b.ReportMetric(float64(overlaps.Load()), "overlaps")
	b.ReportMetric(float64(failed.Load()), "failed")
	if overlaps.Load() != 0 || failed.Load() != 0 {
		b.Errorf("%d overlaps, %d waiters failed", overlaps.Load(), failed.Load())
	}
}

// commandCalls is the number of commands the masters ran, from INFO commandstats (the INFO itself included).
func commandCalls(b *testing.B, raw []*redis.Client) int64 {
	b.Helper()
	var total int64
	for _, r := range raw {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		info, err := r.Info(ctx, "commandstats").Result()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(info, "\n") {
			if _, rest, ok := strings.Cut(line, ":calls="); ok {
				v, _, _ := strings.Cut(rest, ",")
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total
}

// processCPU is the CPU time this process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serversCPU is the CPU time the servers used so far.
func serversCPU(servers []*redlocktest.Server) time.Duration {
	var total time.Duration
	for _, s := range servers {
		d, _ := s.CPUTime()
		total += d
	}
	return total
}
