package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
