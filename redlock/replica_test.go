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

// realCluster is a cluster of real redis-server processes, for what only a real server does.
func realCluster(t *testing.T, n int, opts redlocktest.ServerOptions) (*cluster, []*redlocktest.Server) {
	t.Helper()
	servers := redlocktest.RealServers(t, n, opts)
	ms := make([]redlocktest.Master, n)
	for i, s := range servers {
		ms[i] = s
	}
	return &cluster{masters: ms, raw: redlocktest.Clients(t, ms)}, servers
}

// makeReplicas turns servers[from:] into replicas of servers[0].
func makeReplicas(t *testing.T, servers []*redlocktest.Server, from int) {
	t.Helper()
	for _, s := range servers[from:] {
		if err := s.ReplicaOf(ctxTimeout(t, 5*time.Second), servers[0].Addr()); err != nil {
			t.Fatal(err)
		}
	}
}

// outcomesOf lists each master's outcome in r.
func outcomesOf(r Round) []Outcome {
	out := make([]Outcome, len(r.Nodes))
	for i, n := range r.Nodes {
		out[i] = n.Outcome
	}
	return out
}

// TestReplicasNeverCountTowardsAQuorum is the observation of issue 17: with two of three servers read-only
// replicas of the first, the client used to acquire in its second round, as go-redis dropped the connection
// after READONLY and the next command on it came back with neither a value nor an error.
func TestReplicasNeverCountTowardsAQuorum(t *testing.T) {
	t.Parallel()
	cl, servers := realCluster(t, 3, redlocktest.ServerOptions{})
	makeReplicas(t, servers, 1)
	ctx := ctxTimeout(t, 30*time.Second)
	for holder := range 2 { // a second client, as a second `run` a second later, must be refused as well
		c := cl.client(t, WithRetries(4), WithRetryDelay(5*time.Millisecond, 10*time.Millisecond))
		var rounds []Round
		l, err := c.AcquireWithProgress(ctx, "R", 20*time.Second, func(_ int, r Round) { rounds = append(rounds, r) })
		if err == nil {
			t.Fatalf("client %d acquired R with 1 master of 3: %s; values on the servers %q", holder+1,
				l.LastRound().Summary(), cl.values(t, "R"))
		}
		if !errors.Is(err, ErrNotAcquired) || len(rounds) != 5 {
			t.Fatalf("client %d: %v after %d rounds; want ErrNotAcquired after 5", holder+1, err, len(rounds))
		}
		for k, r := range rounds {
			if r.OK > 1 {
				t.Errorf("client %d round %d counted %d grants with one master: %s", holder+1, k+1, r.OK, r.Summary())
			}
			for i := 1; i < 3; i++ {
				n := r.Nodes[i]
				if n.Outcome == OutcomePending {
					continue // the round was decided before this replica answered
				}
				if n.Outcome != OutcomeReplica || n.Err == nil || !strings.Contains(n.Err.Error(), "READONLY") {
					t.Errorf("client %d round %d: replica %d: %s (%v); want replica naming READONLY", holder+1, k+1,
						i+1, n.Outcome, n.Err)
				}
			}
		}
	}
	if got := cl.values(t, "R"); got[1] != "" && got[1] != got[0] || got[2] != "" && got[2] != got[0] {
		t.Errorf("a replica holds a token of its own: %q", got)
	}
}

// TestAQuorumOfMastersBesideReplicasAcquiresAndNamesThem: five servers of which two are replicas leave three
// masters, a quorum: the lock is held on exactly those, and the replicas are named in the round.
func TestAQuorumOfMastersBesideReplicasAcquiresAndNamesThem(t *testing.T) {
	t.Parallel()
	cl, servers := realCluster(t, 5, redlocktest.ServerOptions{})
	// servers 3 and 4 (0-based) become replicas of server 0
	for _, s := range servers[3:] {
		if err := s.ReplicaOf(ctxTimeout(t, 5*time.Second), servers[0].Addr()); err != nil {
			t.Fatal(err)
		}
	}
	c := cl.client(t, WithRetries(0))
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.Acquire(ctx, "R", 10*time.Second)
	if err != nil {
		t.Fatalf("three masters of five did not acquire: %v", err)
	}
	r := l.LastRound()
	if r.OK != 3 {
		t.Errorf("acquired with %d grants, want the 3 masters': %s", r.OK, r.Summary())
	}
	for i := 3; i < 5; i++ {
		if o := r.Nodes[i].Outcome; o != OutcomeReplica && o != OutcomePending {
			t.Errorf("replica %d: %s, want replica (or pending: decided before it answered)", i+1, o)
		}
	}
	// The replicas hold their primary's copy of our token and refuse to delete it: the release is
	// unconfirmed there, and confirmed on the three masters.
	_ = l.Release(ctx)
	for i, n := range l.LastRound().Nodes {
		if want := map[bool]Outcome{true: OutcomeOK, false: OutcomeReplica}[i < 3]; n.Outcome != want && !(i >= 3 && n.Outcome == OutcomeGone) {
			t.Errorf("release on server %d: %s, want %s", i+1, n.Outcome, want)
		}
	}
}

// TestWritableReplicaIsNamedAndNotCounted: a replica with replica-read-only no accepts SET, and the key it
// took is overwritten at its primary's next synchronisation. It said role:slave when the connection was set
// up, so its OK is not a grant, and the key it took is released.
func TestWritableReplicaIsNamedAndNotCounted(t *testing.T) {
	t.Parallel()
	cl, servers := realCluster(t, 3, redlocktest.ServerOptions{Args: []string{"--replica-read-only", "no"}})
	makeReplicas(t, servers, 1)
	c := cl.client(t, WithRetries(2), WithRetryDelay(5*time.Millisecond, 10*time.Millisecond))
	ctx := ctxTimeout(t, 10*time.Second)
	var rounds []Round
	l, err := c.AcquireWithProgress(ctx, "W", 10*time.Second, func(_ int, r Round) { rounds = append(rounds, r) })
	if err == nil {
		t.Fatalf("acquired on one master and two writable replicas: %s", l.LastRound().Summary())
	}
	named := 0
	for _, r := range rounds {
		for i := 1; i < 3; i++ {
			switch r.Nodes[i].Outcome {
			case OutcomeReplica:
				named++
			case OutcomeOK:
				t.Errorf("writable replica %d counted as a grant: %s", i+1, r.Summary())
			}
		}
	}
	if named == 0 {
		t.Errorf("no round named a writable replica: %v", rounds)
	}
	// The token a writable replica took is ours: it is released, not left to confuse a monitor.
	for i := 1; i < 3; i++ {
		deadline := time.Now().Add(5 * time.Second)
		for cl.values(t, "W")[i] != "" && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if v := cl.values(t, "W")[i]; v != "" {
			t.Errorf("writable replica %d still holds our token %q after the failed acquisition", i+1, v)
		}
	}
}

// TestAMasterTurnedReplicaAndBackIsFollowed: REPLICAOF at run time, while the client holds connections, is
// seen at the next write; REPLICAOF NO ONE makes the server count again once the client has a new connection.
func TestAMasterTurnedReplicaAndBackIsFollowed(t *testing.T) {
	t.Parallel()
	cl, servers := realCluster(t, 3, redlocktest.ServerOptions{})
	c := cl.client(t, WithRetries(0))
	ctx := ctxTimeout(t, 20*time.Second)
	// acquire returns the acquire round, or when it succeeded the release round, which waits for every
	// master: its OK counts the masters that took the key.
	acquire := func(resource string) Round {
		t.Helper()
		l, err := c.Acquire(ctx, resource, 10*time.Second)
		if err != nil {
			var re *RoundError
			if errors.As(err, &re) {
				return re.Round
			}
			t.Fatal(err)
		}
		_ = l.Release(ctx)
		return l.LastRound()
	}
	acquire("warm") // every master has a connection now
	makeReplicas(t, servers, 1)
	r := acquire("as-replicas")
	if r.OK > 1 {
		t.Fatalf("after REPLICAOF, %d grants counted: %s", r.OK, r.Summary())
	}
	for i := 1; i < 3; i++ {
		if servers[i].ReplicaOf(ctx, "") != nil {
			t.Fatal("REPLICAOF NO ONE failed")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r = acquire("masters-again")
		if r.OK == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r.OK != 3 {
		t.Errorf("after REPLICAOF NO ONE the servers were not counted again: %s", r.Summary())
	}
}

// TestAKeyOfAnotherTypeConfirmsOurTokenIsNotThere: another client's lock of another type (a sorted set as
// Symfony Lock keeps, a hash as Redisson keeps, a list) under our resource's name is that client's, and
// confirms that our token is not there: release and extension name it "held by another token" instead of an
// unconfirmed error, and Release returns nil.
func TestAKeyOfAnotherTypeConfirmsOurTokenIsNotThere(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	ctx := ctxTimeout(t, 20*time.Second)
	c := cl.client(t, WithRetries(0))
	for _, kind := range []struct {
		name string
		put  func(r *redis.Client, key string) error
	}{
		{"zset", func(r *redis.Client, key string) error {
			return r.ZAdd(ctx, key, redis.Z{Score: 1, Member: "symfony-token"}).Err()
		}},
		{"hash", func(r *redis.Client, key string) error { return r.HSet(ctx, key, "uuid:1", 1).Err() }},
		{"list", func(r *redis.Client, key string) error { return r.RPush(ctx, key, "x").Err() }},
	} {
		t.Run(kind.name, func(t *testing.T) {
			key := "foreign-" + kind.name
			if err := kind.put(cl.raw[0], key); err != nil {
				t.Fatal(err)
			}
			l, err := c.Acquire(ctx, key, 5*time.Second)
			if err != nil {
				t.Fatalf("four masters of five free: %v", err)
			}
			if o := l.LastRound().Nodes[0].Outcome; o != OutcomeHeldByOther && o != OutcomePending {
				t.Errorf("acquire on the %s: %s, want held by another token", kind.name, o)
			}
			if err := l.Extend(ctx, 5*time.Second); err != nil {
				t.Fatalf("extend: %v", err)
			}
			if n := l.LastRound().Nodes[0]; n.Outcome != OutcomeHeldByOther && n.Outcome != OutcomePending {
				t.Errorf("extend on the %s: %s (%v), want held by another token", kind.name, n.Outcome, n.Err)
			}
			if err := l.Release(ctx); err != nil {
				t.Errorf("release with another client's %s on one master: %v; want nil", kind.name, err)
			}
			if n := l.LastRound().Nodes[0]; n.Outcome != OutcomeHeldByOther {
				t.Errorf("release on the %s: %s (%v), want held by another token", kind.name, n.Outcome, n.Err)
			}
			if r, err := c.ReleaseToken(ctx, key, "someone"); !errors.Is(err, ErrNotHeld) || r.Nodes[0].Outcome != OutcomeHeldByOther {
				t.Errorf("ReleaseToken: %v, outcome %s; want ErrNotHeld and held by another token", err, r.Nodes[0].Outcome)
			}
			if n, err := cl.raw[0].Exists(ctx, key).Result(); err != nil || n != 1 {
				t.Errorf("the other client's %s is gone (%v): it must never be touched", kind.name, err)
			}
		})
	}
	t.Run("string under a Redisson release", func(t *testing.T) {
		if err := cl.raw[0].Set(ctx, "redisson-string", "tok", 0).Err(); err != nil {
			t.Fatal(err)
		}
		r, err := c.ReleaseRedisson(ctx, "redisson-string", []string{"uuid:1"}, "")
		if !errors.Is(err, ErrNotHeld) || r.Nodes[0].Outcome != OutcomeHeldByOther {
			t.Errorf("ReleaseRedisson on a string: %v, outcome %s; want ErrNotHeld and held by another token", err,
				r.Nodes[0].Outcome)
		}
	})
}

// TestAFencedAcquireGrantsOnlyOnACounter: the fenced acquire's success value is a positive counter; its
// round was classified as a plain SET's, which took any reply without an error for a grant.
func TestAFencedAcquireGrantsOnlyOnACounter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		val  any
		want Outcome
	}{
		{int64(7), OutcomeOK},
		{int64(0), OutcomeError},
		{int64(-1), OutcomeError},
		{"OK", OutcomeError},
		{nil, OutcomeError},
		{[]any{int64(1)}, OutcomeError},
	} {
		if got, _ := classify(reply{val: tc.val}, replyFencedSet, ""); got != tc.want {
			t.Errorf("fenced acquire reply %#v: %s, want %s", tc.val, got, tc.want)
		}
	}
	if got, _ := classify(reply{err: redis.Nil}, replyFencedSet, ""); got != OutcomeHeldByOther {
		t.Errorf("fenced acquire nil reply: %s, want held by another token", got)
	}
	// Through a real round: a counter holding a string makes the script fail, which is no grant.
	cl := newCluster(t, 3)
	ctx := ctxTimeout(t, 10*time.Second)
	for _, r := range cl.raw[:2] {
		if err := r.Set(ctx, FenceKey("F", DefaultFenceSuffix), "not-a-number", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c := cl.client(t, WithFencing(), WithRetries(0))
	if l, err := c.Acquire(ctx, "F", 5*time.Second); err == nil {
		t.Fatalf("fenced acquire granted with two counters broken: %s", l.LastRound().Summary())
	}
}

// TestGrantsAreLiteral: every reply that is not the command's success value is refused, and the outcome
// carries what the master said.
func TestGrantsAreLiteral(t *testing.T) {
	t.Parallel()
	readonly := replyError("READONLY You can't write against a read only replica.")
	for _, tc := range []struct {
		name string
		rep  reply
		kind replyKind
		want Outcome
	}{
		{"SET OK", reply{val: "OK"}, replySet, OutcomeOK},
		{"SET nil value, nil error", reply{}, replySet, OutcomeError},
		{"SET integer", reply{val: int64(1)}, replySet, OutcomeError},
		{"SET other status", reply{val: "QUEUED"}, replySet, OutcomeError},
		{"SET READONLY", reply{err: readonly}, replySet, OutcomeReplica},
		{"SET OK from a replica", reply{val: "OK", replica: true}, replySet, OutcomeReplica},
		{"SET no reply", reply{err: &noReplyError{}, sent: true}, replySet, OutcomeError},
		{"SET timeout", reply{err: context.DeadlineExceeded}, replySet, OutcomeTimeout},
		{"script 1", reply{val: int64(1)}, replyScript, OutcomeOK},
		{"script 1 from a replica", reply{val: int64(1), replica: true}, replyScript, OutcomeReplica},
		{"script 0 from a replica", reply{val: int64(0), replica: true}, replyScript, OutcomeGone},
		{"script OK", reply{val: "OK"}, replyScript, OutcomeError},
		{"script nil", reply{err: redis.Nil}, replyScript, OutcomeError},
		{"script 2", reply{val: int64(2)}, replyScript, OutcomeError},
		{"GET our token", reply{val: "tok"}, replyGet, OutcomeOK},
		{"GET another token", reply{val: "other"}, replyGet, OutcomeHeldByOther},
		{"GET our token and more", reply{val: "tok-and-more"}, replyGet, OutcomeHeldByOther},
		{"GET our token from a replica", reply{val: "tok", replica: true}, replyGet, OutcomeReplica},
		{"GET nil", reply{err: redis.Nil}, replyGet, OutcomeGone},
		{"GET nil from a replica", reply{err: redis.Nil, replica: true}, replyGet, OutcomeReplica},
		{"GET WRONGTYPE", reply{err: replyError("WRONGTYPE Operation against a key holding the wrong kind of value")}, replyGet, OutcomeHeldByOther},
		{"GET NOPERM", reply{err: replyError("NOPERM this user has no permissions")}, replyGet, OutcomeError},
		{"GET integer", reply{val: int64(1)}, replyGet, OutcomeError},
		{"GET nil value, nil error", reply{}, replyGet, OutcomeError},
		{"GET timeout", reply{err: context.DeadlineExceeded}, replyGet, OutcomeTimeout},
		{"GET no reply", reply{err: &noReplyError{}, sent: true}, replyGet, OutcomeError},
	} {
		got, err := classify(tc.rep, tc.kind, "tok")
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if got != OutcomeOK && got != OutcomeGone && got != OutcomeHeldByOther && err == nil {
			t.Errorf("%s: outcome %s carries no error to name it", tc.name, got)
		}
	}
}

// replyError is an error reply as go-redis reports one.
type replyError string

func (e replyError) Error() string { return string(e) }

func (replyError) RedisError() {}
