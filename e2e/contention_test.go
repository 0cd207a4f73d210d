package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestOnceWatchGivesContentionAndMarkdown: --once --watch polls for the time given and then prints each lock's
// contention, whose intervals are the tokens really set; --once --markdown prints the incident report.
func TestOnceWatchGivesContentionAndMarkdown(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	ctx, stop := context.WithCancel(context.Background())
	var mu sync.Mutex
	set := map[string]bool{}
	done := make(chan struct{})
	go func() { // a new holder of jobs:nightly every 600ms, on all three masters
		defer close(done)
		for n := 0; ctx.Err() == nil; n++ {
			token := fmt.Sprintf("job-token-%04d-5f1c9a", n)
			mu.Lock()
			set[token] = true
			mu.Unlock()
			for _, c := range clients {
				_ = c.Set(ctx, "jobs:nightly", token, 5*time.Second).Err()
			}
			select {
			case <-ctx.Done():
			case <-time.After(600 * time.Millisecond):
			}
		}
	}()
	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--watch", "12s", "--poll", "200ms", "--masters", addrs)
	stop()
	<-done
	if code != cli.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var out struct {
		Locks []struct {
			Resource   string `json:"resource"`
			Contention *struct {
				WatchedMS int64 `json:"watched_ms"`
				Window    struct {
					Acquisitions int `json:"acquisitions"`
				} `json:"window"`
				Intervals []struct {
					Token string `json:"token"`
				} `json:"intervals"`
			} `json:"contention"`
		} `json:"locks"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Locks) != 1 || out.Locks[0].Contention == nil {
		t.Fatalf("want jobs:nightly with its contention:\n%s", stdout)
	}
	c := out.Locks[0].Contention
	if c.WatchedMS < 12000 || c.Window.Acquisitions < 10 {
		t.Errorf("watched %dms, %d acquisitions; want 12s or more, and a new holder each 600ms seen at least 10 times", c.WatchedMS, c.Window.Acquisitions)
	}
	for _, iv := range c.Intervals {
		if !set[iv.Token] {
			t.Errorf("interval of %q, a token nobody set", iv.Token)
		}
	}

	code, stdout, _ = runBinary(t, bin, nil, "--once", "--markdown", "--pattern", "jobs:*", "--masters", addrs)
	for _, want := range []string{"# Redlock incident report", "## Masters", "## Locks", "| jobs:nightly |", "locks matching --pattern jobs:\\*", "## Last events"} {
		if code != cli.ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("--once --markdown: exit %d, no %q in:\n%s", code, want, stdout)
		}
	}
	// One read without --watch tells nothing of how the lock changes hands: no figures, and the report says why.
	if !strings.Contains(stdout, "| - | - | - | - |") || !strings.Contains(stdout, "No contention figures") {
		t.Errorf("--once --markdown without --watch gives contention figures from one read:\n%s", stdout)
	}
}

// TestRunVerboseSaysHowLongItWaitedAndInHowManyRounds: a run that waits for a lock held by another says, with
// --verbose, how many rounds it took (counted here on the master: SET NX calls) and how long it waited.
func TestRunVerboseSaysHowLongItWaitedAndInHowManyRounds(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	ctx := context.Background()
	const resource = "jobs:verbose"
	for _, c := range clients {
		if err := c.Set(ctx, resource, "held-by-another-0123456789", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	started := time.Now()
	p := startRun(t, bin, t.TempDir(), "run", "--verbose", "--wait", "2m", "-m", addrs, resource, "--", "true")
	sets := func() int64 {
		info := clients[0].Info(ctx, "commandstats").Val()
		_, rest, ok := strings.Cut(info, "cmdstat_set:calls=")
		if !ok {
			return 0
		}
		n, _ := strconv.ParseInt(rest[:strings.IndexAny(rest, ",\r\n")], 10, 64)
		return n
	}
	eventually(t, "three failed rounds", func() (bool, string) { n := sets(); return n >= 3, fmt.Sprint(n, " SETs") })
	for _, c := range clients {
		if err := c.Del(ctx, resource).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("run exited %d: %s", code, p.stderr.String())
	}
	wall := time.Since(started)
	m := regexp.MustCompile(`acquired "jobs:verbose" after (\d+) rounds \(([^)]+)\)`).FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("no acquisition line in:\n%s", p.stderr.String())
	}
	waited, err := time.ParseDuration(m[2])
	rounds, _ := strconv.Atoi(m[1])
	if err != nil || waited <= 0 || waited > wall || int64(rounds) < 4 || int64(rounds) > sets() {
		t.Errorf("waited %q, %d rounds; want a wait within the %v the run took, and at least 4 rounds (3 failed), at most the %d SETs master 0 saw",
			m[2], rounds, wall, sets())
	}
	if !strings.Contains(p.stderr.String(), `held "jobs:verbose" for `) || !strings.Contains(p.stderr.String(), "exit status 0") {
		t.Errorf("no summary of the hold:\n%s", p.stderr.String())
	}
}
