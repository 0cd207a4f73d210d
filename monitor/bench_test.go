package monitor

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
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

// benchmarkPoll loads resources lock keys on each of 5 real masters, polls at the default interval until discovery
// has swept every master, then measures polls back to back in both read modes, reporting round trips per master
// per poll and the heap one snapshot keeps per tracked key.
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
		// The pipelined reads are those of a user the ACL refuses scripts, as a master without them is read.
		if err := load.Do(ctx, "ACL", "SETUSER", "plain", "on", ">pw", "~*", "&*", "+@all", "-@scripting").Err(); err != nil {
			b.Fatal(err)
		}
		load.Close()
		addrs[i] = s.Addr()
	}
	for mode, plain := range []bool{false, true} {
		for i, s := range servers {
			opts := &redis.Options{Addr: s.Addr(), ContextTimeoutEnabled: true, ReadTimeout: 5 * time.Second}
			if plain {
				opts.Username, opts.Password = "plain", "pw"
			}
			c := redis.NewClient(opts)
			clients[i], hooks[i] = c, &roundTrips{}
			c.AddHook(hooks[i])
			b.Cleanup(func() { c.Close() })
		}
		b.Run([]string{"scripted", "pipelined"}[mode], func(b *testing.B) {
			// Memory of one snapshot per tracked key: heap kept once discovery has found every key, with the
			// monitor alive (it keeps the last snapshot, which is s).
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			mon, err := New(clients, addrs, Config{Timeout: 10 * time.Second})
			if err != nil {
				b.Fatal(err)
			}
			s := pollUntilSwept(b, mon, 5*time.Minute)
			runtime.GC()
			runtime.ReadMemStats(&after)
			tracked := 0
			for _, m := range s.Masters {
				if !m.Up || m.PlainReads != plain {
					b.Fatalf("%s up %v, read with plain commands %v; want up, %v: %s", m.Addr, m.Up, m.PlainReads, plain, m.Err)
				}
				tracked += m.Keys
			}
			if len(s.Locks) != resources || tracked != resources*n {
				b.Fatalf("tracked %d locks, %d keys after a full sweep; want %d, %d", len(s.Locks), tracked, resources, resources*n)
			}
			retained := float64(after.HeapAlloc) - float64(before.HeapAlloc)
			runtime.KeepAlive(mon)

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

// pollUntilSwept polls mon every Config.Interval, as the dashboard does, until a snapshot says every master has
// finished a full discovery sweep, and returns that snapshot; it fails b if that takes longer than limit.
func pollUntilSwept(b *testing.B, mon *Monitor, limit time.Duration) Snapshot {
	b.Helper()
	start := time.Now()
	missed := 0
	for next := start; ; next = next.Add(mon.cfg.Interval) {
		time.Sleep(time.Until(next))
		s := mon.Poll(context.Background())
		for _, m := range s.Masters {
			if !m.Up {
				missed++
				b.Logf("poll %d: %s did not answer: %s", s.Seq, m.Addr, m.Err)
			}
		}
		if s.Swept {
			if missed > 0 {
				b.Logf("swept after %d polls; masters missed %d readings", s.Seq, missed)
			}
			return s
		}
		if time.Since(start) > limit {
			b.Fatalf("no full sweep within %v: %s", limit, sweepProgress(s))
		}
	}
}

// sweepProgress describes where each master's discovery stands.
func sweepProgress(s Snapshot) string {
	var parts []string
	for _, m := range s.Masters {
		parts = append(parts, fmt.Sprintf("%s up=%v scanned %d/%d, %d sweeps", m.Addr, m.Up, m.Sweep.Scanned, m.Sweep.Total, m.Sweep.Completed))
	}
	return strings.Join(parts, "; ")
}

// BenchmarkDiscovery1M runs the dashboard's monitor, with the default settings, against 3 real masters that each
// hold 1,000,000 ordinary keys (no TTL, values "value:N") and the lock orders:settle (PX 600000) on all three. It
// reports the seconds until the lock is first shown held and until every master has finished a full discovery
// sweep, the share of one core each redis-server used meanwhile (from /proc), and our own; then, as a
// breakdown, the servers' share with no monitor at all and with a monitor whose discovery is off.
func BenchmarkDiscovery1M(b *testing.B) {
	requireRealServers(b)
	const (
		n        = 3
		ordinary = 1000000
		resource = "orders:settle"
		token    = "Zk3q9V2mXc7LbR1tYw8sNa"
	)
	servers := redlocktest.StartServers(b, n, redlocktest.ServerOptions{})
	loads := make([][]keyLoad, n)
	for i := range loads {
		loads[i] = []keyLoad{{keyFormat: "key:%d", valueFormat: "value:%d", to: ordinary}}
	}
	loadServers(b, servers, loads)
	clients, addrs := benchClients(b, servers)
	ctx := context.Background()
	for _, c := range clients {
		if err := c.Set(ctx, resource, token, 600*time.Second).Err(); err != nil {
			b.Fatal(err)
		}
	}
	pids := serverPIDs(b, servers)
	idle := measureIdle(b, pids, 5*time.Second)

	var shown, swept, serverShare, maxServerShare, selfShare, perKey float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mon, err := New(clients, addrs, Config{})
		if err != nil {
			b.Fatal(err)
		}
		resetStats(b, clients)
		runCtx, cancel := context.WithCancel(ctx)
		cpu0, self0, start := cpuOf(b, pids), processCPU(), time.Now()
		var first time.Duration
		var last Snapshot
		for s := range mon.Run(runCtx) {
			if first == 0 && heldBy(s, resource, token) {
				first = s.Time.Sub(start)
			}
			if s.Swept {
				last = s
				break
			}
			if time.Since(start) > 10*time.Minute {
				b.Fatalf("no full sweep within 10m: %s", sweepProgress(s))
			}
		}
		wall := time.Since(start)
		cpu1, self1 := cpuOf(b, pids), processCPU()
		cancel()
		if first == 0 {
			b.Fatalf("%s not shown held by the end of the sweep", resource)
		}
		each, largest := shares(cpu0, cpu1, wall)
		cmds := commandShares(b, clients, wall)
		// Server CPU per key scanned, less what an idle server uses: unlike the shares it does not depend on
		// how busy the machine is, which stretches the server's own clock that the budget is measured in.
		var scanned int64
		var busy time.Duration
		for j, m := range last.Masters {
			scanned += int64(m.Sweep.Completed)*m.Sweep.Total + m.Sweep.Scanned
			busy += cpu1[j] - cpu0[j] - time.Duration(idle[j]*float64(wall))
		}
		perKey += busy.Seconds() * 1e6 / float64(scanned)
		b.Logf("lock shown after %.1fs, swept after %.1fs (%s); servers %s of a core (idle %s); ours %.2f%%; "+
			"%.2fµs server CPU per key scanned; in commands (server clock, mean per server): eval %.2f%%, info %.3f%%, time %.3f%%, dbsize %.4f%%; load average %s",
			first.Seconds(), wall.Seconds(), sweepProgress(last), percents(each), percents(idle), 100*float64(self1-self0)/float64(wall),
			busy.Seconds()*1e6/float64(scanned), 100*cmds["eval"], 100*cmds["info"], 100*cmds["time"], 100*cmds["dbsize"], loadAverage())
		shown += first.Seconds()
		swept += last.Time.Sub(start).Seconds()
		serverShare += mean(each)
		maxServerShare = max(maxServerShare, largest)
		selfShare += float64(self1-self0) / float64(wall)
	}
	b.StopTimer()

	// Breakdown: the same monitor with discovery off (a budget too small for one step) polls TIME, INFO,
	// DBSIZE and the one known key.
	mon, err := New(clients, addrs, Config{ScanBudget: 1e-12})
	if err != nil {
		b.Fatal(err)
	}
	resetStats(b, clients)
	runCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	cpu0, start := cpuOf(b, pids), time.Now()
	for range mon.Run(runCtx) {
	}
	cancel()
	noDiscovery, _ := shares(cpu0, cpuOf(b, pids), time.Since(start))
	cmds := commandShares(b, clients, time.Since(start))
	b.Logf("discovery off: servers %s of a core; in commands (mean per server): eval %.3f%%, info %.3f%%, time %.3f%%, dbsize %.4f%%; load average %s",
		percents(noDiscovery), 100*cmds["eval"], 100*cmds["info"], 100*cmds["time"], 100*cmds["dbsize"], loadAverage())

	N := float64(b.N)
	b.ReportMetric(shown/N, "s-to-lock-shown")
	b.ReportMetric(swept/N, "s-to-swept")
	b.ReportMetric(100*serverShare/N, "%server-cpu-mean")
	b.ReportMetric(100*maxServerShare, "%server-cpu-max")
	b.ReportMetric(100*mean(idle), "%server-cpu-idle")
	b.ReportMetric(100*mean(noDiscovery), "%server-cpu-no-discovery")
	b.ReportMetric(100*selfShare/N, "%dashboard-cpu")
	b.ReportMetric(perKey/N, "µs-server-cpu/key-scanned")
}

// measureIdle returns the share of one core each process in pids uses over d while nothing talks to it.
func measureIdle(b *testing.B, pids []int, d time.Duration) []float64 {
	b.Helper()
	before, start := cpuOf(b, pids), time.Now()
	time.Sleep(d)
	each, _ := shares(before, cpuOf(b, pids), time.Since(start))
	return each
}

// heldBy reports whether s shows resource held by token.
func heldBy(s Snapshot, resource, token string) bool {
	for _, l := range s.Locks {
		if l.Resource == resource {
			return l.State == StateHeld && l.Holder == token
		}
	}
	return false
}

// BenchmarkRefresh100k measures the steady state of the dashboard's monitor with 100,000 lock keys in all on 5
// real masters: 20,000 resources, each locked on all five with its own token (PX 1h), as Redlock leaves them.
// Once discovery has swept every master, it polls at the default 500ms interval, as the dashboard does, and
// reports per poll the wall time and the CPU time of each redis-server and of this process, their shares of one
// core over the run, and our resident size after polling. "default" runs the default settings (discovery keeps
// sweeping within its budget); "refresh-only" turns discovery off after the first sweep, leaving the refresh of
// the known keys, TIME, INFO and DBSIZE.
func BenchmarkRefresh100k(b *testing.B) {
	requireRealServers(b)
	const n, resources = 5, 20000
	servers := redlocktest.StartServers(b, n, redlocktest.ServerOptions{})
	loads := make([][]keyLoad, n)
	for i := range loads {
		loads[i] = []keyLoad{{keyFormat: "lock:%07d", valueFormat: "tok-%022d", to: resources, ttl: time.Hour}}
	}
	loadServers(b, servers, loads)
	clients, addrs := benchClients(b, servers)
	pids := serverPIDs(b, servers)
	for _, discovery := range []bool{true, false} {
		b.Run(map[bool]string{true: "default", false: "refresh-only"}[discovery], func(b *testing.B) {
			mon, err := New(clients, addrs, Config{})
			if err != nil {
				b.Fatal(err)
			}
			s := pollUntilSwept(b, mon, 5*time.Minute)
			if len(s.Locks) != resources {
				b.Fatalf("%d locks after a full sweep, want %d", len(s.Locks), resources)
			}
			if !discovery {
				mon.cfg.ScanBudget = 1e-12 // too small for one step; safe here, nothing polls concurrently
			}
			interval := mon.cfg.Interval
			cpu0, self0, start := cpuOf(b, pids), processCPU(), time.Now()
			var polling, slowest time.Duration
			missed := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
				b.StartTimer()
				t := time.Now()
				s = mon.Poll(context.Background())
				d := time.Since(t)
				polling += d
				slowest = max(slowest, d)
				// On a crowded machine a master may miss the 1s deadline: count it rather than fail, since
				// the figures are still what the dashboard costs there.
				if s.UpCount != n {
					missed += n - s.UpCount
					b.Logf("poll %d: %d of %d masters answered", i, s.UpCount, n)
				} else if len(s.Locks) != resources {
					b.Fatalf("poll %d: %d locks, want %d: %v", i, len(s.Locks), resources, s.Warnings)
				}
			}
			b.StopTimer()
			// The run lasts until one interval after the last poll began, or until it ended if it overran.
			time.Sleep(time.Until(start.Add(time.Duration(b.N) * interval)))
			wall := time.Since(start)
			cpu1, self1 := cpuOf(b, pids), processCPU()
			rss, peak := memStatus(b)
			each, largest := shares(cpu0, cpu1, wall)
			var server time.Duration
			for i := range cpu0 {
				server += cpu1[i] - cpu0[i]
			}
			N := float64(b.N)
			perPoll := server.Seconds() / n / N // per master
			self := (self1 - self0).Seconds() / N
			b.Logf("%d polls over %.1fs: %.0fms per poll (slowest %.0fms); servers %s of a core; ours %.1f%%; RSS %.0f MiB (peak %.0f MiB); load average %s",
				b.N, wall.Seconds(), polling.Seconds()*1000/N, slowest.Seconds()*1000, percents(each),
				100*float64(self1-self0)/float64(wall), float64(rss)/(1<<20), float64(peak)/(1<<20), loadAverage())
			b.ReportMetric(slowest.Seconds()*1000, "ms-slowest")
			b.ReportMetric(perPoll*1000, "ms-server-cpu/poll/master")
			b.ReportMetric(100*perPoll/interval.Seconds(), "%server-cpu@500ms")
			b.ReportMetric(100*mean(each), "%server-cpu-measured")
			b.ReportMetric(100*largest, "%server-cpu-max")
			b.ReportMetric(self*1000, "ms-dashboard-cpu/poll")
			b.ReportMetric(100*self/interval.Seconds(), "%dashboard-cpu@500ms")
			b.ReportMetric(100*float64(self1-self0)/float64(wall), "%dashboard-cpu-measured")
			b.ReportMetric(float64(rss)/(1<<20), "MiB-RSS")
			b.ReportMetric(float64(missed), "missed-readings")
		})
	}
}
