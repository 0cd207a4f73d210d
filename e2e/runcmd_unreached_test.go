package e2e

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file are the `run` observations of issue 42: a master that could not be reached is said
// once, at the start, with its real reason, and the release does not call a key unconfirmed on a master that
// never got it.

// closedAddr returns an address on this machine with nothing listening on it.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// runWithOneBadMaster runs `true` under a lock on four real masters and bad, and returns run's stderr.
func runWithOneBadMaster(t *testing.T, bad string) string {
	t.Helper()
	bin := buildBinary(t)
	addrs := append(redlocktest.Addrs(redlocktest.Masters(t, 4)), bad)
	p := startRun(t, bin, t.TempDir(), "run", "-m", strings.Join(addrs, ","), "--ttl", "10s", "R", "--", "true")
	if code := p.wait(30 * 1e9); code != 0 {
		t.Fatalf("run exited %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
	return p.stderr.String()
}

func TestRunNamesAMasterDownOnceAndDoesNotWarnOfItsRelease(t *testing.T) {
	t.Parallel()
	bad := closedAddr(t)
	stderr := runWithOneBadMaster(t, bad)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], bad) || !strings.Contains(lines[0], "connection refused") ||
		!strings.Contains(lines[0], "without 1 of 5 masters") {
		t.Errorf("run with %s down said, want one line naming it with \"connection refused\":\n%s", bad, stderr)
	}
	if strings.Contains(stderr, "unconfirmed") {
		t.Errorf("run warned of an unconfirmed release on a master that never had the key:\n%s", stderr)
	}
}

func TestRunNamesABadDBNumberAsTheReason(t *testing.T) {
	t.Parallel()
	bad := redlocktest.Masters(t, 1)[0]
	stderr := runWithOneBadMaster(t, fmt.Sprintf("redis://%s/99", redlocktest.Addrs([]redlocktest.Master{bad})[0]))
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "DB index is out of range") {
		t.Errorf("run with a master at DB 99 said, want one line with the master's reason (DB index out of range):\n%s", stderr)
	}
	if strings.Contains(stderr, "unconfirmed") {
		t.Errorf("run warned of an unconfirmed release on a master that refused the DB number:\n%s", stderr)
	}
}
