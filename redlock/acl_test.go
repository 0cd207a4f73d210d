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
