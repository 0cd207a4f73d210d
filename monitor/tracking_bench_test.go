package monitor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// BenchmarkWatchLocks measures, side by side in one run, what watching 1,000 to 100,000 locks costs with
// every key polled, with tracking, with tracking on masters that publish keyspace notifications, and with
// tracking under a 1% scan budget: 5 real masters, each lock a resource on all five (a 24-character token, a
// one-hour TTL), the default 500ms poll, after the first full sweep; nothing changes, then (changes-1000/s,
// over 10,000 and 100,000 locks) 1,000 locks a second get a new token on all five masters, with a run of the
// writer alone as the baseline its own cost is taken from. Per mode: each server's share of a core, this
// process's share, its RSS and heap after a GC, the polls on time (all masters answered within the interval,
// no lock unknown), and how long a full sweep of the keyspace takes at the scan's pace (how soon a new lock
// is found without notifications).
//
//	REDLOCK_TEST_REDIS=required go test -run '^$' -bench WatchLocks -benchtime 20x -timeout 60m ./monitor
func BenchmarkWatchLocks(b *testing.B) {
	requireRealServers(b)
	const n = 5
	servers := redlocktest.StartServers(b, n, redlocktest.ServerOptions{})
	clients, addrs := benchClients(b, servers)
	pids := serverPIDs(b, servers)
	for _, locks := range []int{1000, 10000, 20000, 100000} {
		loadLocks(b, servers, clients, locks)
		for _, mode := range []string{RefreshPolling, RefreshTracking, notifiedMode, smallBudgetMode} {
			b.Run(fmt.Sprintf("locks-%d/%s", locks, mode), func(b *testing.B) {
				w := watchRun{clients: clients, addrs: addrs, pids: pids, locks: locks, tracking: mode != RefreshPolling,
					notified: mode == notifiedMode}
				if mode == smallBudgetMode {
					w.scanBudget = smallScanBudget
				}
				w.measure(b, nil)
			})
		}
	}
	for _, changing := range []int{10000, 100000} { // the locks a changing run has; 1,000 of them change a second
		loadLocks(b, servers, clients, changing)
		b.Run(fmt.Sprintf("changes-1000/s/locks-%d/writer-alone", changing), func(b *testing.B) {
			w := watchRun{clients: clients, addrs: addrs, pids: pids, locks: changing, alone: true}
			w.measure(b, startWriter(b, servers, changing))
		})
		for _, mode := range []string{RefreshPolling, RefreshTracking, notifiedMode} {
			b.Run(fmt.Sprintf("changes-1000/s/locks-%d/%s", changing, mode), func(b *testing.B) {
				w := watchRun{clients: clients, addrs: addrs, pids: pids, locks: changing, tracking: mode != RefreshPolling,
					notified: mode == notifiedMode}
				w.measure(b, startWriter(b, servers, changing))
			})
		}
	}
}

// notifiedMode names the runs of BenchmarkWatchLocks on masters that publish keyspace notifications (KEA).
const notifiedMode = RefreshTracking + "+notified"

// smallBudgetMode names the runs of BenchmarkWatchLocks that track keys with a scan budget of smallScanBudget
// instead of the default: what each master pays for the scan, against how soon it finds a new lock.
const (
	smallBudgetMode = RefreshTracking + "+scan-budget-1%"
	smallScanBudget = 0.01
)

// watchRun is one measured run of BenchmarkWatchLocks.
type watchRun struct {
	clients  []*redis.Client
	addrs    []string
	pids     []int
	locks    int  // the locks on the masters
	tracking bool // the monitor tracks keys; otherwise it polls them all
	notified bool // the masters publish keyspace notifications (KEA), for the run
	alone    bool // no monitor: the writer alone, for its own cost
	// scanBudget is the monitor's Config.ScanBudget; 0 the default.
	scanBudget float64
}

// measure starts a monitor (unless alone), polls it until swept and settled, then polls b.N times at its
// interval, with writer (nil: none) running, and reports the costs.
func (w watchRun) measure(b *testing.B, writer *writer) {
	if w.notified {
		notifyAll(b, w.clients, "KEA")
		defer notifyAll(b, w.clients, "")
	}
	var mon *Monitor
	if !w.alone {
		var err error
		mon, err = New(w.clients, w.addrs, Config{NoTracking: !w.tracking, ScanBudget: w.scanBudget})
		if err != nil {
			b.Fatal(err)
		}
		defer mon.Close()
		sweepQuietly(b, mon, 10*time.Minute)
		for range 3 { // the keys discovery found are read once more, on the tracking connection
			time.Sleep(mon.cfg.Interval)
			mon.Poll(context.Background())
		}
	}
	if writer != nil {
		defer writer.stop()
		writer.counted.Store(0)
	}
	interval := DefaultInterval
	debug.FreeOSMemory()
	cpu0, self0, start := cpuOf(b, w.pids), processCPU(), time.Now()
	onTime := 0
	var counted []*LockView // the locks whose unknown ones were counted last
	var unknown int
	var first, last sweeps // kept apart from the snapshots, which would keep their arrays alive
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		if mon == nil {
			continue
		}
		t := time.Now()
		s := mon.Poll(context.Background())
		if !sameLocks(s.Locks, counted) { // a quiet poll shares its locks: they were counted, and this process's cost is the monitor's
			counted, unknown = s.Locks, unknownLocks(s)
		}
		if time.Since(t) <= interval && s.UpCount == len(w.pids) && unknown == 0 && (writer != nil || len(s.Locks) == w.locks) {
			onTime++
		}
		if i == 0 {
			first = sweepsOf(s)
		}
		last = sweepsOf(s)
	}
	b.StopTimer()
	time.Sleep(time.Until(start.Add(time.Duration(b.N) * interval)))
	wall := time.Since(start)
	cpu1, self1 := cpuOf(b, w.pids), processCPU()
	w.report(b, reportInputs{cpu0, cpu1, self1 - self0, wall, onTime, writer, sweepTime(first, last)})
}

// sweeps are the masters' sweeps of one snapshot, and its time.
type sweeps struct {
	at   time.Time
	each []Sweep
}

// sweepsOf returns the sweeps of s.
func sweepsOf(s Snapshot) sweeps {
	out := sweeps{at: s.Time, each: make([]Sweep, len(s.Masters))}
	for j, m := range s.Masters {
		out.each[j] = m.Sweep
	}
	return out
}

// sweepTime is how long a full sweep of the keyspace takes at the pace the masters' scans kept from first to
// last (the mean over the masters of keyspace / keys scanned a second); 0 when nothing was scanned.
func sweepTime(first, last sweeps) time.Duration {
	span := last.at.Sub(first.at)
	if len(first.each) == 0 || len(first.each) != len(last.each) || span <= 0 {
		return 0
	}
	var sum time.Duration
	for j, l := range last.each {
		f := first.each[j]
		scanned := int64(l.Completed-f.Completed)*l.Total + l.Scanned - f.Scanned
		if scanned <= 0 || l.Total <= 0 {
			return 0
		}
		sum += time.Duration(float64(span) * float64(l.Total) / float64(scanned))
	}
	return sum / time.Duration(len(last.each))
}

// reportInputs are what one run measured.
type reportInputs struct {
	cpu0, cpu1 []time.Duration
	self, wall time.Duration
	onTime     int
	writer     *writer
	sweep      time.Duration // a full sweep's time at the scan's pace (sweepTime)
}

// report logs and reports one run's figures.
func (w watchRun) report(b *testing.B, in reportInputs) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, _ := memStatus(b)
	each, largest := shares(in.cpu0, in.cpu1, in.wall)
	self := float64(in.self) / float64(in.wall)
	changes := ""
	if in.writer != nil {
		per := float64(in.writer.counted.Load()) / in.wall.Seconds()
		changes = fmt.Sprintf("; %.0f changes/s", per)
		b.ReportMetric(per, "changes/s")
	}
	b.Logf("%d locks, %s: servers %s of a core; this process %.1f%%; RSS %.0f MiB, heap %.0f MiB; %d of %d polls on time%s; a sweep %v; load average %s",
		w.locks, w.mode(), percents(each), 100*self, float64(rss)/(1<<20), float64(ms.HeapInuse)/(1<<20), in.onTime, b.N, changes,
		in.sweep.Round(100*time.Millisecond), loadAverage())
	b.ReportMetric(in.sweep.Seconds(), "sweep-s")
	b.ReportMetric(100*mean(each), "%server-cpu-mean")
	b.ReportMetric(100*largest, "%server-cpu-max")
	b.ReportMetric(100*self, "%process-cpu")
	b.ReportMetric(float64(rss)/(1<<20), "MiB-RSS")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap")
	b.ReportMetric(float64(in.onTime), "polls-on-time")
	var load float64
	_, _ = fmt.Sscan(loadAverage(), &load)
	b.ReportMetric(load, "load-average-1m")
}

// sweepQuietly polls mon at its interval until every master has finished a full sweep, failing b after limit.
// Unlike pollUntilSwept it logs nothing per poll: at 100,000 locks the benchmark's log would be cut before its
// figures.
func sweepQuietly(b *testing.B, mon *Monitor, limit time.Duration) {
	b.Helper()
	start := time.Now()
	for next := start; ; next = next.Add(mon.cfg.Interval) {
		time.Sleep(time.Until(next))
		s := mon.Poll(context.Background())
		if s.Swept {
			return
		}
		if time.Since(start) > limit {
			b.Fatalf("no full sweep within %v: %s", limit, sweepProgress(s))
		}
	}
}

// mode names the run's mode.
func (w watchRun) mode() string {
	switch {
	case w.alone:
		return "writer alone"
	case w.notified:
		return notifiedMode
	case w.scanBudget != 0:
		return smallBudgetMode
	case w.tracking:
		return RefreshTracking
	}
	return RefreshPolling
}

// unknownLocks counts the locks of s with an unknown cell. It reads one field of each: the benchmark's own
// cost is in this process's.
func unknownLocks(s Snapshot) int {
	n := 0
	for i := range s.Locks {
		if s.Locks[i].Unknown > 0 {
			n++
		}
	}
	return n
}

// notifyAll sets the masters' notify-keyspace-events to flags.
func notifyAll(b *testing.B, clients []*redis.Client, flags string) {
	b.Helper()
	for _, c := range clients {
		if err := c.ConfigSet(context.Background(), "notify-keyspace-events", flags).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// loadLocks empties the servers and sets locks lock keys on each, the same on all of them.
func loadLocks(b *testing.B, servers []*redlocktest.Server, clients []*redis.Client, locks int) {
	b.Helper()
	for _, c := range clients {
		if err := c.FlushAll(context.Background()).Err(); err != nil {
			b.Fatal(err)
		}
	}
	loads := make([][]keyLoad, len(servers))
	for i := range loads {
		loads[i] = []keyLoad{{keyFormat: "lock:%07d", valueFormat: "tok-%020d", to: locks, ttl: time.Hour}}
	}
	loadServers(b, servers, loads)
}

// writer gives 1,000 locks a second a new token on every master, as a workload of many lock holders would.
type writer struct {
	counted atomic.Int64 // changes made since it was last reset
	done    chan struct{}
	wg      sync.WaitGroup
}

// startWriter starts a writer on the locks lock keys of servers.
func startWriter(b *testing.B, servers []*redlocktest.Server, locks int) *writer {
	b.Helper()
	w := &writer{done: make(chan struct{})}
	clients := make([]*redis.Client, len(servers))
	for i, s := range servers {
		clients[i] = s.NewClient()
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() {
			for _, c := range clients {
				c.Close()
			}
		}()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			w.change(clients, locks, 10)
		}
	}()
	return w
}

// change gives count random locks of locks a new token on every master.
func (w *writer) change(clients []*redis.Client, locks, count int) {
	keys := make([]string, count)
	for i := range keys {
		keys[i] = fmt.Sprintf("lock:%07d", rand.IntN(locks))
	}
	token := fmt.Sprintf("new-%020d", rand.Int64N(1e18))
	for _, c := range clients {
		pipe := c.Pipeline()
		for _, k := range keys {
			pipe.Set(context.Background(), k, token, time.Hour)
		}
		_, _ = pipe.Exec(context.Background())
	}
	w.counted.Add(int64(count))
}

// stop stops the writer and waits for it.
func (w *writer) stop() {
	close(w.done)
	w.wg.Wait()
}

// sameLocks reports whether a and b are the same slice of locks, as a quiet snapshot shares its locks with
// the one before.
func sameLocks(a, b []*LockView) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
