package e2e

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// scanLines are the lines of --once's progress off a terminal: the time so far, the master and how far its
// scan is, as a percent of its keys.
var scanLines = regexp.MustCompile(`(?m)^redlock-tui: scanning for locks \(\S+ so far\): 127\.0\.0\.1:\d+ \d+% of 200,000 keys\n`)

// TestOnceOffATerminalSaysHowFarItsScanHasGot: --once over a master of 200,000 other keys, under a scan budget
// that spreads the scan over many polls, says on stderr (not a terminal here) how far its scan has got, every
// few seconds, with a percent of the keys and no terminal controls. (How the
// scan is summed up at its end is scanSummary's test: a whole scan takes minutes on a loaded machine.)
func TestOnceOffATerminalSaysHowFarItsScanHasGot(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	server := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	c := redis.NewClient(&redis.Options{Addr: server.Addr(), ReadTimeout: time.Minute}) // a loaded machine
	defer c.Close()
	fill := "for i = ARGV[1], ARGV[1] + 19999 do redis.call('SET', 'bulk:' .. i, 'x', 'EX', 3600) end return 1"
	for from := 0; from < 200000; from += 20000 {
		if err := c.Eval(context.Background(), fill, nil, from).Err(); err != nil {
			t.Fatal(err)
		}
	}
	p := startRun(t, bin, t.TempDir(), "-m", server.Addr(), "--once", "--scan-budget", "1", "--poll", "100ms",
		"--node-timeout", "2s")
	eventually(t, "a progress line on stderr", func() (bool, string) {
		return scanLines.MatchString(p.stderr.String()), p.stderr.String()
	})
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	p.wait(30 * time.Second)
	if got := p.stderr.String(); regexp.MustCompile("[\x1b\r]").MatchString(got) {
		t.Errorf("terminal controls on stderr that is not a terminal: %q", got)
	}
}
