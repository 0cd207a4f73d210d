package redlock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestAKeeperRidesOutWritePausesOnAQuorum is issue 33's item 3: an extension that fails because two of three
// masters pause writes (CLIENT PAUSE ... WRITE) for less than the validity left is tried again, and the lock is
// kept, never reported lost.
func TestAKeeperRidesOutWritePausesOnAQuorum(t *testing.T) {
	t.Parallel()
	cl, _ := realCluster(t, 3, redlocktest.ServerOptions{})
	c := cl.client(t, WithNodeTimeout(50*time.Millisecond), WithMaxExtensions(1000))
	const ttl = 3 * time.Second // extended with a second left: pauses of 500ms leave half of it
	l, err := c.Acquire(ctxTimeout(t, 10*time.Second), "paused-writes", ttl)
	if err != nil {
		t.Fatal(err)
	}
	k := l.AutoExtend()
	defer k.Stop()
	end := time.Now().Add(8 * time.Second)
	pauses := 0
	for time.Now().Before(end) { // a pause of 500ms every 1.2s: whenever the keeper extends, it meets one
		for _, r := range cl.raw[:2] {
			if err := r.Do(ctxTimeout(t, time.Second), "client", "pause", 500, "write").Err(); err != nil {
				t.Fatal(err)
			}
		}
		pauses++
		select {
		case err := <-k.Lost():
			t.Fatalf("the keeper reported a loss after %d write pauses of 500ms on 2 of 3 masters: %v", pauses, err)
		case <-time.After(1200 * time.Millisecond):
		}
	}
	if !l.Held() || l.Extensions() < 2 {
		t.Fatalf("after 8s of write pauses: held %v, %d extensions; want held, extended at least twice", l.Held(),
			l.Extensions())
	}
	// A master whose extension a pause held may miss one and let its key expire: a quorum is what keeps it.
	if got := count(cl.values(t, "paused-writes"), l.Token()); got < 2 {
		t.Fatalf("the kept lock is on %d of 3 masters, want a quorum", got)
	}
}

// TestAKeeperReportsExpiryWhenExtensionsFailTooLong: writes paused on two of three masters for longer than
// the validity left: the extensions fail without proof until the validity runs out, and the loss says so.
func TestAKeeperReportsExpiryWhenExtensionsFailTooLong(t *testing.T) {
	t.Parallel()
	cl, _ := realCluster(t, 3, redlocktest.ServerOptions{})
	c := cl.client(t, WithNodeTimeout(50*time.Millisecond), WithMaxExtensions(1000))
	const ttl = 1500 * time.Millisecond
	l, err := c.Acquire(ctxTimeout(t, 10*time.Second), "paused-long", ttl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cl.raw[:2] {
		if err := r.Do(ctxTimeout(t, time.Second), "client", "pause", 4000, "write").Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, r := range cl.raw[:2] {
			r.Do(context.Background(), "client", "unpause")
		}
	})
	k := l.AutoExtend()
	defer k.Stop()
	select {
	case err := <-k.Lost():
		var le *LostError
		if !errors.As(err, &le) || le.Cause != LossExpired || !errors.Is(err, ErrNotExtended) {
			t.Fatalf("loss %v (cause %q); want a LostError, expired, carrying the failed extension", err, CauseOf(err))
		}
		if l.Validity() > 0 {
			t.Fatalf("the loss was reported with %s of validity left", l.Validity())
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no loss reported 3s after the writes were paused for 4s on a lock of 1.5s")
	}
}

// TestAKeeperNoticesALossBetweenExtensions is issue 33's item 4: a lock of the default 10s TTL deleted,
// taken over or evicted on two of three masters is reported within about a second (its check interval), not
// at its next extension two thirds of the TTL later, and the loss says which it was.
func TestAKeeperNoticesALossBetweenExtensions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cause LossCause
		do    func(t *testing.T, cl *cluster, key string)
	}{
		{"deleted", LossDeleted, func(t *testing.T, cl *cluster, key string) {
			for _, r := range cl.raw[:2] {
				if err := r.Del(ctxTimeout(t, time.Second), key).Err(); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"taken over", LossTakenOver, func(t *testing.T, cl *cluster, key string) {
			for _, r := range cl.raw[:2] {
				if err := r.Set(ctxTimeout(t, time.Second), key, "someone-else", time.Minute).Err(); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"evicted", LossEvicted, evictFromTwo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, _ := realCluster(t, 3, redlocktest.ServerOptions{})
			c := cl.client(t)
			key := "incident-" + strings.ReplaceAll(tc.name, " ", "-")
			l, err := c.Acquire(ctxTimeout(t, 10*time.Second), key, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			k := l.AutoExtend()
			defer k.Stop()
			time.Sleep(100 * time.Millisecond) // the keeper has taken its eviction baseline
			tc.do(t, cl, key)
			done := time.Now()
			select {
			case err := <-k.Lost():
				took := time.Since(done)
				if got := CauseOf(err); got != tc.cause {
					t.Fatalf("loss %v: cause %q, want %q", err, got, tc.cause)
				}
				if !ProvesLost(err) || l.Held() {
					t.Fatalf("loss %v: proves lost %v, held %v", err, ProvesLost(err), l.Held())
				}
				t.Logf("%s: reported %s after the fault: %v", tc.name, took.Round(time.Millisecond), err)
			case <-time.After(4 * time.Second): // the next extension would come 6.7s after the acquisition
				t.Fatalf("no loss reported 4s after the lock was %s on 2 of 3 masters", tc.name)
			}
		})
	}
}

// evictFromTwo makes two masters evict the lock's key: under volatile-lru with a memory limit just above
// what they use, keys without a TTL fill them and the only key with one, the lock, is evicted first.
func evictFromTwo(t *testing.T, cl *cluster, key string) {
	t.Helper()
	for _, r := range cl.raw[:2] {
		ctx := ctxTimeout(t, 10*time.Second)
		if err := r.ConfigSet(ctx, "maxmemory-policy", "volatile-lru").Err(); err != nil {
			t.Fatal(err)
		}
		used, err := r.Info(ctx, "memory").Result()
		if err != nil {
			t.Fatal(err)
		}
		limit := infoCounter(used, "used_memory") + 256<<10
		if err := r.ConfigSet(ctx, "maxmemory", fmt.Sprint(limit)).Err(); err != nil {
			t.Fatal(err)
		}
		value := strings.Repeat("x", 4096)
		for i := 0; ; i++ {
			if n, err := r.Exists(ctx, key).Result(); err != nil {
				t.Fatal(err)
			} else if n == 0 {
				break
			}
			if i > 10000 {
				t.Fatalf("the lock key was not evicted after %d cache writes", i)
			}
			// The write that evicts the lock may still be refused (OOM): evicting it freed too little.
			if err := r.Set(ctx, fmt.Sprintf("cache:%d", i), value, 0).Err(); err != nil && !strings.HasPrefix(err.Error(), "OOM") {
				t.Fatalf("cache write %d: %v", i, err)
			}
		}
	}
}

// TestAMasterThatCannotRunScriptsGrantsNothing is issue 33's item 7: a master whose EVAL and EVALSHA are
// renamed away would grant the SET and then never release nor extend the key. It is counted out of grants,
// and the round says why.
func TestAMasterThatCannotRunScriptsGrantsNothing(t *testing.T) {
	t.Parallel()
	for _, renamed := range [][]string{{"EVAL"}, {"EVAL", "EVALSHA"}} {
		t.Run(strings.Join(renamed, "+"), func(t *testing.T) {
			plain := redlocktest.RealServers(t, 2, redlocktest.ServerOptions{})
			var args []string
			for _, cmd := range renamed {
				args = append(args, "--rename-command", cmd, "")
			}
			scriptless := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Args: args})[0]
			ms := []redlocktest.Master{plain[0], plain[1], scriptless}
			cl := &cluster{masters: ms, raw: redlocktest.Clients(t, ms)}
			c := cl.client(t)
			ctx := ctxTimeout(t, 10*time.Second)
			// A first lock sets up a connection to every master; the scriptless one is refused all the same.
			warm, err := c.Acquire(ctx, "scriptless-first", 30*time.Second)
			if err != nil {
				t.Fatalf("acquire on 2 good masters of 3: %v", err)
			}
			if vals := cl.values(t, "scriptless-first"); vals[2] != "" {
				t.Errorf("the scriptless master took the lock %q: it could never be released", vals[2])
			}
			if err := warm.Release(ctx); err != nil {
				t.Fatalf("release: %v", err)
			}
			// The round is decided at quorum: on a loaded machine the scriptless master's answer may come after
			// it (pending), which says nothing about the answer. The acquisition is then tried again.
			var l *Lock
			for attempt := 1; ; attempt++ {
				if l, err = c.Acquire(ctx, "scriptless", 30*time.Second); err != nil {
					t.Fatalf("acquire on 2 good masters of 3: %v", err)
				}
				if attempt == 10 || l.LastRound().Nodes[2].Outcome != OutcomePending {
					break
				}
				if err := l.Release(ctx); err != nil {
					t.Fatalf("release: %v", err)
				}
			}
			r := l.LastRound()
			if got := r.Nodes[2]; got.Outcome != OutcomeError || got.Err == nil || !strings.Contains(got.Err.Error(), "Lua scripts") {
				t.Errorf("the scriptless master's outcome: %s (%v); want an error that says it cannot run scripts", got.Outcome, got.Err)
			}
			if err := l.Release(ctx); err != nil {
				t.Fatalf("release: %v", err)
			}
			if vals := cl.values(t, "scriptless"); vals[2] != "" {
				t.Errorf("after the release the scriptless master still holds the lock %q: it can never be released", vals[2])
			}
		})
	}
}
