package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file run the binary against a master named through its Sentinels: one primary, one
// replica and three Sentinels, real processes (redlocktest.StartSentinels).

// sentinelURL is the --masters entry of the group's master through all its Sentinels.
func sentinelURL(g *redlocktest.SentinelGroup, name string) string {
	return "redis+sentinel://" + strings.Join(g.SentinelAddrs(), ",") + "/" + name
}

// plantReplicated sets key=value with ttl on the group's primary and waits until its replica has it, so that
// a failover keeps it.
func plantReplicated(t *testing.T, primary *redlocktest.Server, key, value string, ttl time.Duration) {
	t.Helper()
	c := primary.NewClient()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Set(ctx, key, value, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Do(ctx, "wait", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 on %s: %d, %v; want the replica to have %s", primary.Addr(), n, err, key)
	}
}

// valueOn returns key's value on s, "" when absent; a failed read is an error, for eventually to retry.
func valueOn(s *redlocktest.Server, key string) (string, error) {
	c := s.NewClient()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := c.Get(ctx, key).Result()
	if err == redis.Nil {
		return "", nil
	}
	return v, err
}

func TestOnceThroughSentinelsShowsThePrimarysLocks(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	primary := g.Servers[0]
	const token = "c2VudGluZWwtbG9jay10b2tlbg=="
	plantReplicated(t, primary, "orders:7", token, time.Minute)

	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--masters", sentinelURL(g, g.Name))
	if code != cli.ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing on stderr\n%s", code, stderr, stdout)
	}
	s := monitortest.DecodeJSON(t, stdout)
	if want := g.Name + "@" + g.SentinelAddrs()[0]; len(s.Masters) != 1 || s.Masters[0].Addr != want || !s.Masters[0].Up ||
		s.Masters[0].Primary != primary.Addr() {
		t.Fatalf("masters %+v; want one, %s, up, with primary %s", s.Masters, want, primary.Addr())
	}
	if len(s.Locks) != 1 || s.Locks[0].Resource != "orders:7" || s.Locks[0].State != "held" || s.Locks[0].Holder != token {
		t.Errorf("locks %+v; want orders:7 held by %s", s.Locks, token)
	}
}

func TestHeadlessReportsASentinelFailoverAndRunLocksOnTheNewPrimary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	plantReplicated(t, g.Servers[0], "orders:8", "dG9rZW4tYmVmb3JlLWZhaWxvdmVy", time.Minute)
	file := filepath.Join(t.TempDir(), "events.jsonl")
	url := sentinelURL(g, g.Name)
	name := g.Name + "@" + g.SentinelAddrs()[0]
	h := startHeadless(t, bin, "--masters", url, "--poll", "200ms", "--events", file)
	eventually(t, "the lock through the Sentinels", func() (bool, string) {
		s, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		return s[`redlock_locks{state="held"}`] == 1 && s[fmt.Sprintf(`redlock_master_up{master=%q}`, name)] == 1,
			fmt.Sprintf("%v", s)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	from, to, err := g.Failover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantEvent := fmt.Sprintf("failover: primary %s -> %s", from.Addr(), to.Addr())
	eventually(t, "the failover event and its warning", func() (bool, string) {
		var event, warning bool
		for _, e := range readEvents(t, file) {
			event = event || e.Kind == "master-failover" && e.Master == name && e.Text == wantEvent
			warning = warning || e.Kind == "warning" && e.Master == name &&
				strings.Contains(e.Text, "failover: locks not yet replicated to the new primary may be lost") &&
				strings.Contains(e.Text, from.Addr()+" -> "+to.Addr())
		}
		return event && warning, fmt.Sprintf("events %+v", readEvents(t, file))
	})
	eventually(t, "the lock still held, read on the new primary", func() (bool, string) {
		s, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		return s[`redlock_locks{state="held"}`] == 1 && s[`redlock_events_total{kind="master-failover"}`] == 1, fmt.Sprintf("%v", s)
	})
	for _, e := range readEvents(t, file) {
		if e.Kind == "master-restarted" {
			t.Errorf("the failover was reported as a restart too: %+v", e)
		}
	}

	// A new process through the same URL locks on the new primary and releases there.
	dir := t.TempDir()
	p := startRun(t, bin, dir, "run", "--masters", url, "--ttl", "30s", "jobs:after-failover", "--",
		"/bin/sh", "-c", `echo "$REDLOCK_TOKEN" > "$D/token"; while [ ! -e "$D/done" ]; do sleep 0.05; done`)
	token := readFileEventually(t, filepath.Join(dir, "token"))
	if v, err := valueOn(to, "jobs:after-failover"); err != nil || v != token {
		t.Errorf("the lock on the new primary %s: %q, %v; want run's token %q", to.Addr(), v, err, token)
	}
	touch(t, filepath.Join(dir, "done"))
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("run exited %d; stderr:\n%s", code, p.stderr.String())
	}
	if v, err := valueOn(to, "jobs:after-failover"); err != nil || v != "" {
		t.Errorf("after run: the lock on the new primary is %q, %v; want it released", v, err)
	}

	if err := h.proc.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := h.proc.wait(30 * time.Second); code != cli.ExitOK {
		t.Errorf("headless after SIGINT: exit %d, want 0; stderr:\n%s", code, h.proc.stderr.String())
	}
}

func TestASentinelGivenAsAMasterAndAnUnknownNameAreNamed(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	s1 := g.SentinelAddrs()[0]
	tests := []struct{ entry, want string }{
		{s1, s1 + " is a Sentinel, not a master: give redis+sentinel://" + s1 + "/mymaster"},
		{sentinelURL(g, "nosuch"), `no Sentinel named a primary for "nosuch": ` + strings.Join(g.SentinelAddrs(), ", ") +
			` know no master "nosuch" (they watch mymaster)`},
	}
	for _, tc := range tests {
		t.Run(tc.entry, func(t *testing.T) {
			start := time.Now()
			code, stdout, _ := runBinary(t, bin, nil, "--once", "--json", "--masters", tc.entry)
			if code != cli.ExitNoQuorum {
				t.Errorf("exit %d, want %d (no master answered)", code, cli.ExitNoQuorum)
			}
			s := monitortest.DecodeJSON(t, stdout)
			if len(s.Masters) != 1 || s.Masters[0].Up || s.Masters[0].Error != tc.want {
				t.Errorf("masters %+v; want one down with %q", s.Masters, tc.want)
			}
			// A node timeout that a loaded machine does not reach: the test is of the Sentinels' answer, not of a timeout.
			code, _, stderr := runBinary(t, bin, nil, "run", "--masters", tc.entry, "--retries", "1", "--node-timeout", "2s", "r", "--", "true")
			if code != cli.ExitNotAcquired || !strings.Contains(stderr, tc.want) {
				t.Errorf("run: exit %d, stderr %q; want %d and a message saying %q", code, stderr, cli.ExitNotAcquired, tc.want)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %v: a master that is not one must fail fast, not hang", d)
			}
		})
	}
}

func TestDashboardShowsASentinelFailover(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	bin := buildBinary(t)
	g := redlocktest.StartSentinels(t, redlocktest.SentinelOptions{})
	plantReplicated(t, g.Servers[0], "orders:9", "dG9rZW4tb24tdGhlLWRhc2hib2FyZA==", 5*time.Minute)
	name := g.Name + "@" + g.SentinelAddrs()[0]
	s.typeText(fmt.Sprintf("%s --read-only --poll 200ms --masters %s; echo \"exit=$?\"", bin, sentinelURL(g, g.Name)))
	s.keys("Enter")
	// One master, just started: the banner warns that Redlock needs three or more and says it started less than
	// the longest TTL ago, so the header, the worst of what is shown, is not OK.
	s.waitFor("the master up, not OK under the banner's warnings, with its lock held", func(screen string) bool {
		return strings.Contains(screen, name) && !strings.Contains(screen, " OK ") && strings.Contains(screen, "orders:9") &&
			strings.Contains(screen, "held") && strings.Contains(screen, "1 master: use an odd number")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	from, to, err := g.Failover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	screen := s.waitFor("UNSAFE and the failover named, the lock still held", func(screen string) bool {
		// The event log wraps the failover's text: both primaries are named, on one line or two.
		return strings.Contains(screen, "UNSAFE") && strings.Contains(screen, "failover: locks not yet replicated") &&
			strings.Contains(screen, from.Addr()+" ->") && strings.Contains(screen, to.Addr()) &&
			strings.Contains(screen, "orders:9") && strings.Contains(screen, "held")
	})
	if strings.Contains(screen, " OK ") {
		t.Errorf("the header says OK during the failover's replication race:\n%s", screen)
	}
	s.keys("q")
	if screen, status := waitForExit(s); status != "0" {
		t.Errorf("exit %s, want 0:\n%s", status, screen)
	}
}
