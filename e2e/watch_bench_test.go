package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

// BenchmarkWatch100kLocks runs the shipped binary, at its default settings (--headless, --metrics, --events, and
// --max-keys 1% above the default, to leave room for the new locks),
// against five real masters that each hold the same 100,000 locks (random tokens, 10-minute TTLs), as issue 38
// asks: once every master is swept, it measures over 20 s each redis-server's share of a core and the
// program's (from /proc), and the program's RSS; then it sets 20 new locks under the locks' prefix, one at a
// time, and times each from its SET to its lock-appeared line in the event stream; then one lock under a prefix
// no lock had, timed against how long a sweep of the keyspace takes at the scan's pace. Steady state is once
// every master has swept its keyspace twice: the second sweep began with every family announced, so the scan
// then keeps its safety net's pace.
//
//	REDLOCK_TEST_REDIS=required go test -run '^$' -bench Watch100kLocks -benchtime 1x -timeout 30m ./e2e
func BenchmarkWatch100kLocks(b *testing.B) {
	if !redlocktest.HaveRedisServer() {
		b.Skip("needs redis-server")
	}
	const masters, locks, window = 5, 100_000, 20 * time.Second
	servers := redlocktest.StartServers(b, masters, redlocktest.ServerOptions{})
	clients := make([]*redis.Client, masters)
	addrs := make([]string, masters)
	pids := make([]int, masters)
	for i, s := range servers {
		// A client that waits as long as a loaded machine may make it: loading the locks takes seconds.
		clients[i] = redis.NewClient(&redis.Options{Addr: s.Addr(), ReadTimeout: time.Minute, WriteTimeout: time.Minute})
		addrs[i], pids[i] = s.Addr(), s.PID()
		defer clients[i].Close()
	}
	plantLocks(b, clients, locks)
	bin := buildBench(b)
	w := startWatch(b, bin, addrs)
	defer w.stop()
	w.waitSwept(b, masters, locks)

	cpu0, self0, scan0, start := cpuTimes(b, pids), cpuTime(b, w.cmd.Process.Pid), w.scanned(b), time.Now()
	var peakRSS int64
	for time.Since(start) < window {
		time.Sleep(time.Second)
		peakRSS = max(peakRSS, rssOf(b, w.cmd.Process.Pid))
	}
	wall := time.Since(start)
	cpu1, self1, scan1 := cpuTimes(b, pids), cpuTime(b, w.cmd.Process.Pid), w.scanned(b)
	var busiest float64
	for i := range pids {
		busiest = max(busiest, float64(cpu1[i]-cpu0[i])/float64(wall))
	}
	self := float64(self1-self0) / float64(wall)
	sweep := time.Duration(float64(wall) * float64(locks) / max(1, float64(scan1-scan0)/masters))

	var took []time.Duration
	for i := range 20 {
		took = append(took, w.timeNewLock(b, clients, fmt.Sprintf("lock:new-%02d", i)))
		time.Sleep(time.Duration(i*37%500) * time.Millisecond) // new locks at different phases of the poll
	}
	slices.Sort(took)
	newPrefix := w.timeNewLock(b, clients, "freshfamily:job-1")

	b.ReportMetric(100*busiest, "%core-busiest-master")
	b.ReportMetric(100*self, "%core-program")
	b.ReportMetric(float64(peakRSS>>20), "MiB-RSS")
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "ms-new-lock-p50")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "ms-new-lock-max")
	b.ReportMetric(newPrefix.Seconds(), "s-new-prefix")
	b.ReportMetric(sweep.Seconds(), "s-sweep")
	b.Logf("%d masters x %d locks, default settings, over %v: busiest master %.2f%% of a core, program %.2f%%, peak RSS %d MiB; "+
		"a new lock under a known prefix appeared in p50 %v, max %v (poll 500ms); under a new prefix in %v (a sweep takes %v); load %s",
		masters, locks, wall.Round(time.Second), 100*busiest, 100*self, peakRSS>>20, took[len(took)/2].Round(time.Millisecond),
		took[len(took)-1].Round(time.Millisecond), newPrefix.Round(time.Millisecond), sweep.Round(time.Second), loadAvg())
}

// plantLocks sets the same n locks on every master: lock:<i> with a random token, a 10-minute TTL.
func plantLocks(b *testing.B, clients []*redis.Client, n int) {
	b.Helper()
	ctx := context.Background()
	raw := make([]byte, 16)
	for from := 0; from < n; from += 10_000 {
		pipes := make([]redis.Pipeliner, len(clients))
		for i, c := range clients {
			pipes[i] = c.Pipeline()
		}
		for k := from; k < min(n, from+10_000); k++ {
			_, _ = rand.Read(raw)
			token := base64.RawURLEncoding.EncodeToString(raw)
			for _, p := range pipes {
				p.Set(ctx, "lock:"+strconv.Itoa(k), token, 10*time.Minute)
			}
		}
		for _, p := range pipes {
			if _, err := p.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// buildBench builds the binary for a benchmark into a temporary directory.
func buildBench(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "redlock-tui")
	if out, err := exec.Command("go", "build", "-o", path, "..").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}

// watch is a running `redlock-tui --headless` of a benchmark, and what it has written so far.
type watch struct {
	cmd     *exec.Cmd
	stderr  *syncBuffer
	events  string // the --events file
	offset  int64  // how far the event file was read
	metrics string // the /metrics URL
	seen    map[string]time.Time
}

// startWatch starts bin --headless on addrs, at its default settings, and waits for its metrics address.
func startWatch(b *testing.B, bin string, addrs []string) *watch {
	b.Helper()
	dir := b.TempDir()
	w := &watch{stderr: &syncBuffer{}, events: filepath.Join(dir, "events.jsonl"), seen: map[string]time.Time{}}
	// --max-keys 100,000 (the default) would leave the new locks out of sight, counted: 1% more makes room.
	w.cmd = exec.Command(bin, "--headless", "--metrics", "127.0.0.1:0", "--events", w.events, "--max-keys", "101000",
		"-m", strings.Join(addrs, ","))
	w.cmd.Stderr = w.stderr
	if err := w.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); w.metrics == ""; time.Sleep(50 * time.Millisecond) {
		if m := metricsAt.FindStringSubmatch(w.stderr.String()); m != nil {
			w.metrics = m[1]
		}
		if time.Now().After(deadline) {
			w.stop()
			b.Fatalf("no metrics address on stderr:\n%s", w.stderr.String())
		}
	}
	return w
}

// stop ends the program.
func (w *watch) stop() {
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
}

// scrape reads the metrics the program serves: "name{labels}" to value.
func (w *watch) scrape(b *testing.B) map[string]float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.metrics, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatalf("scrape: %v\n%s", err, w.stderr.String())
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if v, err := strconv.ParseFloat(value, 64); ok && err == nil && strings.HasPrefix(name, "redlock_") {
			out[name] = v
		}
	}
	return out
}

// sum adds the values of the series whose name starts with prefix.
func sum(s map[string]float64, prefix string) float64 {
	var total float64
	for k, v := range s {
		if strings.HasPrefix(k, prefix) {
			total += v
		}
	}
	return total
}

// waitSwept waits until every master finished two sweeps and all locks are held.
func (w *watch) waitSwept(b *testing.B, masters, locks int) {
	b.Helper()
	for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(time.Second) {
		s := w.scrape(b)
		swept := 0
		for k, v := range s {
			// The second sweep began once every family was announced: when it is over, the scan keeps its
			// safety net's pace, the steady state.
			if strings.HasPrefix(k, "redlock_master_sweeps_completed_total{") && v >= 2 {
				swept++
			}
		}
		if swept == masters && s[`redlock_locks{state="held"}`] == float64(locks) {
			w.skipEvents(b)
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("not swept in 15 minutes: %d of %d masters swept, %v held", swept, masters, s[`redlock_locks{state="held"}`])
		}
	}
}

// scanned is the keys every master's sweeps have scanned so far (finished sweeps counted whole).
func (w *watch) scanned(b *testing.B) int64 {
	s := w.scrape(b)
	var total float64
	for k, v := range s {
		if addr, ok := strings.CutPrefix(k, "redlock_master_sweeps_completed_total{"); ok {
			total += v * s["redlock_master_sweep_keyspace_keys{"+addr]
		}
	}
	return int64(total + sum(s, "redlock_master_sweep_scanned_keys{"))
}

// skipEvents moves past the events written so far.
func (w *watch) skipEvents(b *testing.B) {
	b.Helper()
	st, err := os.Stat(w.events)
	if err == nil {
		w.offset = st.Size()
	}
}

// readEvents notes when each lock-appeared line written since the last call was read.
func (w *watch) readEvents(b *testing.B) {
	b.Helper()
	f, err := os.Open(w.events)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(w.offset, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	now := time.Now()
	for {
		line, rest, ok := strings.Cut(string(data), "\n")
		if !ok {
			return
		}
		w.offset += int64(len(line) + 1)
		data = []byte(rest)
		var e eventLine
		if json.Unmarshal([]byte(line), &e) == nil && e.Kind == "lock-appeared" {
			w.seen[e.Resource] = now
		}
	}
}

// timeNewLock sets resource on every master (SET NX PX, 10 minutes) and returns how long it took to appear in
// the event stream.
func (w *watch) timeNewLock(b *testing.B, clients []*redis.Client, resource string) time.Duration {
	b.Helper()
	set := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetNX(context.Background(), resource, "bench-token-"+resource, 10*time.Minute).Err()
		}()
	}
	wg.Wait()
	for deadline := set.Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		w.readEvents(b)
		if at, ok := w.seen[resource]; ok {
			return at.Sub(set)
		}
	}
	b.Fatalf("%s did not appear within 10 minutes", resource)
	return 0
}

// cpuTimes returns the CPU time of each process.
func cpuTimes(b *testing.B, pids []int) []time.Duration {
	out := make([]time.Duration, len(pids))
	for i, pid := range pids {
		out[i] = cpuTime(b, pid)
	}
	return out
}

// cpuTime is a process's user and system time, from /proc (clock ticks of 10ms).
func cpuTime(b *testing.B, pid int) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// rssOf is a process's resident set size, from /proc.
func rssOf(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// loadAvg is the machine's load average over the last minute.
func loadAvg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return "unknown"
	}
	return f[0]
}
