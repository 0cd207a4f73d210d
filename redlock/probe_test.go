package redlock

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestACachedScriptDoesNotPassTheProbe is issue 43's item 3: on a master whose EVAL is renamed away, any client
// may SCRIPT LOAD a script, which EVALSHA then runs. The connection's probe must not take that for a master
// that runs the client's scripts: with one good master of three stopped, the good one and the scriptless one
// would make a quorum whose lock could never be released on the scriptless one. Nothing is granted there, so
// the acquisition fails, and its key goes from the good master (released, at once or in the background).
func TestACachedScriptDoesNotPassTheProbe(t *testing.T) {
	t.Parallel()
	good := redlocktest.RealServers(t, 2, redlocktest.ServerOptions{})
	scriptless := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Args: []string{"--rename-command", "EVAL", ""}})[0]
	admin := scriptless.NewClient()
	defer admin.Close()
	ctx := ctxTimeout(t, 20*time.Second)
	// The probe's script and those of the release and the extension, cached as any client may cache them.
	for _, src := range []string{probeSource, releaseSource, extendSource} {
		if err := admin.ScriptLoad(ctx, src).Err(); err != nil {
			t.Fatalf("SCRIPT LOAD %q: %v", src, err)
		}
	}
	ms := []redlocktest.Master{good[0], good[1], scriptless}
	cl := &cluster{masters: ms, raw: redlocktest.Clients(t, ms)}
	if err := good[1].Stop(); err != nil {
		t.Fatal(err)
	}
	c := cl.client(t, WithRetries(2), WithRetryDelay(time.Millisecond, 5*time.Millisecond))
	l, err := c.Acquire(ctx, "cached-probe", 30*time.Second)
	if err == nil {
		t.Fatalf("acquired on %v with one good master of three up: the scriptless master counted as a grant", l.LastRound().Summary())
	}
	var re *RoundError
	if !errors.As(err, &re) {
		t.Fatalf("error %v; want a RoundError", err)
	}
	if got := re.Round.Nodes[2]; got.Outcome != OutcomeError || !strings.Contains(fmt.Sprint(got.Err), "cannot run Lua scripts") ||
		!strings.Contains(fmt.Sprint(got.Err), "unknown command") {
		t.Errorf("the scriptless master: %s (%v); want its own reply, unknown command, and that it cannot run scripts", got.Outcome, got.Err)
	}
	// A release that missed its node timeout (a loaded machine) goes on in the background until the master
	// confirms: the key must go long before its 30s TTL would take it.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		v := cl.values(t, "cached-probe")
		if v[0] == "" && v[2] == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("keys left 15s after the failed acquisition: %q", v)
		}
	}
}

// TestAMasterWhoseACLRefusesScriptsGrantsNothing: a user allowed SET and GET but not EVAL or EVALSHA (or
// either alone) would take locks it could never release nor extend. Its masters are counted out when the
// connection is set up, with the master's NOPERM reply, and an acquisition on three such masters fails
// naming it, leaving no key.
func TestAMasterWhoseACLRefusesScriptsGrantsNothing(t *testing.T) {
	t.Parallel()
	srvs := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	base := []any{"on", ">pw", "~*", "-@all", "+ping", "+role", "+set", "+get", "+del", "+pexpire"}
	for _, tc := range []struct {
		name  string
		rules []any
	}{
		{"neither", nil},
		{"no-evalsha", []any{"+eval"}},
		{"no-eval", []any{"+evalsha"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxTimeout(t, 20*time.Second)
			user := "noscripts-" + tc.name
			var clients []*redis.Client
			for _, s := range srvs {
				admin := s.NewClient()
				err := admin.Do(ctx, append(append([]any{"ACL", "SETUSER", user, "reset"}, base...), tc.rules...)...).Err()
				_ = admin.Close()
				if err != nil {
					t.Fatal(err)
				}
				c := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: user, Password: "pw", MaxRetries: -1})
				t.Cleanup(func() { c.Close() })
				clients = append(clients, c)
			}
			locker, err := New(clients, WithNodeTimeout(500*time.Millisecond), WithRetries(1), WithRetryDelay(time.Millisecond, 5*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer locker.Close()
			key := "acl-" + tc.name
			l, err := locker.Acquire(ctx, key, 30*time.Second)
			if err == nil {
				t.Fatalf("acquired %v as a user who cannot run the scripts that release it", l.LastRound().Summary())
			}
			if !errors.Is(err, ErrNotAcquired) || !strings.Contains(err.Error(), "NOPERM") || !strings.Contains(err.Error(), "cannot run Lua scripts") {
				t.Errorf("error %v; want ErrNotAcquired naming the master's NOPERM and what it means", err)
			}
			var re *RoundError
			if errors.As(err, &re) {
				out := 0
				for i, n := range re.Round.Nodes {
					var ns *noScriptsError
					switch {
					case errors.As(n.Err, &ns):
						out++
					case n.Outcome != OutcomePending: // the round is decided once a quorum can no longer be reached
						t.Errorf("master %d: %s (%v); want it counted out as unable to run scripts", i, n.Outcome, n.Err)
					}
				}
				if out < len(srvs)-re.Round.Quorum+1 {
					t.Errorf("%d masters counted out; the round cannot have been decided by them", out)
				}
			}
			for i, s := range srvs {
				admin := s.NewClient()
				n, err := admin.Exists(ctx, key).Result()
				_ = admin.Close()
				if err != nil || n != 0 {
					t.Errorf("master %d: %d keys %q left (%v)", i, n, key, err)
				}
			}
		})
	}
}
