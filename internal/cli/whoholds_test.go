package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// holdWithRedsync takes resource with redsync over servers, through go-redis clients named name, and extends it
// every 300ms until the test ends.
func holdWithRedsync(t *testing.T, servers []*redlocktest.Server, resource, name string) {
	t.Helper()
	var pools []redsyncredis.Pool
	for _, s := range servers {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), ClientName: name, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		pools = append(pools, goredis.NewPool(c))
	}
	mutex := redsync.New(pools...).NewMutex(resource, redsync.WithExpiry(2*time.Second), redsync.WithTries(1))
	ctx, cancel := context.WithCancel(context.Background())
	if err := mutex.LockContext(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(300 * time.Millisecond):
				mutex.ExtendContext(ctx)
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		mutex.UnlockContext(context.Background())
	})
}

// TestOnceWhoNamesTheHoldersConnection runs --once --who on three real masters where a redsync client, its
// connections named billing-worker-3, holds the lock and extends it: the text and the JSON name its connection.
func TestOnceWhoNamesTheHoldersConnection(t *testing.T) {
	t.Parallel()
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	holdWithRedsync(t, servers, "billing:invoice-7", "billing-worker-3")
	masters := strings.Join(redlocktest.Addrs(servers), ",")

	args := []string{"-m", masters, "--once", "--who", "billing:invoice-7", "--who-for", "2s"}
	code, stdout, stderr := runCapture(args, realEnv)
	if code != ExitOK {
		t.Fatalf("%q: exit %d, stderr %q", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) < 3 || lines[0] != "lock billing:invoice-7: held" || !strings.HasPrefix(lines[1], "held by 127.0.0.1:") ||
		!strings.Contains(lines[1], " (billing-worker-3, connected ") || !strings.HasPrefix(lines[len(lines)-1], "sampled in ") {
		t.Errorf("%q printed:\n%s\nwant the lock's state, then \"held by <addr> (billing-worker-3, connected ...\", "+
			"and what was sampled last", args, stdout)
	}

	args = append(args, "--json")
	code, stdout, stderr = runCapture(args, realEnv)
	if code != ExitOK {
		t.Fatalf("%q: exit %d, stderr %q", args, code, stderr)
	}
	var got whoholds.JSONReport
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%q: not JSON (%v):\n%s", args, err, stdout)
	}
	if !got.Sampled || len(got.Holders) == 0 || got.Holders[0].Name != "billing-worker-3" || !got.Holders[0].Listed ||
		got.Holders[0].Role != whoholds.RoleHolder || got.Resource != "billing:invoice-7" || got.AskedMS != 2000 {
		t.Errorf("%q: %+v; want a sample of 2s naming the connection billing-worker-3 as the holder", args, got)
	}
}

// TestOnceWhoSaysWhatTheACLRefuses samples as a user that may read but not MONITOR: exit 1, with the refusal
// and what grants it, in text and in JSON.
func TestOnceWhoSaysWhatTheACLRefuses(t *testing.T) {
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	admin := s.NewClient()
	defer admin.Close()
	ctx := context.Background()
	if err := admin.Do(ctx, "ACL", "SETUSER", "watcher", "on", ">pw", "~*", "+@read", "+@connection", "+info",
		"+client|list", "+evalsha", "+eval", "+script|load", "+scan", "+time", "+role", "+config|get").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(ctx, "orders:42", "tok", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	master := fmt.Sprintf("redis://watcher:pw@%s", s.Addr())
	code, stdout, stderr := runCapture([]string{"-m", master, "--once", "--who", "orders:42"}, realEnv)
	if code != ExitFailure || !strings.Contains(stderr, "--who orders:42: the master's ACL refuses MONITOR") ||
		!strings.Contains(stderr, "+monitor and +client|list") {
		t.Errorf("exit %d, stderr %q, stdout %q; want exit 1 and the refusal of MONITOR with what grants it", code, stderr, stdout)
	}
	code, stdout, _ = runCapture([]string{"-m", master, "--once", "--who", "orders:42", "--json"}, realEnv)
	var got whoholds.JSONReport
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != ExitFailure || got.Sampled ||
		got.Denied != "MONITOR" {
		t.Errorf("--json: exit %d, %+v (%v); want exit 1, not sampled, denied MONITOR", code, got, err)
	}
}

func TestWhoFlagsAreChecked(t *testing.T) {
	env := fakeEnv(map[string]string{"PROD_PW": "x"}, profileFiles(t, prodProfile))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-m", "a:1", "--who", "k"}, "--who only applies with --once"},
		{[]string{"-m", "a:1", "--once", "--who-for", "5s"}, "--who-for, --who-lines and --who-confirm only apply with --who"},
		{[]string{"-m", "a:1", "--once", "--who", "k", "--markdown"}, "--who prints its own report"},
		{[]string{"-m", "a:1", "--once", "--who", "k", "--who-for", "11s"}, "--who-for must be from 1ms to 10s"},
		{[]string{"-m", "a:1", "--once", "--who", "k", "--who-lines", "0"}, "--who-lines must be from 1"},
		{[]string{"-m", "a:1", "--once", "--who", "k", "--read-only"}, "--read-only: add --who-confirm"},
		{[]string{"-P", "prod", "--once", "--who", "k"}, `profile "prod" is read-only or production: add --who-confirm`},
		{[]string{"-P", "staging", "--once", "--who", "k"}, `profile "staging" is read-only or production`},
	}
	for _, tc := range tests {
		code, _, stderr := runCapture(tc.args, env)
		checkOneUsageLine(t, tc.args, code, stderr, tc.want)
	}
	c, err := parseConfig([]string{"-P", "prod", "--once", "--who", "k", "--who-confirm", "--who-for", "5s"}, env)
	if err != nil || c.Who != (whoConfig{Resource: "k", For: 5 * time.Second, Lines: whoholds.DefaultMaxLines, Confirm: true}) {
		t.Errorf("a confirmed --who on a production profile: %+v, %v; want it accepted", c.Who, err)
	}
}
