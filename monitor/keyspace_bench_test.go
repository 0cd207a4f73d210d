package monitor

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

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

// BenchmarkReadNamedKeys reads 1,000 keys named by notifications in one call, as a poll does, on a real master:
// cache keys without a TTL (a flood of SETs) and with one (SET EX). It reports the master's time per key, as
// the script measures it and the scan budget is charged.
func BenchmarkReadNamedKeys(b *testing.B) {
	requireRealServers(b)
	servers := redlocktest.StartServers(b, 1, redlocktest.ServerOptions{})
	loadServers(b, servers, [][]keyLoad{{
		{keyFormat: "cache:%d", valueFormat: "a cached value %d", to: 100_000},
		{keyFormat: "session:%d", valueFormat: "a session of user %d", to: 100_000, ttl: time.Hour},
	}})
	clients, _ := benchClients(b, servers)
	p := &poller{client: clients[0], addr: servers[0].Addr()}
	cfg := Config{}.WithDefaults()
	for _, prefix := range []string{"cache", "session"} {
		b.Run(prefix, func(b *testing.B) {
			var server time.Duration
			for i := 0; i < b.N; i++ {
				keys := make([]string, notifiedChunk)
				for j := range keys {
					keys[j] = fmt.Sprintf("%s:%d", prefix, (i*notifiedChunk+j)%100_000)
				}
				res, err := p.readCandidates(context.Background(), cfg, keys)
				if err != nil {
					b.Fatal(err)
				}
				server += res.elapsed
			}
			b.ReportMetric(float64(server.Nanoseconds())/float64(b.N*notifiedChunk)/1000, "µs-server/key")
		})
	}
}
