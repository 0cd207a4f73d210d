package monitor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The ground-truth tests: real Redlock clients (redsync v4 in this process, and node-redlock v4 in node when it
// is installed) contend for locks on five real redis-server masters, about ten releases a second, while four
// monitors (at 100 ms and at the default poll, each tracking keys and reading every key) watch. Every master's commands are recorded with MONITOR,
// and each client logs when it held which token. What the monitors report is checked against that: no lock
// event that did not happen, every holder that held for two full polls named.

// nodeEnv set to "required" fails the ground-truth tests when node-redlock is not installed (CI installs it
// with `npm ci --prefix monitor/testdata/noderedlock`); otherwise they run with redsync alone.
const nodeEnv = "REDLOCK_TEST_NODE"

// nodeDir holds the node-redlock client and its package lock.
const nodeDir = "testdata/noderedlock"

// groundTruthEnv sets the length of a ground-truth run, e.g. REDLOCK_GROUNDTRUTH=60s for the measured run.
// CI runs the default, long enough for every fault once.
const groundTruthEnv = "REDLOCK_GROUNDTRUTH"

// fullGroundTruth is the length of a ground-truth run with REDLOCK_TEST_SOAK=full, as CI runs it, and the
// least that runs the faults on fullFaults' plan.
const fullGroundTruth = 20 * time.Second

// defaultGroundTruth is the length of a ground-truth run unless groundTruthEnv says otherwise: in a
// contributor's run, long enough for each fault once on shortFaults' plan.
var defaultGroundTruth = redlocktest.Soak(9*time.Second, fullGroundTruth)

// faultPlan is when inject acts, from the start of the workload: the victim set on masters 0-2, master 4
// first stopped, master 0 killed.
type faultPlan struct{ victimAt, pauseAt, killAt time.Duration }

// shortFaults and fullFaults are the plans of a contributor's run and of CI's (and of any run as long): the
// short one keeps every fault and its order, and leaves the monitors more than two slow polls after master
// 0's return.
var (
	shortFaults = faultPlan{victimAt: time.Second, pauseAt: 2 * time.Second, killAt: 5 * time.Second}
	fullFaults  = faultPlan{victimAt: 2 * time.Second, pauseAt: 4 * time.Second, killAt: 10 * time.Second}
)

// Workload shape: resources contended by clientsPer clients each, holding a lock for a uniform time in
// [minHold, maxHold); with these figures about ten releases a second in all.
const (
	resources  = 8
	clientsPer = 2
	minHold    = 100 * time.Millisecond
	maxHold    = 1600 * time.Millisecond
	lockTTL    = 8 * time.Second
	clientWait = 3 * time.Second // how long a client waits for a master's answer: longer than a stop
)

// alarmKinds are the lock events an operator acts on.
var alarmKinds = []monitor.EventKind{monitor.EventQuorumLost, monitor.EventLockLost, monitor.EventLockSplit}

// runLength is how long the workload runs.
func runLength(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv(groundTruthEnv)
	if v == "" {
		return defaultGroundTruth
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 5*time.Second {
		t.Fatalf("%s=%q: want a duration of 5s or more", groundTruthEnv, v)
	}
	return d
}

// hold is one client's holding of a lock, from its own log: from when Lock returned to when Unlock began.
type hold struct {
	resource, token string
	from, to        time.Time
}

// window is a time a master was stopped (SIGSTOP) or killed.
type window struct {
	master   int
	from, to time.Time
}

// watched is a monitor run at its own interval, tracking keys or not, with what it reported.
type watched struct {
	interval   time.Duration
	noTracking bool // every key read at every poll (--no-tracking)
	mu         sync.Mutex
	tracked    int         // the snapshots in which every master's keys were refreshed by tracking
	times      []time.Time // each snapshot's time
	up         [][]bool    // each snapshot's masters that answered
	runIDs     []string    // each snapshot's run_id of master 0: it changes when master 0 is restarted
	victims    []string    // each snapshot's view of the victim, for a failure's message
	final      monitor.Snapshot
	swept      chan struct{} // closed at the first snapshot after a full sweep of every master
	sweptOnce  sync.Once
	done       chan struct{}
}

// String names w's monitor in messages: "at 100ms", "at 500ms, --no-tracking".
func (w *watched) String() string {
	if w.noTracking {
		return fmt.Sprintf("at %v, --no-tracking", w.interval)
	}
	return fmt.Sprintf("at %v", w.interval)
}

// watch runs a monitor on servers at interval until ctx is done; with noTracking, one that reads every key at
// every poll.
func watch(ctx context.Context, t *testing.T, servers []*redlocktest.Server, interval time.Duration, noTracking bool) *watched {
	t.Helper()
	masters := make([]redlocktest.Master, len(servers))
	addrs := make([]string, len(servers))
	for i, s := range servers {
		masters[i], addrs[i] = s, s.Addr()
	}
	mon, err := monitor.New(redlocktest.Clients(t, masters), addrs, monitor.Config{Interval: interval, MaxEvents: 1 << 20,
		NoTracking: noTracking})
	if err != nil {
		t.Fatal(err)
	}
	w := &watched{interval: interval, noTracking: noTracking, swept: make(chan struct{}), done: make(chan struct{})}
	mon.Observe(func(_ *monitor.Snapshot, s monitor.Snapshot) {
		if s.Swept {
			w.sweptOnce.Do(func() { close(w.swept) })
		}
		up := make([]bool, len(s.Masters))
		allTracked := true
		for i, m := range s.Masters {
			up[i] = m.Up
			allTracked = allTracked && m.Refresh == monitor.RefreshTracking
		}
		v := "none"
		for _, l := range s.Locks {
			if l.Resource == victim {
				v = fmt.Sprintf("%s count %d unknown %d quorum-lost %v cells", l.State, l.Count, l.Unknown, l.QuorumLost)
				for _, c := range l.Masters {
					v += fmt.Sprintf(" %d:%q", c.State, c.Token)
				}
			}
		}
		w.mu.Lock()
		w.times, w.up, w.victims, w.final = append(w.times, s.Time), append(w.up, up), append(w.victims, v), s
		w.runIDs = append(w.runIDs, s.Masters[0].RunID)
		if allTracked {
			w.tracked++
		}
		w.mu.Unlock()
	})
	go func() {
		defer close(w.done)
		for range mon.Run(ctx) {
		}
	}()
	return w
}

// commandLog records, from MONITOR on each master, when each token was released there (redsync's unlock
// script names the token), by the master's clock.
type commandLog struct {
	mu       sync.Mutex
	lines    int
	released map[string][]time.Time // token -> one time per master that ran its unlock
}

// record follows MONITOR on addr until ctx is done, reconnecting after a restart.
func (l *commandLog) record(ctx context.Context, addr string) {
	for ctx.Err() == nil {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		_, _ = conn.Write([]byte("MONITOR\r\n"))
		rd := bufio.NewReader(conn)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				break
			}
			l.parse(line)
		}
		stop()
		conn.Close()
	}
}

// parse takes one MONITOR line: +<unix time> [<db> <client>] "cmd" "arg" ...
func (l *commandLog) parse(line string) {
	ts, rest, ok := strings.Cut(strings.TrimPrefix(line, "+"), " ")
	if !ok {
		return
	}
	sec, err := strconv.ParseFloat(ts, 64)
	if err != nil {
		return
	}
	_, cmd, ok := strings.Cut(rest, "] ")
	if !ok || strings.Contains(rest, " lua]") {
		return
	}
	args := strings.Split(strings.TrimSpace(cmd), `" "`)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines++
	name := strings.ToLower(strings.Trim(args[0], `"`))
	if (name == "evalsha" || name == "eval") && len(args) == 5 && args[2] == "1" {
		token := strings.Trim(args[4], "\"\r\n")
		l.released[token] = append(l.released[token], time.Unix(0, int64(sec*1e9)))
	}
}

// spreads returns, for every holding released on more than one master, the time between the first and the
// last master's unlock, sorted.
func (l *commandLog) spreads(holds []hold) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Duration
	for _, h := range holds {
		if ts := l.released[h.token]; len(ts) > 1 {
			out = append(out, slices.MaxFunc(ts, time.Time.Compare).Sub(slices.MinFunc(ts, time.Time.Compare)))
		}
	}
	slices.Sort(out)
	return out
}

// contend runs clientsPer redsync clients on each resource until ctx is done, logging every holding.
func contend(ctx context.Context, t *testing.T, servers []*redlocktest.Server, log func(hold)) *sync.WaitGroup {
	t.Helper()
	var pools []redsyncredis.Pool
	for _, s := range servers {
		// A client that waits out a stopped master (3s): one that gave up would drop its connection with
		// commands still queued in the master's socket, which run when it resumes, out of order with those sent
		// again on a new connection, and leave keys nobody holds (a real split, of the harness's making).
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), DialTimeout: 100 * time.Millisecond, ReadTimeout: clientWait,
			WriteTimeout: clientWait, MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		pools = append(pools, goredis.NewPool(c))
	}
	rs := redsync.New(pools...)
	var wg sync.WaitGroup
	for r := range resources {
		for c := range clientsPer {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(r), uint64(c)))
				sleep := func(lo, hi time.Duration) {
					select {
					case <-ctx.Done():
					case <-time.After(lo + time.Duration(rng.Int64N(int64(hi-lo)))):
					}
				}
				res := fmt.Sprintf("gt:res:%d", r)
				for ctx.Err() == nil {
					m := rs.NewMutex(res, redsync.WithExpiry(lockTTL), redsync.WithTries(1))
					if err := m.LockContext(ctx); err != nil {
						sleep(10*time.Millisecond, 60*time.Millisecond)
						continue
					}
					from := time.Now()
					sleep(minHold, maxHold)
					to := time.Now()
					uctx, cancel := context.WithTimeout(context.Background(), time.Second)
					_, _ = m.UnlockContext(uctx)
					cancel()
					log(hold{res, m.Value(), from, to})
					sleep(0, 30*time.Millisecond)
				}
			}()
		}
	}
	return &wg
}

// nodeRedlock runs one node-redlock client per resource, contending with the redsync ones until until, and
// logs its holdings; the returned function waits for it to end. The client stops by itself at until, after
// its last release: killed in the middle of one, it would leave keys that a crashed holder leaves. Without
// node or the client's packages it runs nothing (and fails the test when nodeEnv requires it).
func nodeRedlock(t *testing.T, servers []*redlocktest.Server, until time.Time, log func(hold)) func() {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil || !exists(filepath.Join(nodeDir, "node_modules", "redlock")) {
		if os.Getenv(nodeEnv) == "required" {
			t.Fatalf("%s=required but node-redlock is not installed: npm ci --prefix monitor/%s", nodeEnv, nodeDir)
		}
		t.Logf("node-redlock not installed (npm ci --prefix monitor/%s): redsync clients only", nodeDir)
		return func() {}
	}
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
	}
	names := make([]string, resources)
	for r := range names {
		names[r] = fmt.Sprintf("gt:res:%d", r)
	}
	ctx, cancel := context.WithDeadline(context.Background(), until.Add(10*time.Second))
	cmd := exec.CommandContext(ctx, "node", "client.js")
	cmd.Dir = nodeDir
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), "GT_MASTERS="+strings.Join(addrs, ","), "GT_RESOURCES="+strings.Join(names, ","),
		"GT_CLIENTS=1", fmt.Sprintf("GT_WAIT_MS=%d", clientWait.Milliseconds()), fmt.Sprintf("GT_UNTIL=%d", until.UnixMilli()), fmt.Sprintf("GT_TTL_MS=%d", lockTTL.Milliseconds()),
		fmt.Sprintf("GT_MIN_HOLD_MS=%d", minHold.Milliseconds()), fmt.Sprintf("GT_MAX_HOLD_MS=%d", maxHold.Milliseconds()))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("node-redlock client: %v", err)
	}
	done := make(chan int)
	go func() {
		n := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var h struct {
				Resource, Token string
				From, To        int64
			}
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Errorf("node-redlock client wrote %q: %v", sc.Text(), err)
				continue
			}
			log(hold{h.Resource, h.Token, time.UnixMilli(h.From), time.UnixMilli(h.To)})
			n++
		}
		done <- n
	}()
	return func() {
		defer cancel()
		n := <-done
		if err := cmd.Wait(); err != nil {
			t.Errorf("node-redlock client: %v: %s", err, stderr.String())
		}
		if n == 0 {
			t.Errorf("node-redlock client held no lock: %s", stderr.String())
		}
		t.Logf("node-redlock: %d holdings", n)
	}
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// groundTruth is one run: the workload, the faults if any, and what the four monitors reported.
type groundTruth struct {
	length    time.Duration
	servers   []*redlocktest.Server
	monitors  []*watched
	holds     []hold
	commands  *commandLog
	paused    []window // master 4 stopped
	killed    window   // master 0 killed and restarted empty; zero without faults
	realLoss  map[string]string
	victimTok string
}

// victim is the resource set on exactly masters 0-2 in the run with faults, whose master 0 is then killed.
const victim = "gt:victim"

// runGroundTruth runs the workload for the run's length, with faults when asked.
func runGroundTruth(t *testing.T, faults bool) *groundTruth {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (SIGSTOP, kill and restart, MONITOR)")
	}
	g := &groundTruth{length: runLength(t), servers: redlocktest.StartServers(t, 5, redlocktest.ServerOptions{}),
		commands: &commandLog{released: map[string][]time.Time{}}, realLoss: map[string]string{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, s := range g.servers {
		go g.commands.record(ctx, s.Addr())
	}
	monCtx, stopMonitors := context.WithCancel(context.Background())
	defer stopMonitors()
	// Each interval in both modes: the masters allow tracking, so two monitors track keys, and two read every key.
	g.monitors = []*watched{watch(monCtx, t, g.servers, 100*time.Millisecond, false), watch(monCtx, t, g.servers, monitor.DefaultInterval, false),
		watch(monCtx, t, g.servers, 100*time.Millisecond, true), watch(monCtx, t, g.servers, monitor.DefaultInterval, true)}
	for _, w := range g.monitors { // the monitors' first sweep: locks it finds are described, not announced
		select {
		case <-w.swept:
		case <-time.After(30 * time.Second):
			t.Fatalf("monitor %v: no full sweep of five empty masters in 30s", w)
		}
	}

	var mu sync.Mutex
	workCtx, stopWork := context.WithTimeout(ctx, g.length)
	defer stopWork()
	record := func(h hold) { mu.Lock(); g.holds = append(g.holds, h); mu.Unlock() }
	wg := contend(workCtx, t, g.servers, record)
	waitNode := nodeRedlock(t, g.servers, time.Now().Add(g.length), record)
	if faults {
		g.inject(t, workCtx)
	}
	<-workCtx.Done()
	wg.Wait()
	waitNode()
	time.Sleep(3 * monitor.DefaultInterval) // the monitors see the last releases
	stopMonitors()
	for _, w := range g.monitors {
		<-w.done
	}
	return g
}

// inject runs the faults of the plan for the run's length: master 4 stopped for 1.5s, then every 15s; the
// victim set on exactly masters 0-2, then master 0 killed and restarted empty. It records what was lost for
// real at the restart: every lock whose token is left on fewer than a quorum of masters.
func (g *groundTruth) inject(t *testing.T, ctx context.Context) {
	t.Helper()
	start := time.Now()
	admin := make([]*redis.Client, len(g.servers))
	for i, s := range g.servers {
		admin[i] = s.NewClient()
		t.Cleanup(func() { _ = admin[i].Close() })
	}
	at := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Until(start.Add(d))):
			return true
		}
	}
	pause := func() {
		w := window{master: 4, from: time.Now()}
		if err := g.servers[4].Pause(); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(1500 * time.Millisecond)
		if err := g.servers[4].Resume(); err != nil {
			t.Error(err)
		}
		w.to = time.Now()
		g.paused = append(g.paused, w)
	}
	plan := shortFaults
	if g.length >= fullGroundTruth {
		plan = fullFaults
	}
	g.victimTok = "victimToken0123456789"
	if !at(plan.victimAt) {
		return
	}
	for _, i := range []int{0, 1, 2} {
		if err := admin[i].Set(context.Background(), victim, g.victimTok, 10*time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if !at(plan.pauseAt) {
		return
	}
	pause()
	if !at(plan.killAt) {
		return
	}
	g.killed = window{master: 0, from: time.Now()}
	if err := g.servers[0].Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := g.servers[0].Start(); err != nil {
		t.Fatal(err)
	}
	g.killed.to = time.Now()
	// What the restart took for real: tokens left on 1 or 2 masters of the four that kept their keys.
	counts := map[[2]string]int{}
	for _, c := range admin[1:] {
		for r := range resources {
			res := fmt.Sprintf("gt:res:%d", r)
			if v, err := c.Get(context.Background(), res).Result(); err == nil {
				counts[[2]string{res, v}]++
			}
		}
	}
	for k, n := range counts {
		if n < 3 {
			g.realLoss[k[0]] = k[1]
		}
	}
	g.realLoss[victim] = g.victimTok
	for d := plan.killAt + 9*time.Second; d+2*time.Second < g.length; d += 15 * time.Second {
		if !at(d) {
			return
		}
		pause()
	}
}

// checkNoFalseAlarm fails for every alarm (quorum lost, lock lost, split) that is not a real loss.
func (g *groundTruth) checkNoFalseAlarm(t *testing.T, w *watched) {
	t.Helper()
	false_ := 0
	for _, e := range w.final.Events {
		if !slices.Contains(alarmKinds, e.Kind) {
			continue
		}
		if tok, real := g.realLoss[e.Resource]; real && e.Time.After(g.killed.from) && (e.Kind != monitor.EventQuorumLost || strings.Contains(e.Text, tok)) {
			continue
		}
		false_++
		if false_ <= 5 {
			t.Errorf("monitor %v: false %s on %s at %s: %s; its events: %s", w, e.Kind, e.Resource,
				e.Time.Format("15:04:05.000"), e.Text, g.story(w, e.Resource, e.Time))
		}
	}
	if false_ > 0 {
		t.Errorf("monitor %v: %d false alarms for %d releases", w, false_, len(g.holds))
	}
	t.Logf("monitor %v: %d polls, %d releases, %d false alarms", w, len(w.times), len(g.holds), false_)
}

// story tells what happened on resource around at: the monitor's events, the holdings and the faults.
func (g *groundTruth) story(w *watched, resource string, at time.Time) string {
	var b strings.Builder
	near := func(t time.Time) bool { return t.After(at.Add(-3*time.Second)) && t.Before(at.Add(time.Second)) }
	for _, e := range w.final.Events {
		if e.Resource == resource && near(e.Time) {
			fmt.Fprintf(&b, "\n  %s %s %s", e.Time.Format("15:04:05.000"), e.Kind, e.Text)
		}
	}
	for _, h := range g.holds {
		if h.resource == resource && (near(h.from) || near(h.to)) {
			fmt.Fprintf(&b, "\n  held %q %s-%s", h.token, h.from.Format("15:04:05.000"), h.to.Format("15:04:05.000"))
		}
	}
	for _, f := range append(slices.Clone(g.paused), g.killed) {
		fmt.Fprintf(&b, "\n  master %d out %s-%s", f.master, f.from.Format("15:04:05.000"), f.to.Format("15:04:05.000"))
	}
	return b.String()
}

// checkHoldersNamed fails for every holder that held through two full polls of w (three snapshots inside its
// holding) and is named by no event of its resource; holdings that overlap a fault are left out.
func (g *groundTruth) checkHoldersNamed(t *testing.T, w *watched) {
	t.Helper()
	named := map[string]bool{}
	for _, e := range w.final.Events {
		if e.Resource != "" {
			named[e.Resource+"\x00"+e.Text] = true
		}
	}
	isNamed := func(h hold) bool {
		for k := range named {
			if strings.HasPrefix(k, h.resource+"\x00") && strings.Contains(k, strconv.Quote(h.token)) {
				return true
			}
		}
		return false
	}
	faults := append(slices.Clone(g.paused), g.killed)
	long, missed := 0, 0
	for _, h := range g.holds {
		inside := 0
		for _, at := range w.times {
			if at.After(h.from) && at.Before(h.to) {
				inside++
			}
		}
		overlaps := slices.ContainsFunc(faults, func(f window) bool {
			return !f.from.IsZero() && h.from.Before(f.to.Add(2*w.interval)) && h.to.After(f.from)
		})
		if inside < 3 || overlaps {
			continue
		}
		long++
		if !isNamed(h) {
			missed++
			if missed <= 5 {
				t.Errorf("monitor %v: %s held by %q for %v (%d snapshots) is named by no event", w, h.resource,
					h.token, h.to.Sub(h.from).Round(time.Millisecond), inside)
			}
		}
	}
	if missed > 0 {
		t.Errorf("monitor %v: %d of %d holders that held through two polls are not named", w, missed, long)
	}
	t.Logf("monitor %v: %d holders held through two polls, %d named", w, long, long-missed)
}

// heldByRE finds the former holder a change of holder's event names.
var heldByRE = regexp.MustCompile(`holder "([^"]+)"`)

// checkHandovers judges w's changes of holder against MONITOR: a former holder whose release script ran
// before the event was released; one whose did not, expired (the workload overwrites nothing). With strict,
// it fails for every change told as an overwrite or as taken after expiry where the former holder had released
// first; it logs each such change, and how many of each judgement were told, and how many wrong. The run with
// faults is not strict: under a stopped and a killed master an overwrite has been told where MONITOR shows the
// release (docs/accuracy.md).
func (g *groundTruth) checkHandovers(t *testing.T, w *watched, strict bool) {
	t.Helper()
	type tally struct{ told, wrong int }
	counts := map[string]*tally{}
	for _, k := range []string{"released", "after-expiry", "overwritten", "cannot-tell"} {
		counts[k] = &tally{}
	}
	g.commands.mu.Lock()
	defer g.commands.mu.Unlock()
	for _, e := range w.final.Events {
		if e.Kind != monitor.EventTakenOver && e.Kind != monitor.EventOverwritten && e.Kind != monitor.EventTakenAfterExpiry {
			continue
		}
		m := heldByRE.FindStringSubmatch(e.Text)
		if m == nil {
			t.Errorf("monitor %v: %s names no former holder: %s", w, e.Kind, e.Text)
			continue
		}
		released := slices.ContainsFunc(g.commands.released[m[1]], func(at time.Time) bool { return !at.After(e.Time) })
		kind := "cannot-tell"
		switch {
		case e.Kind == monitor.EventOverwritten:
			kind = "overwritten"
		case e.Kind == monitor.EventTakenAfterExpiry:
			kind = "after-expiry"
		case strings.Contains(e.Text, " released (a DEL ran"):
			kind = "released"
		case strings.Contains(e.Text, "was evicted from"), strings.Contains(e.Text, "was flushed from"):
			continue
		}
		counts[kind].told++
		if kind != "cannot-tell" && (kind == "released") != released {
			counts[kind].wrong++
			if kind != "released" {
				report := t.Logf
				if strict {
					report = t.Errorf
				}
				report("monitor %v: %s on %s at %s although MONITOR shows %q released first: %s", w, e.Kind, e.Resource,
					e.Time.Format("15:04:05.000"), m[1], e.Text)
			}
		}
	}
	t.Logf("monitor %v: changes of holder told released then taken %d (%d wrong), taken after expiry %d (%d wrong), "+
		"overwritten %d (%d wrong), cannot tell %d", w, counts["released"].told, counts["released"].wrong,
		counts["after-expiry"].told, counts["after-expiry"].wrong, counts["overwritten"].told, counts["overwritten"].wrong,
		counts["cannot-tell"].told)
}

// TestGroundTruthContention: redsync clients contending, no faults. Every quorum-lost, lost or split event
// would be false; every holder that held through two polls must be named.
func TestGroundTruthContention(t *testing.T) {
	g := runGroundTruth(t, false)
	if len(g.holds) < int(g.length.Seconds())*5 {
		t.Fatalf("%d holdings in %v: the workload did not run (want about ten a second)", len(g.holds), g.length)
	}
	for _, w := range g.monitors {
		checkMode(t, w)
		g.checkNoFalseAlarm(t, w)
		g.checkHoldersNamed(t, w)
		g.checkHandovers(t, w, true)
	}
	g.logCommands(t)
}

// checkMode fails unless w's monitor refreshed keys as it was meant to: tracking in some snapshots (unless
// the tests run with -polling), with --no-tracking in none.
func checkMode(t *testing.T, w *watched) {
	t.Helper()
	polling := flag.Lookup("polling")
	wantTracked := !w.noTracking && (polling == nil || polling.Value.String() != "true")
	if wantTracked != (w.tracked > 0) {
		t.Errorf("monitor %v: every master tracked in %d of %d snapshots", w, w.tracked, len(w.times))
	}
}

// TestGroundTruthFaults: the same with a master stopped for 1.5s every 15s, and a master holding a lock on
// exactly a quorum killed and restarted empty. The real loss is reported within two polls of the master's
// return; nothing else is; master events are right; the stopped master does not slow the others' refresh.
func TestGroundTruthFaults(t *testing.T) {
	g := runGroundTruth(t, true)
	if g.killed.to.IsZero() || len(g.paused) == 0 {
		t.Fatalf("the faults did not run: killed %v, paused %d times", g.killed, len(g.paused))
	}
	for _, w := range g.monitors {
		checkMode(t, w)
		g.checkNoFalseAlarm(t, w)
		g.checkHoldersNamed(t, w)
		g.checkHandovers(t, w, false)
		g.checkVictimReported(t, w)
		g.checkMasterEvents(t, w)
		g.checkRefreshWhileStopped(t, w)
	}
	g.logCommands(t)
}

// checkVictimReported fails unless the victim's lost quorum is reported by the second poll that sees master 0
// back, and logs the delay from its return. A poll sees it back when master 0 answers it with a new run_id:
// a poll that began before the kill, or a missed poll before it, is not its return.
func (g *groundTruth) checkVictimReported(t *testing.T, w *watched) {
	t.Helper()
	before, back := "", -1
	for i, at := range w.times {
		if at.Before(g.killed.from) {
			before = w.runIDs[i]
			continue
		}
		if w.up[i][0] && w.runIDs[i] != before {
			back = i
			break
		}
	}
	var trace strings.Builder
	for i := max(0, back-3); back >= 0 && i < min(len(w.times), back+6); i++ {
		fmt.Fprintf(&trace, "\n  %s up %v run_id %.8s: %s", w.times[i].Format("15:04:05.000"), w.up[i], w.runIDs[i], w.victims[i])
	}
	if back < 0 {
		t.Errorf("monitor %v: never saw master 0 back with a new run_id (before the kill: %q)", w, before)
		return
	}
	for _, e := range w.final.Events {
		if e.Resource == victim && e.Kind == monitor.EventQuorumLost {
			if back+1 >= len(w.times) || e.Time.After(w.times[back+1]) {
				t.Errorf("monitor %v: the victim's lost quorum reported at %s, after the second poll that saw master 0 back; around its return:%s",
					w, e.Time.Format("15:04:05.000"), trace.String())
			}
			t.Logf("monitor %v: real loss reported %v after the first poll that saw master 0 back (restart to report: %v)",
				w, e.Time.Sub(w.times[back]).Round(time.Millisecond), e.Time.Sub(g.killed.to).Round(time.Millisecond))
			return
		}
	}
	t.Errorf("monitor %v: the victim, on exactly a quorum whose master 0 was restarted empty, has no quorum-lost event; around its return:%s",
		w, trace.String())
}

// checkMasterEvents fails unless master 0 is seen restarted exactly once and no other master is restarted or
// declared down, the stopped one aside.
func (g *groundTruth) checkMasterEvents(t *testing.T, w *watched) {
	t.Helper()
	count := func(addr string, kind monitor.EventKind) int {
		n := 0
		for _, e := range w.final.Events {
			if e.Master == addr && e.Kind == kind {
				n++
			}
		}
		return n
	}
	if n := count(g.servers[0].Addr(), monitor.EventMasterRestarted); n != 1 {
		t.Errorf("monitor %v: master 0 restarted once, %d restart events", w, n)
	}
	for i := 1; i < len(g.servers); i++ {
		if n := count(g.servers[i].Addr(), monitor.EventMasterRestarted); n != 0 {
			t.Errorf("monitor %v: master %d never restarted, %d restart events", w, i, n)
		}
		if n := count(g.servers[i].Addr(), monitor.EventMasterDown); n != 0 && i != 4 {
			t.Errorf("monitor %v: master %d never went down, %d down events", w, i, n)
		}
	}
	if n := count(g.servers[4].Addr(), monitor.EventMasterUp); n < len(g.paused) {
		t.Errorf("monitor %v: master 4 stopped %d times, seen back %d times", w, len(g.paused), n)
	}
}

// checkRefreshWhileStopped fails if polls come less than a third as often while master 4 is stopped as over
// the whole run: one stopped master must not slow the refresh of the rest. (Before issue 18 they came 4 to 7
// times less often at 100 ms; on a machine overloaded by -race and a busy core, where a poll whose first
// answers are slow waits twice as long for the rest, up to 2.2 times has been seen since.)
func (g *groundTruth) checkRefreshWhileStopped(t *testing.T, w *watched) {
	t.Helper()
	var stopped time.Duration
	polls := 0
	for _, p := range g.paused {
		stopped += p.to.Sub(p.from)
		for _, at := range w.times {
			if at.After(p.from) && at.Before(p.to) {
				polls++
			}
		}
	}
	if polls == 0 {
		t.Errorf("monitor %v: no poll at all while master 4 was stopped (%v in all)", w, stopped)
		return
	}
	during := stopped / time.Duration(polls)
	overall := w.times[len(w.times)-1].Sub(w.times[0]) / time.Duration(len(w.times)-1)
	t.Logf("monitor %v: a poll every %v with master 4 stopped, every %v over the run", w,
		during.Round(time.Millisecond), overall.Round(time.Millisecond))
	if during > 3*overall {
		t.Errorf("monitor %v: a poll every %v while master 4 is stopped, every %v over the run: the stopped master holds the others",
			w, during.Round(time.Millisecond), overall.Round(time.Millisecond))
	}
}

// logCommands logs what MONITOR recorded, and how far apart the DELs of one release land on the masters.
func (g *groundTruth) logCommands(t *testing.T) {
	t.Helper()
	sp := g.commands.spreads(g.holds)
	g.commands.mu.Lock() // MONITOR is still being read
	lines := g.commands.lines
	g.commands.mu.Unlock()
	if len(sp) == 0 {
		t.Errorf("MONITOR recorded no release (%d lines)", lines)
		return
	}
	t.Logf("MONITOR: %d commands; %d releases seen on several masters, their DELs spread over median %v, p99 %v, max %v",
		lines, len(sp), sp[len(sp)/2], sp[len(sp)*99/100], sp[len(sp)-1])
}
