package redlock

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// BenchmarkKeeperChecks measures what the keepers' checks between extensions cost the masters: 1,000 locks of
// the default 10s TTL held by keepers on three real masters, each master's CPU over a 10s window, with checks
// at their default pace (a second apart) and with checks off. The locks are held by one client, whose calls
// to a master share batches, and by a client each, as 1,000 `run` processes hold them: a connection and a
// request per check on every master. The node timeout is a second: a thousand clients in one process on a
// small, busy machine can overrun the default 50ms (a lock once expired so), and the figures are the masters'
// CPU, not the clients'. The figures are reported as metrics; run it with -benchtime 1x.
func BenchmarkKeeperChecks(b *testing.B) {
	const locks, ttl, window = 1000, 10 * time.Second, 10 * time.Second
	for _, holders := range []struct {
		name    string
		clients int // the locks are spread over this many clients
	}{{"one-client", 1}, {"a-client-per-lock", locks}} {
		for _, mode := range []struct {
			name  string
			every time.Duration
		}{{"checks-off", -1}, {"checks-on", 0}} {
			b.Run(holders.name+"/"+mode.name, func(b *testing.B) {
				benchmarkKeeperChecks(b, locks, holders.clients, ttl, window, mode.every)
			})
		}
	}
}

// benchmarkKeeperChecks is one case of BenchmarkKeeperChecks: locks kept by keepers on clients clients (lock i
// on client i mod clients), checked every every (0: the default pace, negative: checks off).
func benchmarkKeeperChecks(b *testing.B, locks, clients int, ttl, window, every time.Duration) {
	if !redlocktest.HaveRedisServer() {
		b.Skip("benchmarks need redis-server on PATH")
	}
	servers := redlocktest.StartServers(b, 3, redlocktest.ServerOptions{})
	ms := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		ms[i] = s
	}
	opts := []Option{WithMaxExtensions(1000), WithNodeTimeout(time.Second)}
	if every != 0 {
		opts = append(opts, WithCheckInterval(every))
	}
	masters := redlocktest.Clients(b, ms)
	cs := make([]*Client, clients)
	for i := range cs {
		c, err := New(masters, opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		cs[i] = c
	}
	ctx := context.Background()
	var keepers []*Keeper
	for i := range locks {
		l, err := cs[i%clients].Acquire(ctx, fmt.Sprintf("bench:job:%d", i), ttl)
		if err != nil {
			b.Fatal(err)
		}
		keepers = append(keepers, l.AutoExtend())
	}
	defer func() {
		for _, k := range keepers {
			k.Stop()
		}
	}()
	time.Sleep(time.Second) // the keepers' baselines are taken
	before := cpuTimes(b, servers)
	start := time.Now()
	for b.Loop() {
		time.Sleep(window)
	}
	wall := time.Since(start)
	after := cpuTimes(b, servers)
	var most float64
	for i := range servers {
		most = max(most, float64(after[i]-before[i])/float64(wall))
	}
	b.ReportMetric(100*most, "%cpu-busiest-master")
	for _, k := range keepers {
		select {
		case err := <-k.Lost():
			b.Fatalf("a lock was lost during the benchmark: %v", err)
		default:
		}
	}
}

// cpuTimes reads each server's CPU time.
func cpuTimes(b *testing.B, servers []*redlocktest.Server) []time.Duration {
	b.Helper()
	out := make([]time.Duration, len(servers))
	for i, s := range servers {
		var err error
		if out[i], err = s.CPUTime(); err != nil {
			b.Fatal(err)
		}
	}
	return out
}
