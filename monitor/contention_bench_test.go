package monitor

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/holds"
)

// BenchmarkHoldLogMemory10k measures what the hold logs cost: 10,000 locks on 3 masters, each changing hands at
// every poll, a poll a second, until each has the most intervals it keeps (Config.MaxIntervals: the default 256,
// and 900, the whole default window of 15 minutes at one a second). It reports the heap one snapshot keeps per
// lock and per interval kept, the process's RSS at the end, and the time Aggregate takes per poll. Run it once:
//
//	go test ./monitor -run '^$' -bench HoldLogMemory10k -benchtime 1x
func BenchmarkHoldLogMemory10k(b *testing.B) {
	for _, limit := range []int{DefaultMaxIntervals, 900} {
		b.Run(fmt.Sprintf("max-intervals-%d", limit), func(b *testing.B) { benchmarkHoldLogMemory(b, 10000, limit) })
	}
}

// benchmarkHoldLogMemory runs limit+holds.ChunkLen polls of locks locks changing hands at each.
func benchmarkHoldLogMemory(b *testing.B, locks, limit int) {
	cfg := Config{MaxIntervals: limit, History: DefaultHistory}
	addrs := []string{"m0", "m1", "m2"}
	keys := make([]string, locks)
	for k := range keys {
		keys[k] = fmt.Sprintf("lock:%06d", k)
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	poll := func(prev *Snapshot, p int) Snapshot {
		now := t0.Add(time.Duration(p) * time.Second)
		rs := make([]Reading, len(addrs))
		tokens := make([]string, locks)
		for k := range tokens {
			tokens[k] = fmt.Sprintf("%08x-%06d-c0ffee2b8e4d", p, k) // 24 bytes, as random tokens are
		}
		for i, a := range addrs {
			rs[i] = Reading{Addr: a, Sent: now, Received: now, Uptime: UnknownUptime, Replicas: -1,
				Sweep: Sweep{Completed: 1, Total: -1}, Keys: make([]KeyReading, locks)}
			for k, key := range keys {
				rs[i].Keys[k] = KeyReading{Key: key, Value: tokens[k], PTTL: 30 * time.Second, ReadAt: now}
			}
		}
		return Aggregate(prev, rs, nil, now, cfg)
	}
	for range b.N {
		first := poll(nil, 0)
		base := heapAfterGC()
		prev := &first
		polls := limit + holds.ChunkLen
		start := time.Now()
		for p := 1; p <= polls; p++ {
			s := poll(prev, p)
			prev = &s
		}
		perPoll := time.Since(start) / time.Duration(polls)
		final := heapAfterGC()
		kept := 0
		for _, h := range prev.holdLogs {
			kept += closedCount(h)
		}
		runtime.KeepAlive(prev)
		b.ReportMetric(float64(final)/float64(locks), "B/lock")
		b.ReportMetric(float64(final-base)/float64(kept), "B/interval")
		b.ReportMetric(float64(kept)/float64(locks), "intervals/lock")
		b.ReportMetric(float64(rssBytes())/(1<<20), "MiB-RSS")
		b.ReportMetric(float64(perPoll)/float64(time.Millisecond), "ms/poll")
	}
}

// heapAfterGC is the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// rssBytes is the process's resident set size (Linux /proc), 0 where unknown.
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
