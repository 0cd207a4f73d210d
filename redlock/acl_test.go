package redlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestScriptRefusalNamesTheCommand takes, in turn, each command of the release and extend scripts from a
// real ACL user: the refusal, which Redis reports by the script's line only, names the command, and a refused
// GET is not taken for another client's token.
func TestScriptRefusalNamesTheCommand(t *testing.T) {
	t.Parallel()
	srv := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	admin := srv.NewClient()
	defer admin.Close()
	ctx := context.Background()
	writer := []any{"on", ">pw", "~*", "-@all", "+ping", "+role", "+set", "+get", "+del", "+pexpire", "+evalsha", "+eval"}
	for _, tc := range []struct {
		refuse, op, want string
	}{
		{"del", "release", "DEL denied by the master's ACL (in the release script): ERR The user executing the script"},
		{"pexpire", "extend", "PEXPIRE denied by the master's ACL (in the extend script): ERR The user executing the script"},
		{"get", "release", "GET denied by the master's ACL (in the release script): ERR The user executing the script"},
		{"get", "extend", "GET denied by the master's ACL (in the extend script): ERR The user executing the script"},
	} {
		t.Run(tc.refuse+"/"+tc.op, func(t *testing.T) {
			user := "without-" + tc.refuse
			args := append([]any{"ACL", "SETUSER", user, "reset"}, writer...)
			if err := admin.Do(ctx, append(args, "-"+tc.refuse)...).Err(); err != nil {
				t.Fatal(err)
			}
			c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: user, Password: "pw", ContextTimeoutEnabled: true, MaxRetries: -1})
			defer c.Close()
			locker, err := New([]*redis.Client{c}, WithRetries(0), WithNodeTimeout(500*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer locker.Close()
			held, err := locker.Acquire(ctx, "orders:"+tc.refuse+":"+tc.op, time.Minute) // SET alone: allowed
			if err != nil {
				t.Fatal(err)
			}
			if tc.op == "release" {
				err = held.Release(ctx)
			} else {
				err = held.Extend(ctx, time.Minute)
			}
			var re *RoundError
			if !errors.As(err, &re) {
				t.Fatalf("%s: error %v; want a RoundError", tc.op, err)
			}
			round := re.Round
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: error %v; want one saying %q", tc.op, err, tc.want)
			}
			var reply redis.Error
			if n := round.Nodes[0]; n.Outcome != OutcomeError || !errors.As(n.Err, &reply) {
				t.Errorf("%s: outcome %s (%v); want an error that is still the master's reply", tc.op, n.Outcome, n.Err)
			}
			if v, _ := admin.Get(ctx, held.Resource()).Result(); v != held.Token() {
				t.Errorf("%s: the key holds %q, want the token left as it was", tc.op, v)
			}
		})
	}
}

// TestTheREADMEsWriterACLsAreEnough runs the client as users allowed exactly what the README says run needs,
// plus what it says --fencing and force-deleting a Redisson lock add.
func TestTheREADMEsWriterACLsAreEnough(t *testing.T) {
	t.Parallel()
	srv := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	admin := srv.NewClient()
	defer admin.Close()
	ctx := context.Background()
	run := []any{"on", ">pw", "~*", "resetchannels", "-@all", "+ping", "+role", "+set", "+get", "+del", "+pexpire", "+evalsha", "+eval"}
	client := func(user string, opts ...Option) *Client {
		t.Helper()
		c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: user, Password: "pw", ContextTimeoutEnabled: true, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		l, err := New([]*redis.Client{c}, append([]Option{WithRetries(0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Close)
		return l
	}
	for _, tc := range []struct {
		name  string
		rules []any
		opts  []Option
	}{
		{"run", nil, nil},
		{"run --fencing", []any{"+exists", "+incr"}, []Option{WithFencing()}},
	} {
		user := strings.ReplaceAll(tc.name, " ", "")
		if err := admin.Do(ctx, append(append([]any{"ACL", "SETUSER", user, "reset"}, run...), tc.rules...)...).Err(); err != nil {
			t.Fatal(err)
		}
		l := client(user, tc.opts...)
		lock, err := l.Acquire(ctx, "job:"+user, time.Minute)
		if err != nil {
			t.Errorf("%s: acquire: %v", tc.name, err)
			continue
		}
		if err := lock.Extend(ctx, time.Minute); err != nil {
			t.Errorf("%s: extend: %v", tc.name, err)
		}
		if err := lock.Release(ctx); err != nil {
			t.Errorf("%s: release: %v", tc.name, err)
		}
	}

	// D on a Redisson lock: the hash is deleted and Redisson's waiters are told on its channel.
	if err := admin.Do(ctx, append(append([]any{"ACL", "SETUSER", "deleter", "reset"}, run...),
		"+type", "+hexists", "+publish", "&redisson_lock__channel:*", "&redisson_rwlock:*")...).Err(); err != nil {
		t.Fatal(err)
	}
	holder := "6f0c5e52-1c5a-4f7e-9d0b-0a1b2c3d4e5f:1"
	if err := admin.HSet(ctx, "reports", holder, 1).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := client("deleter").ReleaseRedisson(ctx, "reports", []string{holder}, ""); err != nil {
		t.Errorf("force-deleting a Redisson lock: %v", err)
	}
	if n, _ := admin.Exists(ctx, "reports").Result(); n != 0 {
		t.Errorf("the Redisson lock is still there")
	}
}
