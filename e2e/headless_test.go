package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file run the binary in --headless mode against real redis-server masters and read what
// it serves (/metrics) and writes (--events).

// headless is a running `redlock-tui --headless`.
type headless struct {
	t       *testing.T
	proc    *runProcess
	metrics string // the /metrics URL
}

// metricsAt matches the line headless mode prints with the address it serves metrics on.
var metricsAt = regexp.MustCompile(`metrics at (http://\S+/metrics)`)

// startHeadless starts the binary with --headless, --metrics on a free port and args; it waits for the
// metrics address on stderr.
func startHeadless(t *testing.T, bin string, args ...string) *headless {
	t.Helper()
	return startHeadlessVia(t, []string{bin}, args...)
}

// startHeadlessVia is startHeadless with the binary started by a command: cmd's first word, given the rest of
// cmd then the binary's arguments (a shell that sets limits, then execs the binary given as $0).
func startHeadlessVia(t *testing.T, cmd []string, args ...string) *headless {
	t.Helper()
	args = append([]string{"--headless", "--metrics", "127.0.0.1:0"}, args...)
	p := startRun(t, cmd[0], t.TempDir(), append(cmd[1:len(cmd):len(cmd)], args...)...)
	h := &headless{t: t, proc: p}
	eventually(t, "the metrics address on stderr", func() (bool, string) {
		m := metricsAt.FindStringSubmatch(p.stderr.String())
		if m != nil {
			h.metrics = m[1]
		}
		return m != nil, p.stderr.String()
	})
	return h
}

// sample is one scrape: "name{labels}" to value, labels as Prometheus writes them (sorted).
type sample map[string]float64

// scrape reads /metrics once; a failed scrape is an error, so that eventually retries it on a loaded machine.
func (h *headless) scrape() (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.metrics, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", h.metrics, resp.Status)
	}
	s := sample{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "redlock_") {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		v, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("bad metrics line %q", line)
		}
		s[name] = v
	}
	return s, sc.Err()
}

// series lists the names in s that start with prefix.
func (s sample) series(prefix string) []string {
	var out []string
	for k := range s {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

func TestHeadlessMetricsShowMastersAndPlantedLocks(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := redlocktest.Addrs(masters)
	ctx := context.Background()
	plant := func(resource, token string, on ...int) {
		for _, i := range on {
			if err := clients[i].Set(ctx, resource, token, time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	plant("held:a", "token-a", 0, 1, 2)
	plant("held:b", "token-b", 0, 1)
	plant("partial:c", "token-c", 2)
	plant("split:d", "token-d1", 0)
	plant("split:d", "token-d2", 1)

	const poll = 200 * time.Millisecond
	h := startHeadless(t, bin, "--masters", strings.Join(addrs, ","), "--poll", poll.String(),
		"--metrics-locks", "held:a,absent:z")
	want := map[string]float64{
		`redlock_locks{state="held"}`:             2,
		`redlock_locks{state="partial"}`:          1,
		`redlock_locks{state="split"}`:            1,
		`redlock_locks{state="stuck"}`:            0,
		`redlock_locks{state="unknown"}`:          0,
		`redlock_quorum`:                          2,
		`redlock_masters_up`:                      3,
		`redlock_lock_held{resource="held:a"}`:    1,
		`redlock_lock_masters{resource="held:a"}`: 3,
		`redlock_lock_held{resource="absent:z"}`:  0,
	}
	for _, a := range addrs {
		want[fmt.Sprintf(`redlock_master_up{master=%q}`, a)] = 1
	}
	var s sample
	eventually(t, "metrics of every master and every planted lock", func() (bool, string) {
		var err error
		if s, err = h.scrape(); err != nil {
			return false, err.Error()
		}
		for k, v := range want {
			if got, ok := s[k]; !ok || got != v {
				return false, fmt.Sprintf("%s = %v (present %v), want %v", k, got, ok, v)
			}
		}
		return true, ""
	})
	if ups := s.series("redlock_master_up{"); len(ups) != len(addrs) {
		t.Errorf("redlock_master_up series %q; want one per master", ups)
	}
	if v := s[`redlock_lock_validity_seconds{resource="held:a"}`]; v <= 0 || v > 60 {
		t.Errorf("validity of held:a %vs, want within its 60s TTL", v)
	}
	if locks := s.series("redlock_lock_held{"); len(locks) != 2 {
		t.Errorf("per-lock series %q; want only the two resources listed in --metrics-locks", locks)
	}

	if err := masters[2].Stop(); err != nil {
		t.Fatal(err)
	}
	// The first poll to start after the stop began at most two polls after the last one counted now.
	after, err := h.scrape()
	if err != nil {
		t.Fatal(err)
	}
	stopped := after["redlock_polls_total"]
	upOfStopped := fmt.Sprintf(`redlock_master_up{master=%q}`, addrs[2])
	eventually(t, "two polls after the stop", func() (bool, string) {
		var err error
		if s, err = h.scrape(); err != nil {
			return false, err.Error()
		}
		return s["redlock_polls_total"] >= stopped+2, fmt.Sprintf("%v polls", s["redlock_polls_total"])
	})
	if s[upOfStopped] != 0 || s["redlock_masters_up"] != 2 {
		t.Errorf("two polls after stopping %s: %s = %v, redlock_masters_up = %v; want 0 and 2",
			addrs[2], upOfStopped, s[upOfStopped], s["redlock_masters_up"])
	}

	if err := h.proc.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := h.proc.wait(30 * time.Second); code != cli.ExitOK {
		t.Errorf("headless after SIGINT: exit %d, want 0; stderr:\n%s", code, h.proc.stderr.String())
	}
}

// eventLine is the part of an event line the tests check.
type eventLine struct {
	Seq      uint64    `json:"seq"`
	Time     time.Time `json:"time"`
	Source   string    `json:"source"`
	Kind     string    `json:"kind"`
	Resource string    `json:"resource"`
	Master   string    `json:"master"`
	Text     string    `json:"text"`
}

// readEvents reads the event lines written to path so far; a line cut short by a write in progress ends the list.
func readEvents(t *testing.T, path string) []eventLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []eventLine
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasSuffix(line, "\n") {
			break
		}
		var e eventLine
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %q is not JSON: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func TestHeadlessEventStreamRecordsAScriptedSequence(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := redlocktest.Addrs(masters)
	file := filepath.Join(t.TempDir(), "events.jsonl")
	h := startHeadless(t, bin, "--masters", strings.Join(addrs, ","), "--poll", "200ms", "--events", file)
	// The first poll has been served once every master is up.
	eventually(t, "the first poll", func() (bool, string) {
		s, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		return s["redlock_masters_up"] == 3, fmt.Sprintf("%v masters up", s["redlock_masters_up"])
	})

	locker, err := redlock.New(clients, redlock.WithNodeTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	ctx := context.Background()
	const resource = "events:job"
	has := func(kind, resource, master string) func() (bool, string) {
		return func() (bool, string) {
			for _, e := range readEvents(t, file) {
				if e.Kind == kind && e.Resource == resource && e.Master == master {
					return true, ""
				}
			}
			return false, fmt.Sprintf("events %+v", readEvents(t, file))
		}
	}
	lock, err := locker.Acquire(ctx, resource, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "lock-appeared", has("lock-appeared", resource, ""))
	if err := lock.Extend(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := lock.Release(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "released", has("released", resource, ""))
	if err := masters[1].Stop(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "master-down", has("master-down", "", addrs[1]))

	if err := h.proc.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	h.proc.wait(30 * time.Second)
	var kinds []string
	var prev eventLine
	scripted := false // from the lock's appearance: before it, a loaded machine may have a master answer late
	for _, e := range readEvents(t, file) {
		if e.Seq != prev.Seq+1 || e.Time.Before(prev.Time) || e.Source != "monitor" || e.Text == "" {
			t.Errorf("event %+v after %+v: want seq+1, a later time, source monitor and a text", e, prev)
		}
		prev = e
		scripted = scripted || e.Kind == "lock-appeared" && e.Resource == resource
		if scripted && (e.Resource == resource || e.Master == addrs[1] && strings.HasPrefix(e.Kind, "master-")) {
			kinds = append(kinds, e.Kind)
		}
	}
	// The extension is not an event: the lock stays held throughout, with neither expiry nor takeover.
	want := "lock-appeared released master-not-answering master-down"
	if got := strings.Join(kinds, " "); got != want && got != "lock-appeared released master-down" {
		t.Errorf("events about %s and the stopped master: %s; want %s (master-not-answering may be skipped "+
			"when the master refuses at once)", resource, got, want)
	}
}

func TestHeadlessMetricsAddressInUse(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	h := startHeadless(t, bin, "--masters", strings.Join(redlocktest.Addrs(masters), ","))
	taken := strings.TrimSuffix(strings.TrimPrefix(h.metrics, "http://"), "/metrics")
	code, _, stderr := runBinary(t, bin, nil, "--headless", "--metrics", taken, "--masters", strings.Join(redlocktest.Addrs(masters), ","))
	if code != cli.ExitFailure || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--metrics") {
		t.Errorf("--metrics on a port in use: exit %d, stderr %q; want %d and one line naming --metrics", code, stderr, cli.ExitFailure)
	}
}
