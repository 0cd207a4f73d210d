package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestRunTakesItsMastersAndTTLFromTheEnvironment: `run` with no -m and no --ttl takes them from
// REDLOCK_TUI_MASTERS and REDLOCK_TUI_TTL: the lock is on a quorum of those real masters with that TTL (90s,
// far from the 10s default), the command runs under it, and the lock is released when it exits; a bad
// REDLOCK_TUI_TTL is exit 2 naming the variable, before anything is connected.
func TestRunTakesItsMastersAndTTLFromTheEnvironment(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "cron:from-env"
	env := []string{"REDLOCK_TUI_MASTERS=" + strings.Join(redlocktest.Addrs(masters), ","), "REDLOCK_TUI_TTL=90s"}
	p := startProcess(t, &syscall.SysProcAttr{Setsid: true}, env, bin, dir, "run", resource, "--", "sh", "-c",
		`echo "$REDLOCK_TOKEN" > "$D/token"; `+waitScript)

	token := readFileEventually(t, filepath.Join(dir, "token"))
	watchdog := watchdogOf(t, readPid(t, filepath.Join(dir, "pid")))
	held := 0
	for i, c := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, err := c.Get(ctx, resource).Result()
		pttl, pErr := c.PTTL(ctx, resource).Result()
		cancel()
		if err != nil || pErr != nil || got != token {
			continue
		}
		held++
		// Run extends by the TTL when a third of it is left, so the key's TTL is between a third of 90s and 90s.
		if pttl <= 30*time.Second || pttl > 90*time.Second {
			t.Errorf("master %d: the lock's PTTL is %s; want REDLOCK_TUI_TTL=90s's (the default is 10s)", i+1, pttl)
		}
	}
	if held < 2 {
		t.Errorf("REDLOCK_TOKEN=%q is held on %d of the 3 masters of REDLOCK_TUI_MASTERS; want a quorum", token, held)
	}
	touch(t, filepath.Join(dir, "go"))
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("run exited %d, want the command's 0; stderr:\n%s", code, p.stderr.String())
	}
	sessionEmptyAfterExit(t, p, watchdog)
	if ok, state := goneEverywhere(clients, resource); !ok {
		t.Errorf("after run exited the lock is still on the masters: %s", state)
	}

	code, _, stderr := runBinary(t, bin, append(env[:1:1], "REDLOCK_TUI_TTL=a while"), "run", resource, "--", "true")
	if code != cli.ExitUsage || !strings.Contains(stderr, `REDLOCK_TUI_TTL="a while"`) {
		t.Errorf("REDLOCK_TUI_TTL=a while: exit %d, stderr %q; want exit 2 naming the variable", code, stderr)
	}
}
