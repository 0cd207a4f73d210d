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

// injected is a reply a ReplyProxy gives instead of the master's, and how a round must name it.
type injected struct {
	name  string
	fault func(script bool) redlocktest.Fault
	names string // a master that got it has an error containing this ("" any error; "timeout": no answer)
}

func errorReply(msg string) func(bool) redlocktest.Fault {
	return func(bool) redlocktest.Fault { return redlocktest.ErrorReply(msg) }
}

func always(f redlocktest.Fault) func(bool) redlocktest.Fault {
	return func(bool) redlocktest.Fault { return f }
}

// injectedReplies is every reply of issue 17's list: error replies, a reply of the wrong type, a truncated
// reply, a connection closed before or after the reply, and no reply at all.
var injectedReplies = []injected{
	{"READONLY", errorReply("READONLY You can't write against a read only replica."), "READONLY"},
	{"OOM", errorReply("OOM command not allowed when used memory > 'maxmemory'."), "OOM"},
	{"LOADING", errorReply("LOADING Redis is loading the dataset in memory"), "LOADING"},
	{"BUSY", errorReply("BUSY Redis is busy running a script."), "BUSY"},
	{"MASTERDOWN", errorReply("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), "MASTERDOWN"},
	{"NOPERM", errorReply("NOPERM User locker has no permissions to run the 'set' command"), "NOPERM"},
	{"MOVED", errorReply("MOVED 3999 127.0.0.1:6381"), "MOVED"},
	{"ASK", errorReply("ASK 3999 127.0.0.1:6381"), "ASK"},
	{"CLUSTERDOWN", errorReply("CLUSTERDOWN The cluster is down"), "CLUSTERDOWN"},
	{"TRYAGAIN", errorReply("TRYAGAIN Multiple keys request during rehashing of slot"), "TRYAGAIN"},
	{"WRONGTYPE", errorReply("WRONGTYPE Operation against a key holding the wrong kind of value"), "WRONGTYPE"},
	{"NOSCRIPT", errorReply("NOSCRIPT No matching script. Please use EVAL."), "NOSCRIPT"},
	{"ERR unknown", errorReply("ERR unknown command 'set'"), "ERR unknown"},
	// SET's success is the status OK, a script's the integer 1: each gets the other's.
	{"wrong type", func(script bool) redlocktest.Fault {
		if script {
			return redlocktest.RawReply("+OK\r\n")
		}
		return redlocktest.RawReply(":1\r\n")
	}, "unexpected reply"},
	{"nil", always(redlocktest.RawReply("_\r\n")), ""},
	{"truncated", always(redlocktest.TruncatedReply("+O")), ""},
	{"closed before the reply", always(redlocktest.CloseBeforeReply), ""},
	{"closed after the reply", always(redlocktest.CloseAfterReply), ""},
	{"no reply", always(redlocktest.NoReply), "timeout"},
}

// replyOp is one operation of the client on resource, run with the injected reply on enough masters that
// counting it would make a quorum. It returns the error and the round that decided.
type replyOp struct {
	name   string
	script bool     // its commands are scripts (EVALSHA, and EVAL after NOSCRIPT); otherwise SET
	opts   []Option // client options
	run    func(t *testing.T, c *Client, resource string, arm func()) (Round, error)
}

// The locks' TTLs: room for a loaded machine, and a shorter one so that a keeper's extension comes soon.
const replyTTL, keeperTTL = 2 * time.Second, time.Second

var replyOps = []replyOp{
	{name: "acquire with retries", run: acquireOp},
	{name: "fenced acquire", script: true, opts: []Option{WithFencing()}, run: acquireOp},
	{name: "extend", script: true, run: func(t *testing.T, c *Client, resource string, arm func()) (Round, error) {
		l := mustAcquire(t, c, resource)
		arm()
		err := l.Extend(ctxTimeout(t, 20*time.Second), replyTTL)
		return l.LastRound(), err
	}},
	{name: "release", script: true, run: func(t *testing.T, c *Client, resource string, arm func()) (Round, error) {
		l := mustAcquire(t, c, resource)
		arm()
		err := l.Release(ctxTimeout(t, 20*time.Second))
		if errors.Is(err, ErrIncomplete) {
			return l.LastRound(), err
		}
		return l.LastRound(), fmt.Errorf("release returned %v, want ErrIncomplete: %w", err, errNotRefused)
	}},
	{name: "auto-extend", script: true, run: autoExtendOp},
}

// autoExtendOp has a keeper extend a lock while the fault is armed, and returns what the keeper reported
// with the extension round that decided it. A keeper that a starved machine wakes too late loses the lock
// before it asks the masters anything, which says nothing about the reply: that is tried again.
func autoExtendOp(t *testing.T, c *Client, resource string, arm func()) (Round, error) {
	for range 3 {
		l, err := c.Acquire(ctxTimeout(t, 20*time.Second), resource, keeperTTL) // the keeper extends at a third left
		if err != nil {
			t.Fatalf("acquiring before the fault: %v", err)
		}
		k := l.AutoExtend()
		arm()
		var lost error
		select {
		case lost = <-k.Lost():
		case <-time.After(10 * keeperTTL):
		}
		k.Stop()
		switch r := l.LastRound(); {
		case lost == nil:
			return r, errNotRefused
		case r.Op == OpExtend:
			return r, lost
		}
		t.Logf("the keeper lost the lock before it could extend it (%v): again", lost)
		_ = l.Release(ctxTimeout(t, 20*time.Second))
	}
	t.Fatal("the keeper never got to extend the lock before it lapsed: the machine is too starved for this test")
	return Round{}, nil
}

// acquireOp acquires with retries once the fault is armed; it returns the last round.
func acquireOp(t *testing.T, c *Client, resource string, arm func()) (Round, error) {
	arm()
	var last Round
	l, err := c.AcquireWithProgress(ctxTimeout(t, 20*time.Second), resource, replyTTL, func(_ int, r Round) { last = r })
	if err == nil {
		return l.LastRound(), nil
	}
	return last, err
}

// errNotRefused marks an operation that succeeded although only a minority of masters could grant it.
var errNotRefused = errors.New("not refused")

func mustAcquire(t *testing.T, c *Client, resource string) *Lock {
	t.Helper()
	l, err := c.Acquire(ctxTimeout(t, 20*time.Second), resource, replyTTL)
	if err != nil {
		t.Fatalf("acquiring before the fault: %v", err)
	}
	return l
}

// TestNoReplyButTheSuccessValueIsAGrant puts a ReplyProxy in front of each of 3 (or 5) real masters and,
// for each injected reply and each operation, has it answer the operation's commands on 2 (or 3) of them:
// counting that reply would make a quorum, so the operation must fail, no round may count it, and the
// round names it. The cases run in parallel over the same masters, each through its own proxies and on its
// own resource.
func TestNoReplyButTheSuccessValueIsAGrant(t *testing.T) {
	t.Parallel()
	masters := redlocktest.Masters(t, 5)
	for _, n := range redlocktest.Soak([]int{3}, []int{3, 5}) {
		faulted := n - (n/2 + 1) + 1 // with the rest, one short of a quorum
		for _, op := range replyOps {
			for _, rep := range injectedReplies {
				name := fmt.Sprintf("%d masters/%s/%s", n, op.name, rep.name)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					// A starved machine (under -race, beside other tests) may answer a faulted master after the
					// node timeout, which says nothing about the reply: the case is tried again, on new
					// connections and a new resource.
					var err error
					var r Round
					for attempt := 1; ; attempt++ {
						r, err = runReplyCase(t, masters[:n], faulted, op, rep, fmt.Sprintf("%s#%d", name, attempt))
						if attempt == 3 || !timedOutInstead(r, faulted, rep) {
							break
						}
						t.Logf("attempt %d: a faulted master's reply came after the node timeout: again", attempt)
					}
					if err == nil || errors.Is(err, errNotRefused) {
						t.Fatalf("with %d of %d masters answering %s, %s was granted (%v): %s", faulted, n, rep.name,
							op.name, err, r.Summary())
					}
					if r.OK > n-faulted {
						t.Errorf("a round counted %d grants with %d masters able to grant: %s", r.OK, n-faulted, r.Summary())
					}
					checkNamed(t, r, faulted, rep, strings.Contains(op.name, "acquire"))
				})
			}
		}
	}
}

// runReplyCase runs op on resource through new reply proxies in front of masters, with rep armed on the first
// faulted of them, and returns what op returned.
func runReplyCase(t *testing.T, masters []redlocktest.Master, faulted int, op replyOp, rep injected,
	resource string) (Round, error) {
	t.Helper()
	proxies, addrs := make([]*redlocktest.ReplyProxy, len(masters)), make([]string, len(masters))
	for i, m := range masters {
		proxies[i], addrs[i] = redlocktest.WithReplyProxy(t, m)
	}
	c := proxiedClient(t, addrs, append([]Option{WithRetries(2), WithNodeTimeout(300 * time.Millisecond),
		WithRetryDelay(5*time.Millisecond, 10*time.Millisecond)}, op.opts...)...)
	commands := []string{"SET"}
	if op.script {
		commands = []string{"EVALSHA", "EVAL"}
	}
	arm := func() {
		for _, p := range proxies[:faulted] {
			for _, cmd := range commands {
				p.Set(cmd, rep.fault(op.script))
			}
		}
	}
	return op.run(t, c, resource, arm)
}

// timedOutInstead reports whether a faulted master of r that should have answered rep timed out.
func timedOutInstead(r Round, faulted int, rep injected) bool {
	if rep.names == "timeout" || len(r.Nodes) < faulted {
		return false
	}
	for _, nd := range r.Nodes[:faulted] {
		if nd.Outcome == OutcomeTimeout || nd.Err != nil && isTimeout(nd.Err) {
			return true
		}
	}
	return false
}

// clientsOf returns go-redis clients for addrs that honour deadlines and never retry, closed at cleanup.
func clientsOf(t *testing.T, addrs []string) []*redis.Client {
	t.Helper()
	clients := make([]*redis.Client, len(addrs))
	for i, a := range addrs {
		clients[i] = redis.NewClient(&redis.Options{Addr: a, ContextTimeoutEnabled: true, DialTimeout: time.Second,
			ReadTimeout: 2 * time.Second, MaxRetries: -1, DialerRetries: 1})
		t.Cleanup(func() { clients[i].Close() })
	}
	return clients
}

// proxiedClient is a Redlock client over go-redis clients for addrs.
func proxiedClient(t *testing.T, addrs []string, opts ...Option) *Client {
	t.Helper()
	c, err := New(clientsOf(t, addrs), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// checkNamed fails t unless every faulted master of r has an outcome other than OK, and those that answered
// carry an error naming what they said.
func checkNamed(t *testing.T, r Round, faulted int, rep injected, acquire bool) {
	t.Helper()
	if len(r.Nodes) == 0 {
		t.Fatal("no round to check")
	}
	for i, nd := range r.Nodes[:faulted] {
		switch {
		case nd.Outcome == OutcomeOK:
			t.Errorf("master %d answered %s and was counted as a grant: %s", i+1, rep.name, r.Summary())
		case nd.Outcome == OutcomePending:
		case rep.name == "nil" && acquire && nd.Outcome == OutcomeHeldByOther: // SET NX's own "the key exists"
		case rep.names == "timeout":
			if nd.Outcome != OutcomeTimeout {
				t.Errorf("master %d gave no reply: %s (%v), want timeout", i+1, nd.Outcome, nd.Err)
			}
		case nd.Err == nil:
			t.Errorf("master %d answered %s: outcome %s carries no error naming it", i+1, rep.name, nd.Outcome)
		case !strings.Contains(nd.Err.Error(), rep.names):
			t.Errorf("master %d answered %s: error %q does not name it (%q)", i+1, rep.name, nd.Err, rep.names)
		}
	}
}
