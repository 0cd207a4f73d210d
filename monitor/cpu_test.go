package monitor

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// Helpers for the benchmarks that measure what polling costs the masters and this process: CPU time read from
// /proc, resident memory, and keys loaded on the server by a script so that loading leaves nothing in our heap.

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat; it is 100 on every Linux we run on.
const clockTicks = 100

// requireRealServers skips b without redis-server, or fails it when REDLOCK_TEST_REDIS=required.
func requireRealServers(b *testing.B) {
	b.Helper()
	if redlocktest.HaveRedisServer() {
		return
	}
	if os.Getenv("REDLOCK_TEST_REDIS") == "required" {
		b.Fatal("REDLOCK_TEST_REDIS=required but redis-server is not on PATH")
	}
	b.Skip("needs redis-server")
}

// pidCPU is the CPU time (user and system, all threads) process pid has used, from /proc/PID/stat.
func pidCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("CPU time of process %d: %v", pid, err)
	}
	// The command name in parentheses may hold spaces; the fields after it start with the state (field 3).
	text := string(data)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		b.Fatalf("CPU time of process %d: short /proc stat line %q", pid, text)
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime and stime, fields 14 and 15
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			b.Fatalf("CPU time of process %d: %v", pid, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// serverPIDs returns the process id of each server, failing b when one is not running.
func serverPIDs(b *testing.B, servers []*redlocktest.Server) []int {
	b.Helper()
	pids := make([]int, len(servers))
	for i, s := range servers {
		if pids[i] = s.PID(); pids[i] == 0 {
			b.Fatalf("%s is not running", s.Addr())
		}
	}
	return pids
}

// cpuOf returns the CPU time of each process in pids.
func cpuOf(b *testing.B, pids []int) []time.Duration {
	b.Helper()
	out := make([]time.Duration, len(pids))
	for i, pid := range pids {
		out[i] = pidCPU(b, pid)
	}
	return out
}

// shares returns, for each process, the share of one core it used between the CPU times before and after,
// over wall, and the largest of them.
func shares(before, after []time.Duration, wall time.Duration) (each []float64, largest float64) {
	each = make([]float64, len(before))
	for i := range before {
		each[i] = float64(after[i]-before[i]) / float64(wall)
		largest = max(largest, each[i])
	}
	return each, largest
}

// mean is the average of xs.
func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// percents formats shares of a core as percentages.
func percents(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f%%", 100*x)
	}
	return strings.Join(parts, " ")
}

// memStatus returns VmRSS and VmHWM (peak resident size) of this process, from /proc/self/status.
func memStatus(b *testing.B) (rss, peak int64) {
	b.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatalf("resident size: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k != "VmRSS" && k != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			b.Fatalf("resident size: %q: %v", line, err)
		}
		if k == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak
}

// loadScript sets the keys fmt(ARGV[1], i) to fmt(ARGV[2], i) for i in [ARGV[3], ARGV[4]), with a TTL of
// ARGV[5] milliseconds when that is positive, and none otherwise.
const loadScript = `local kf, vf, from, to, px = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
for i = from, to - 1 do
  if px > 0 then
    redis.call('SET', string.format(kf, i), string.format(vf, i), 'PX', px)
  else
    redis.call('SET', string.format(kf, i), string.format(vf, i))
  end
end
return to - from`

// keyLoad is a range of keys to set on one server: keyFormat and valueFormat take the key's number.
type keyLoad struct {
	keyFormat, valueFormat string
	from, to               int
	ttl                    time.Duration // 0: no TTL
}

// loadKeys sets the keys of each load on the server behind c, 100,000 per script call, so that a server
// never blocks its other clients for long and nothing is built in this process.
func loadKeys(ctx context.Context, c *redis.Client, loads ...keyLoad) error {
	const perCall = 100000
	for _, l := range loads {
		for from := l.from; from < l.to; from += perCall {
			to := min(from+perCall, l.to)
			if err := c.Eval(ctx, loadScript, nil, l.keyFormat, l.valueFormat, from, to, l.ttl.Milliseconds()).Err(); err != nil {
				return fmt.Errorf("load %s [%d, %d): %w", l.keyFormat, from, to, err)
			}
		}
	}
	return nil
}

// loadServers runs loadKeys on every server at once, loads[i] on servers[i], and fails b on error.
func loadServers(b *testing.B, servers []*redlocktest.Server, loads [][]keyLoad) {
	b.Helper()
	ctx := context.Background()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: s.Addr(), ReadTimeout: time.Minute})
			defer c.Close()
			errs[i] = loadKeys(ctx, c, loads[i]...)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			b.Fatalf("%s: %v", servers[i].Addr(), err)
		}
	}
}

// benchClients returns a client per server, as the dashboard builds them, closed by b.Cleanup.
func benchClients(b *testing.B, servers []*redlocktest.Server) (clients []*redis.Client, addrs []string) {
	b.Helper()
	for _, s := range servers {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), ContextTimeoutEnabled: true, ReadTimeout: 5 * time.Second})
		b.Cleanup(func() { c.Close() })
		clients = append(clients, c)
		addrs = append(addrs, s.Addr())
	}
	return clients, addrs
}

// commandTime is the server time spent in each command (INFO commandstats usec), by command name; a command run
// from a script is counted both on its own and in the script's EVAL.
func commandTime(b *testing.B, c *redis.Client) map[string]time.Duration {
	b.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]time.Duration{}
	for _, line := range strings.Split(info, "\n") {
		name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, f := range strings.Split(stats, ",") {
			if us, ok := strings.CutPrefix(f, "usec="); ok {
				v, err := strconv.ParseInt(us, 10, 64)
				if err != nil {
					b.Fatalf("commandstats %q: %v", line, err)
				}
				out[strings.TrimPrefix(name, "cmdstat_")] = time.Duration(v) * time.Microsecond
			}
		}
	}
	return out
}

// resetStats clears every server's command statistics.
func resetStats(b *testing.B, clients []*redis.Client) {
	b.Helper()
	for _, c := range clients {
		if err := c.ConfigResetStat(context.Background()).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// commandShares logs, per command, the mean share of one core the servers spent in it over wall.
func commandShares(b *testing.B, clients []*redis.Client, wall time.Duration) map[string]float64 {
	b.Helper()
	total := map[string]time.Duration{}
	for _, c := range clients {
		for name, d := range commandTime(b, c) {
			total[name] += d
		}
	}
	out := map[string]float64{}
	for name, d := range total {
		out[name] = float64(d) / float64(wall) / float64(len(clients))
	}
	return out
}

// loadAverage returns the machine's 1, 5 and 15 minute load averages, to tell a quiet run from a busy one.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
