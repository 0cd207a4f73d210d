package monitor

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// BenchmarkNotifiedNewLock runs the dashboard's monitor, with the default settings, against one real master
// holding 1,000,000 ordinary keys whose notify-keyspace-events is KEA: each iteration writes a new lock (SET NX
// PX) and waits for the first snapshot that shows it. It reports the median and the slowest time from the SET
// to that snapshot, and the polls in between; the scan alone would take minutes over this keyspace
// (BenchmarkDiscovery1M).
func BenchmarkNotifiedNewLock(b *testing.B) {
	requireRealServers(b)
	servers := redlocktest.StartServers(b, 1, redlocktest.ServerOptions{Args: []string{"--notify-keyspace-events", "KEA"}})
	loadServers(b, servers, [][]keyLoad{{{keyFormat: "key:%d", valueFormat: "value:%d", to: 1_000_000}}})
	clients, addrs := benchClients(b, servers)
	mon, err := New(clients, addrs, Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer mon.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snaps := mon.Run(ctx)
	for s := range snaps {
		if s.Masters[0].Notified {
			break
		}
		if s.Seq > 20 {
			b.Fatalf("not notified after 20 polls: %q", s.Masters[0].NotifiedWhy)
		}
	}
	var took []time.Duration
	var polls int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resource := fmt.Sprintf("orders:new:%d", i)
		set := time.Now()
		if err := setNXPX(ctx, clients[0], resource, "Zk3q9V2mXc7LbR1tYw8sNa"); err != nil {
			b.Fatal(err)
		}
		for s := range snaps {
			polls++
			if cellOf(s, resource) != nil {
				took = append(took, s.Time.Sub(set))
				break
			}
			if time.Since(set) > time.Minute {
				b.Fatalf("%s not shown within a minute", resource)
			}
		}
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "ms-median")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "ms-slowest")
	b.ReportMetric(float64(polls)/float64(b.N), "polls/lock")
	b.Logf("%d locks at the default 500ms poll: median %v, slowest %v; load average %s", b.N, took[len(took)/2].Round(time.Millisecond),
		took[len(took)-1].Round(time.Millisecond), loadAverage())
}

// BenchmarkNotificationFlood writes distinct cache keys (no TTL) at 1,000 and 10,000 a second for 10s to one
// real master watched by the dashboard's monitor (default settings): first with notify-keyspace-events "", then
// with KEA and the monitor subscribed. The difference is what the notifications cost the master (a message per
// write and event) and this process (receiving, queueing and reading the named keys); the polls and the scan
// cost the same in both. It reports both as % of a core, the master's cost per write, and the polls that came
// late (over 1.5 intervals apart). A first 2s of writes, not counted, warms up the connections and the server.
func BenchmarkNotificationFlood(b *testing.B) {
	requireRealServers(b)
	for _, rate := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("%d/s", rate), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				floodOnce(b, rate, 10*time.Second)
			}
		})
	}
}

// floodOnce is one run of BenchmarkNotificationFlood at rate writes a second for d, each phase.
func floodOnce(b *testing.B, rate int, d time.Duration) {
	servers := redlocktest.StartServers(b, 1, redlocktest.ServerOptions{})
	clients, addrs := benchClients(b, servers)
	pids := serverPIDs(b, servers)
	ctx := context.Background()
	write := func(name string, d time.Duration) (server, self float64) {
		return writeCacheKeys(b, clients[0], pids[0], name, rate, d)
	}
	write("warm-up", 2*time.Second)
	watched := func(name string) (server, self float64, late int, s Snapshot) {
		mon, err := New(clients, addrs, Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer mon.Close()
		runCtx, cancel := context.WithCancel(ctx)
		snaps := mon.Run(runCtx)
		s = <-snaps
		done := make(chan struct{})
		go func() {
			defer close(done)
			for next := range snaps {
				if next.Time.Sub(s.Time) > 3*DefaultInterval/2 {
					late++
				}
				s = next
			}
		}()
		server, self = write(name, d)
		cancel()
		<-done
		return server, self, late, s
	}
	serverPolled, selfPolled, latePolled, _ := watched("off")
	if err := clients[0].ConfigSet(ctx, "notify-keyspace-events", "KEA").Err(); err != nil {
		b.Fatal(err)
	}
	serverNotified, selfNotified, lateNotified, s := watched("on")
	if !s.Masters[0].Notified {
		b.Fatalf("not notified: %s", s.Masters[0].NotifiedWhy)
	}
	b.ReportMetric(100*(serverNotified-serverPolled), "%core-master")
	b.ReportMetric(100*(selfNotified-selfPolled), "%core-monitor")
	b.ReportMetric((serverNotified-serverPolled)*float64(time.Second/time.Microsecond)/float64(rate), "µs-master/write")
	b.Logf("%d writes/s: master %.1f%% of a core without notifications, %.1f%% with; this process %.1f%%, %.1f%%; late polls %d, %d; %s; load average %s",
		rate, 100*serverPolled, 100*serverNotified, 100*selfPolled, 100*selfNotified, latePolled, lateNotified,
		s.Masters[0].NotifiedWhy, loadAverage())
}

// writeCacheKeys writes distinct keys named after name, without a TTL, at rate a second for d, in pipelines
// every 10ms, and returns the share of a core the master (process pid) and this process used meanwhile.
func writeCacheKeys(b *testing.B, c *redis.Client, pid int, name string, rate int, d time.Duration) (server, self float64) {
	ctx := context.Background()
	cpu0, self0, start := cpuOf(b, []int{pid}), processCPU(), time.Now()
	pipe := c.Pipeline()
	for tick := 0; time.Since(start) < d; tick++ {
		for j := range rate / 100 {
			pipe.Set(ctx, fmt.Sprintf("cache:%s:%d:%d", name, tick, j), "a cached value", 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
		time.Sleep(time.Until(start.Add(time.Duration(tick+1) * 10 * time.Millisecond)))
	}
	wall := time.Since(start)
	each, _ := shares(cpu0, cpuOf(b, []int{pid}), wall)
	return each[0], float64(processCPU()-self0) / float64(wall)
}
