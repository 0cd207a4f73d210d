package monitor

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// roundTrips counts the round trips a client makes: one per command sent alone, one per pipeline.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// BenchmarkPoll100k polls 5 real masters holding 100,000 lock keys in all: 20,000 resources, each locked on all
// five masters with its own token, as Redlock leaves them.
func BenchmarkPoll100k(b *testing.B) { benchmarkPoll(b, 20000) }

// BenchmarkPoll100kResources is BenchmarkPoll100k with 100,000 resources, each on all five masters (500,000 keys).
func BenchmarkPoll100kResources(b *testing.B) { benchmarkPoll(b, 100000) }

// benchmarkPoll loads resources lock keys on each of 5 real masters and measures full polls in both read modes,
// reporting round trips per master per poll and the heap one snapshot keeps per tracked key.
func benchmarkPoll(b *testing.B, resources int) {
	if !redlocktest.HaveRedisServer() {
		b.Skip("needs redis-server")
	}
	const n = 5
	servers := redlocktest.StartServers(b, n, redlocktest.ServerOptions{})
	ctx := context.Background()
	clients := make([]*redis.Client, n)
	addrs := make([]string, n)
	hooks := make([]*roundTrips, n)
	for i, s := range servers {
		load := s.NewClient()
		for start := 0; start < resources; start += 5000 {
			pipe := load.Pipeline()
			for k := start; k < min(start+5000, resources); k++ {
				pipe.Set(ctx, fmt.Sprintf("lock:%07d", k), fmt.Sprintf("tok-%022d", k), time.Hour)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
		load.Close()
		addrs[i] = s.Addr()
		clients[i] = redis.NewClient(&redis.Options{Addr: s.Addr(), ContextTimeoutEnabled: true, ReadTimeout: 5 * time.Second})
		hooks[i] = &roundTrips{}
		clients[i].AddHook(hooks[i])
		b.Cleanup(func() { clients[i].Close() })
	}
	for _, mode := range []readMode{readScripted, readPipelined} {
		b.Run([]string{"scripted", "pipelined"}[mode], func(b *testing.B) {
			mon, err := New(clients, addrs, Config{Timeout: 10 * time.Second})
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range mon.pollers {
				p.mode = mode
			}

			// Memory of one snapshot per tracked key: heap kept after a poll, the snapshot alive.
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s := mon.Poll(ctx)
			runtime.GC()
			runtime.ReadMemStats(&after)
			tracked := 0
			for _, m := range s.Masters {
				if !m.Up {
					b.Fatalf("%s down: %s", m.Addr, m.Err)
				}
				tracked += m.Keys
			}
			if len(s.Locks) != resources || tracked != resources*n {
				b.Fatalf("tracked %d locks, %d keys; want %d, %d", len(s.Locks), tracked, resources, resources*n)
			}
			retained := float64(after.HeapAlloc) - float64(before.HeapAlloc)
			runtime.KeepAlive(s)

			serverCPU, clientCPU := serversCPU(b, clients), processCPU()
			for _, h := range hooks {
				h.n.Store(0)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var slowest time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				s = mon.Poll(ctx)
				slowest = max(slowest, time.Since(start))
				if s.UpCount != n {
					b.Fatalf("poll %d: %d up: %v", i, s.UpCount, s.Warnings)
				}
			}
			b.StopTimer()
			var trips int64
			for _, h := range hooks {
				trips += h.n.Load()
			}
			serverCPU, clientCPU = serversCPU(b, clients)-serverCPU, processCPU()-clientCPU
			b.ReportMetric(float64(trips)/float64(n)/float64(b.N), "roundtrips/master")
			b.ReportMetric(retained/float64(tracked), "B/key-retained")
			b.ReportMetric(float64(slowest)/float64(time.Millisecond), "ms-slowest")
			b.ReportMetric(float64(serverCPU)/float64(time.Millisecond)/float64(b.N), "ms-server-cpu/op")
			b.ReportMetric(float64(clientCPU)/float64(time.Millisecond)/float64(b.N), "ms-client-cpu/op")
		})
	}
}

// serversCPU is the CPU time (user and system) the servers behind clients have used, from INFO cpu. On a
// shared machine it compares read methods better than wall time does.
func serversCPU(b *testing.B, clients []*redis.Client) time.Duration {
	var total time.Duration
	for _, c := range clients {
		info, err := c.Info(context.Background(), "cpu").Result()
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(info, "\n") {
			k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
			if k == "used_cpu_user" || k == "used_cpu_sys" {
				sec, err := strconv.ParseFloat(v, 64)
				if err != nil {
					b.Fatal(err)
				}
				total += time.Duration(sec * float64(time.Second))
			}
		}
	}
	return total
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAggregate100k measures the pure aggregation of 100,000 lock keys: 20,000 resources on 5 masters,
// with the previous snapshot as history.
func BenchmarkAggregate100k(b *testing.B) {
	const n, resources = 5, 20000
	now := time.Now()
	rs := make([]Reading, n)
	for i := range rs {
		rs[i] = Reading{Addr: fmt.Sprintf("m%d", i), Sent: now, Received: now, Uptime: time.Hour, Replicas: 0, Keys: make([]KeyReading, resources)}
		for k := range resources {
			rs[i].Keys[k] = KeyReading{Key: fmt.Sprintf("lock:%07d", (k*7919)%resources), Value: fmt.Sprintf("tok-%022d", k), PTTL: time.Minute, ReadAt: now}
		}
	}
	prev := Aggregate(nil, rs, nil, now, Config{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := Aggregate(&prev, rs, nil, now, Config{})
		if len(s.Locks) != resources {
			b.Fatalf("%d locks", len(s.Locks))
		}
	}
}
