package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// realServersOnly starts n redis-server masters with extra arguments, skipping where there is none (CI
// requires them, so it never skips there).
func realServersOnly(t *testing.T, n int, args ...string) []*redlocktest.Server {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server")
	}
	return redlocktest.StartServers(t, n, redlocktest.ServerOptions{Args: args})
}

// TestOnceFindsALockAmongManyOrdinaryKeys hides a lock among a million keys on each master with
// REDLOCK_TEST_SOAK=full, a quarter of that otherwise: either way its scan spans several polls.
func TestOnceFindsALockAmongManyOrdinaryKeys(t *testing.T) {
	t.Parallel()
	keys := redlocktest.Soak(250_000, 1_000_000)
	servers := realServersOnly(t, 3, "--enable-debug-command", "yes")
	ctx := context.Background()
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), ReadTimeout: time.Minute})
		if err := c.Do(ctx, "DEBUG", "POPULATE", keys, "cache").Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, "orders:settle", "tok-settle-0123456789", 10*time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	bin := buildBinary(t)
	// A generous budget keeps the test short; the scan still spans several polls.
	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--scan-budget", "50", "--masters", strings.Join(addrs, ","))
	if code != cli.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	s := monitortest.DecodeJSON(t, stdout)
	if len(s.Locks) != 1 || s.Locks[0].Resource != "orders:settle" || s.Locks[0].State != "held" || s.Locks[0].Count != 3 {
		t.Fatalf("locks %+v; want orders:settle held on 3 masters among %d keys each", s.Locks, keys)
	}
	if strings.ContainsAny(stderr, "\r\x1b") { // progress lines, a long scan's, are whole lines there
		t.Errorf("terminal controls written to a stderr that is not a terminal: %q", stderr)
	}
}

func TestOnceExitStatusCountsOneServerOnce(t *testing.T) {
	t.Parallel()
	servers := realServersOnly(t, 1)
	// A proxy is a second name for the same server that the command line cannot see through (as a host alias
	// would be); only INFO's run_id tells.
	_, alias := redlocktest.WithProxy(t, servers[0])
	dead := redlocktest.StartServers(t, 1, redlocktest.ServerOptions{})[0]
	deadAddr := dead.Addr()
	if err := dead.Stop(); err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	// One distinct server of three answered, below the quorum of 2, though two addresses answered.
	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--masters", strings.Join([]string{servers[0].Addr(), alias, deadAddr}, ","))
	if code != cli.ExitNoQuorum {
		t.Errorf("exit %d (stderr %q), want %d: one server counted twice made a quorum", code, stderr, cli.ExitNoQuorum)
	}
	if !strings.Contains(stdout, `"duplicate_of": "`+servers[0].Addr()+`"`) || !strings.Contains(stdout, `"up_count": 1`) {
		t.Errorf("JSON does not count the server once and name the duplicate:\n%s", stdout)
	}
}

func TestOnceConnectionSetupErrorIsDownAndFailsTheQuorum(t *testing.T) {
	t.Parallel()
	servers := realServersOnly(t, 3)
	bin := buildBinary(t)
	var masters []string
	for _, s := range servers {
		masters = append(masters, "redis://"+s.Addr()+"/16") // no such database
	}
	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--masters", strings.Join(masters, ","))
	if code != cli.ExitNoQuorum {
		t.Errorf("exit %d (stderr %q), want %d", code, stderr, cli.ExitNoQuorum)
	}
	s := monitortest.DecodeJSON(t, stdout)
	for i, m := range s.Masters {
		if m.Up || !strings.Contains(m.Error, "DB index is out of range") {
			t.Errorf("masters[%d] up %v error %q; want down, naming the SELECT error", i, m.Up, m.Error)
		}
	}
}
