package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// BenchmarkWaitingProcesses is issue 43's item 8 as processes: N `redlock-tui run --wait` processes started at
// once on one lock over three real masters, each running a 50 ms job. It reports how long all N took, each
// waiter's CPU (its process's user and system time over the time it lived, as a share of a core), the masters'
// commands a second (INFO commandstats, the busiest master), the handover gap (from a job's end to the next
// job's start, p50 and p90) and the overlaps (a job that found another running), which must be 0.
// REDLOCK_BENCH_WAITERS sets N (200 by default); REDLOCK_BENCH_BEFORE names another build of redlock-tui to
// measure the same way beside this one (one from before waiters woke on the release's notice, to compare).
//
//	REDLOCK_TEST_REDIS=required go test -run '^$' -bench WaitingProcesses -benchtime 1x -timeout 30m ./e2e
func BenchmarkWaitingProcesses(b *testing.B) {
	if !redlocktest.HaveRedisServer() {
		b.Skip("needs redis-server")
	}
	n := 200
	if v, err := strconv.Atoi(os.Getenv("REDLOCK_BENCH_WAITERS")); err == nil && v > 0 {
		n = v
	}
	builds := map[string]string{"this": buildBench(b)}
	if before := os.Getenv("REDLOCK_BENCH_BEFORE"); before != "" {
		builds["before"] = before
	}
	for _, name := range []string{"before", "this"} {
		bin, ok := builds[name]
		if !ok {
			continue
		}
		b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
			for range b.N {
				waitingProcesses(b, bin, n)
			}
		})
	}
}

// waitingProcesses runs n waiting processes of bin once and reports what they cost.
func waitingProcesses(b *testing.B, bin string, n int) {
	servers := redlocktest.RealServers(b, 3, redlocktest.ServerOptions{})
	addrs := make([]string, len(servers))
	clients := make([]*redis.Client, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
		clients[i] = redis.NewClient(&redis.Options{Addr: s.Addr()})
		defer clients[i].Close()
	}
	dir := b.TempDir()
	// A job takes a directory as its mark: one that finds it taken overlaps another job.
	job := `mkdir "$D/running" 2>/dev/null || echo overlap >> "$D/overlaps"; date +%s%N >> "$D/starts"; ` +
		`sleep 0.05; date +%s%N >> "$D/ends"; rmdir "$D/running"`
	calls0 := commandCalls(b, clients)
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(bin, "run", "-m", strings.Join(addrs, ","), "--ttl", "10s", "--wait", "20m",
			"bench:waiters", "--", "sh", "-c", job)
		cmds[i].Env = append(os.Environ(), "D="+dir)
	}
	start := time.Now()
	var wg sync.WaitGroup
	failed := make(chan string, n)
	lived := make([]time.Duration, n)
	for i, c := range cmds {
		out := &syncBuffer{}
		c.Stdout, c.Stderr = out, out
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Wait(); err != nil {
				failed <- fmt.Sprintf("%v: %s", err, out.String())
			}
			lived[i] = time.Since(start)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	close(failed)
	for f := range failed {
		b.Fatalf("a waiter: %s", f)
	}
	var cpu, life time.Duration
	for i, c := range cmds {
		cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		life += lived[i]
	}
	starts, ends := timesIn(b, filepath.Join(dir, "starts")), timesIn(b, filepath.Join(dir, "ends"))
	if len(starts) != n || len(ends) != n {
		b.Fatalf("%d jobs started and %d ended of %d", len(starts), len(ends), n)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "overlaps")); len(data) > 0 {
		b.Fatalf("%d jobs found another running", strings.Count(string(data), "\n"))
	}
	var gaps []time.Duration
	for i := 1; i < n; i++ {
		gaps = append(gaps, starts[i].Sub(ends[i-1]))
	}
	slices.Sort(gaps)
	calls1 := commandCalls(b, clients)
	if os.Getenv("REDLOCK_BENCH_COMMANDS") != "" {
		info, _ := clients[0].Info(context.Background(), "commandstats").Result()
		b.Logf("the first master's commands:\n%s", info)
	}
	var busiest int64
	for i := range calls1 {
		busiest = max(busiest, calls1[i]-calls0[i])
	}
	b.ReportMetric(wall.Seconds(), "s/all")
	b.ReportMetric(100*float64(cpu)/float64(life), "%core/waiter")
	b.ReportMetric(float64(busiest)/wall.Seconds(), "cmds/s/master")
	b.ReportMetric(float64(busiest)/float64(n), "cmds/job/master")
	b.ReportMetric(float64(gaps[len(gaps)/2])/float64(time.Millisecond), "gap-p50-ms")
	b.ReportMetric(float64(gaps[len(gaps)*9/10])/float64(time.Millisecond), "gap-p90-ms")
	b.ReportMetric(0, "overlaps")
}

// timesIn is the times, in nanoseconds since the epoch, one a line in path, in order.
func timesIn(b *testing.B, path string) []time.Time {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var out []time.Time
	for _, l := range strings.Fields(string(data)) {
		ns, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		out = append(out, time.Unix(0, ns))
	}
	slices.SortFunc(out, func(x, y time.Time) int { return x.Compare(y) })
	return out
}

// commandCalls is how many commands each master has run, from INFO commandstats.
func commandCalls(b *testing.B, clients []*redis.Client) []int64 {
	out := make([]int64, len(clients))
	for i, c := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		info, err := c.Info(ctx, "commandstats").Result()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.Split(info, "\n") {
			if _, rest, ok := strings.Cut(l, ":calls="); ok {
				calls, _, _ := strings.Cut(rest, ",")
				v, _ := strconv.ParseInt(calls, 10, 64)
				out[i] += v
			}
		}
	}
	return out
}
