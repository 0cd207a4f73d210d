package whoholds_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// holderName is the client name the redsync holder's go-redis clients give their connections.
const holderName = "billing-worker-3"

// namedClient returns a client of s whose connections carry name (go-redis's ClientName option: CLIENT SETNAME).
func namedClient(t testing.TB, s *redlocktest.Server, name string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), ClientName: name, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// redsyncHolder takes resource with redsync over servers, through clients named holderName, and extends it
// every period until the test ends (the lock is released then). It returns once the lock is held.
func redsyncHolder(t *testing.T, servers []*redlocktest.Server, resource string, period time.Duration) {
	t.Helper()
	var pools []redsyncredis.Pool
	for _, s := range servers {
		pools = append(pools, goredis.NewPool(namedClient(t, s, holderName)))
	}
	mutex := redsync.New(pools...).NewMutex(resource, redsync.WithExpiry(4*period), redsync.WithTries(1))
	ctx, cancel := context.WithCancel(context.Background())
	if err := mutex.LockContext(ctx); err != nil {
		cancel()
		t.Fatalf("redsync lock of %s: %v", resource, err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if ok, err := mutex.ExtendContext(ctx); !ok && ctx.Err() == nil {
					t.Errorf("redsync extend of %s: %v", resource, err)
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		mutex.UnlockContext(context.Background())
	})
}

// heldSnapshot polls mon until resource is held, and returns the snapshot and its view.
func heldSnapshot(t *testing.T, mon *monitor.Monitor, resource string) (monitor.Snapshot, *monitor.LockView) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s := mon.Poll(ctx)
		cancel()
		if v := s.Lock(resource); v != nil && v.State == monitor.StateHeld {
			return s, v
		}
		if time.Now().After(deadline) {
			t.Fatalf("the monitor never saw %s held", resource)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// namedStillOpen returns the addresses of the connections named name that the master still lists 5s on. A
// client's close reaches the master after the call that closed it has returned: the master drops the
// connection when it reads the end of it, so a list read at once may still hold it.
func namedStillOpen(t *testing.T, c *redis.Client, name string) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := addrsNamed(t, c, name)
		if len(got) == 0 || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// addrsNamed returns the addresses of s's connections named name, as the master lists them.
func addrsNamed(t *testing.T, c *redis.Client, name string) []string {
	t.Helper()
	text, err := c.ClientList(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, " name="+name+" ") {
			for _, f := range strings.Fields(line) {
				if a, ok := strings.CutPrefix(f, "addr="); ok {
					out = append(out, a)
				}
			}
		}
	}
	return out
}

// TestSampleNamesTheRedsyncHoldersConnection is the feature end to end at the API level: a redsync client
// whose go-redis connections are named holds a lock on three real masters and keeps extending it; the monitor
// sees it held; TargetOf picks a master and the holder's token there; the sample names the holder's connection
// by address and name, and tells apart a contender and a reader of the same key.
func TestSampleNamesTheRedsyncHoldersConnection(t *testing.T) {
	t.Parallel()
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	const resource = "billing:invoice-7"
	redsyncHolder(t, servers, resource, 300*time.Millisecond)

	var clients []*redis.Client
	var names []string
	for _, s := range servers {
		c := s.NewClient()
		t.Cleanup(func() { c.Close() })
		clients, names = append(clients, c), append(names, s.Addr())
	}
	mon, err := monitor.New(clients, names, monitor.Config{NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	snap, lv := heldSnapshot(t, mon, resource)
	target, err := whoholds.TargetOf(&snap, lv)
	if err != nil {
		t.Fatal(err)
	}
	if target.Key != resource || !slices.Equal(target.Tokens, []string{lv.Holder}) {
		t.Fatalf("target %+v: want the key %s and the holder's token %q", target, resource, lv.Holder)
	}
	sampled := servers[slices.Index(names, target.Master)]

	// A contender tries to take the lock while the sample runs, and a checker reads it.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	contender, checker := namedClient(t, sampled, "billing-worker-9"), namedClient(t, sampled, "lock-checker")
	go func() {
		for ctx.Err() == nil {
			contender.SetNX(ctx, resource, "not-the-holders-token", time.Second)
			checker.PTTL(ctx, resource)
			time.Sleep(100 * time.Millisecond)
		}
	}()

	r, err := whoholds.NewMasters(clients, names).Sample(context.Background(), target, 2*time.Second, 0)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("summary:\n%s", strings.Join(r.Summary("sample longer"), "\n"))
	holders := r.Holders()
	if len(holders) == 0 {
		t.Fatalf("no holder named after 2s of a lock extended every 300ms; connections seen: %+v", r.Conns)
	}
	named := addrsNamed(t, clients[slices.Index(names, target.Master)], holderName)
	for _, h := range holders {
		if h.Name != holderName || !h.Listed || !slices.Contains(named, h.Addr) {
			t.Errorf("holder %s: want a connection named %s, one of %v", whoholds.Describe(h), holderName, named)
		}
	}
	if got, ok := roleOf(r, "billing-worker-9"); !ok || got != whoholds.RoleContender {
		t.Errorf("the contender's role: %v (seen %v), want %v", got, ok, whoholds.RoleContender)
	}
	if got, ok := roleOf(r, "lock-checker"); !ok || got != whoholds.RoleReader {
		t.Errorf("the checker's role: %v (seen %v), want %v", got, ok, whoholds.RoleReader)
	}
	summary := r.Summary("sample longer")
	if want := "held by " + holders[0].Addr + " (" + holderName + ", connected "; !strings.HasPrefix(summary[0], want) {
		t.Errorf("summary's first line %q; want it to start %q", summary[0], want)
	}
	if r.Stopped != whoholds.StopTime || r.Took < 2*time.Second || r.Took > 4*time.Second {
		t.Errorf("the sample stopped by %s after %s; want by time, after 2s", r.Stopped, r.Took)
	}
	if got := namedStillOpen(t, clients[0], whoholds.ConnectionName); len(got) != 0 {
		t.Errorf("the sampling connection is still open after the sample: %v", got)
	}
}

// roleOf is the role of the connection named name in r.
func roleOf(r whoholds.Report, name string) (whoholds.Role, bool) {
	for _, c := range r.Conns {
		if c.Name == name {
			return c.Role, true
		}
	}
	return 0, false
}

// TestSampleOfAQuietHolderSaysSo samples a lock whose holder does not touch it during the sample: the report
// names nobody and says to sample longer.
func TestSampleOfAQuietHolderSaysSo(t *testing.T) {
	t.Parallel()
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	c := s.NewClient()
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "quiet", "tok", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, "busy-elsewhere", "x", 0) // another key's command is read, not kept
	r, err := whoholds.Sample(ctx, c, s.Addr(), whoholds.Request{Key: "quiet", Tokens: []string{"tok"},
		For: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	summary := r.Summary("--who-for 10s")
	if len(r.Conns) != 0 || len(summary) != 1 || !strings.HasPrefix(summary[0], "nothing touched quiet in ") ||
		!strings.HasSuffix(summary[0], "does not show; --who-for 10s") {
		t.Errorf("a quiet holder: connections %+v, summary %q; want none and a suggestion to sample longer", r.Conns, summary)
	}
}

// TestSampleStopsAtItsLineBudget loads a master with commands on other keys: the sample reads no more lines
// than asked, long before its time.
func TestSampleStopsAtItsLineBudget(t *testing.T) {
	t.Parallel()
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	c := s.NewClient()
	defer c.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		load := s.NewClient()
		defer load.Close()
		for ctx.Err() == nil {
			load.Incr(ctx, "counter")
		}
	}()
	r, err := whoholds.Sample(context.Background(), c, s.Addr(), whoholds.Request{Key: "lock", For: 10 * time.Second,
		MaxLines: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stopped != whoholds.StopLines || r.Lines != 200 || r.Took > 5*time.Second {
		t.Errorf("stopped by %s after %d lines in %s; want by its budget of 200 lines, well before 10s", r.Stopped, r.Lines, r.Took)
	}
	if got := r.Summary("x"); !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "stopped after 200 MONITOR lines") }) {
		t.Errorf("summary %q does not say the line budget stopped it", got)
	}
}

// TestSampleIsRefusedWhereTheACLDeniesIt samples as users whose ACL denies MONITOR, or CLIENT LIST: each is a
// DeniedError naming the command, and no sampling connection is left on the master.
func TestSampleIsRefusedWhereTheACLDeniesIt(t *testing.T) {
	t.Parallel()
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	admin := s.NewClient()
	defer admin.Close()
	ctx := context.Background()
	users := []struct {
		user, rules, denied string
	}{
		{"watcher", "+@read +client|list", "MONITOR"},
		{"lister", "+@read +monitor", "CLIENT LIST"},
	}
	for _, u := range users {
		args := []any{"ACL", "SETUSER", u.user, "reset", "on", ">pw", "~*", "+client|setname"}
		for _, r := range strings.Fields(u.rules) {
			args = append(args, r)
		}
		if err := admin.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
		t.Run(u.user, func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: u.user, Password: "pw", MaxRetries: -1})
			defer c.Close()
			_, err := whoholds.Sample(ctx, c, s.Addr(), whoholds.Request{Key: "k", For: 5 * time.Second})
			var de *whoholds.DeniedError
			if !errors.As(err, &de) || de.Command != u.denied {
				t.Fatalf("sampling as %s (%s): %v; want a DeniedError for %s", u.user, u.rules, err, u.denied)
			}
			if !strings.Contains(err.Error(), "+monitor and +client|list") {
				t.Errorf("the refusal %q does not say what grants it", err)
			}
			if got := namedStillOpen(t, admin, whoholds.ConnectionName); len(got) != 0 {
				t.Errorf("a refused sample left its connection open: %v", got)
			}
		})
	}
}

// TestSampleNamesARedissonStyleHolder holds a hash lock as Redisson does and renews it with Redisson's script,
// given the holder field: the renewing connection is the holder.
func TestSampleNamesARedissonStyleHolder(t *testing.T) {
	t.Parallel()
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	c := namedClient(t, s, "inventory-service")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	const field = "1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60:57"
	renew := redis.NewScript(`if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then ` +
		`redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;`)
	if err := c.HSet(ctx, "inventory", field, 1).Err(); err != nil {
		t.Fatal(err)
	}
	go func() {
		for ctx.Err() == nil {
			renew.Run(ctx, c, []string{"inventory"}, 30000, field)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	admin := s.NewClient()
	defer admin.Close()
	r, err := whoholds.Sample(context.Background(), admin, s.Addr(), whoholds.Request{Key: "inventory",
		Tokens: []string{field}, For: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Holders(); len(h) != 1 || h[0].Name != "inventory-service" {
		t.Errorf("holders %v; want the connection named inventory-service, which renews with the holder field", describeAll(h))
	}
	if r.ScriptCommands == 0 {
		t.Error("the renewal script's own commands on the key were not counted")
	}
}

// describeAll describes each connection.
func describeAll(cs []whoholds.Conn) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s [%s]", whoholds.Describe(c), c.Role))
	}
	return out
}
