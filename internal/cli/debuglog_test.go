package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestDebugLogRecordsConnectionsRoundsAndPolls runs --once and run with --debug against two real masters
// and one that refuses connections: the log has every master's poll (with the refusal), go-redis's failed
// dial, and run's acquire and release rounds with what each master did.
func TestDebugLogRecordsConnectionsRoundsAndPolls(t *testing.T) {
	defer redis.SetLogger(quietLogger{})
	masters := redlocktest.Masters(t, 2)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	list := strings.Join(append(redlocktest.Addrs(masters), refused), ",")
	file := filepath.Join(t.TempDir(), "debug.log")

	if code, _, stderr := runCapture([]string{"-m", list, "--once", "--debug", file}, realEnv); code != ExitOK {
		t.Fatalf("--once: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCapture([]string{"run", "-m", list, "--debug", file, "job", "--", "true"}, realEnv); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{
		"msg=poll seq=1 master=" + masters[0].Addr() + " up=true",
		"msg=poll seq=1 master=" + refused + " up=false",
		"msg=go-redis", // the refused dial, in go-redis's words
		"msg=round op=acquire resource=job ok=2 of=3",
		"msg=round op=release resource=job ok=2 of=3",
		refused + "=error",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the debug log has no %q:\n%s", want, log)
		}
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the debug log names lock tokens: mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
}

// TestASymlinkAtTheDebugOrEventsPathEndsTheProgram: --debug and --events files name lock tokens, and a
// symbolic link at their path is not followed: the program ends with exit 1 and one line that names the
// flag and says why, before it polls or writes anything.
func TestASymlinkAtTheDebugOrEventsPathEndsTheProgram(t *testing.T) {
	defer redis.SetLogger(quietLogger{})
	masters := redlocktest.Masters(t, 1)
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--debug", []string{"--once"}},
		{"--events", []string{"--headless"}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			dir := t.TempDir()
			target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"-m", masters[0].Addr(), tc.flag, link}, tc.args...)
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() { // --headless runs until a signal once its outputs are open: a refusal ends it at once
				code, _, stderr := runCapture(args, realEnv)
				done <- result{code, stderr}
			}()
			var code int
			var stderr string
			select {
			case r := <-done:
				code, stderr = r.code, r.stderr
			case <-time.After(30 * time.Second):
				t.Fatalf("%s through a symbolic link: still running after 30s; want it refused before polling", tc.flag)
			}
			if code != ExitFailure || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.flag) ||
				!strings.Contains(stderr, "symbolic link") {
				t.Errorf("%s through a symbolic link: exit %d, stderr %q; want exit %d and one line naming the flag and the link",
					tc.flag, code, stderr, ExitFailure)
			}
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("%s created the link's target", tc.flag)
			}
		})
	}
}
