package redlock

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestAWaiterWakesOnTheRelease is issue 43's item 8: a waiter for a lock held with a long TTL backs off (it
// reads the TTL left, and sleeps seconds between rounds once a master confirmed its subscription to the
// lock's release channel) and still acquires as soon as the holder releases, woken by the notice the
// releasing client publishes, even when it closes right after the release. After eagerRounds rounds at the
// plain retry delay, and one backing off, its next sleep lasts at least watchCap/2 (2.5s) without the notice;
// it acquires well within that after the release.
func TestAWaiterWakesOnTheRelease(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	holder, waiterClient := cl.client(t), cl.client(t, WithRetries(math.MaxInt))
	ctx := ctxTimeout(t, 30*time.Second)
	held, err := holder.Acquire(ctx, "wakes", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var attempts atomic.Int32
	second := make(chan struct{})
	type result struct {
		l   *Lock
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	go func() {
		l, err := waiterClient.AcquireWithProgress(ctx, "wakes", time.Minute, func(n int, _ Round) {
			if attempts.Add(1) == eagerRounds+2 {
				close(second)
			}
		})
		got <- result{l, err, time.Now()}
	}()
	select {
	case <-second: // the waiter has heard its subscription confirmed, and sleeps the long way
	case r := <-got:
		t.Fatalf("the waiter ended before its rounds at the plain retry delay were over: %v", r.err)
	}
	released := time.Now()
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	holder.Close() // as run does when its command has exited: the notice still goes out
	r := <-got
	if r.err != nil {
		t.Fatalf("the waiter did not acquire: %v", r.err)
	}
	defer r.l.Release(context.Background())
	if gap := r.at.Sub(released); gap >= watchCap/2 {
		t.Errorf("the waiter acquired %s after the release: it was not woken by the notice", gap)
	}
	if n := attempts.Load(); n > eagerRounds+2 {
		t.Errorf("%d failed rounds in %s of waiting for a lock held for a minute; want the waiter to back off", n,
			released.Sub(held.LastRound().Start))
	}
}

// TestAnnouncedReleasesNeedNoPubSub: a master whose ACL refuses PUBLISH and SUBSCRIBE (the README's locker
// user) still serves waiters, which poll; the holder's release is not failed by its refused notice.
func TestAnnouncedReleasesNeedNoPubSub(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithRetries(math.MaxInt), WithRetryDelay(time.Millisecond, 5*time.Millisecond))
	ctx := ctxTimeout(t, 30*time.Second)
	for _, r := range cl.raw {
		if err := r.Do(ctx, "CONFIG", "SET", "acl-pubsub-default", "resetchannels").Err(); err != nil {
			t.Skipf("no acl-pubsub-default: %v", err)
		}
		if err := r.Do(ctx, "ACL", "SETUSER", "default", "resetchannels").Err(); err != nil {
			t.Fatal(err)
		}
	}
	held, err := c.Acquire(ctx, "quiet", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := c.Acquire(ctx, "quiet", time.Minute)
		if err == nil {
			err = l.Release(ctx)
		}
		got <- err
	}()
	if err := held.Release(ctx); err != nil {
		t.Errorf("release with PUBLISH refused: %v", err)
	}
	if err := <-got; err != nil && !errors.Is(err, ErrNotHeld) {
		t.Errorf("the waiter: %v", err)
	}
}

// TestAWaiterTellsAHolderFromASplitVote: between its rounds a waiter reads the lock on every master, and only
// one token (or another client's key of another type) on a quorum is a holder to back off for; keys of
// several contenders, none on a quorum, are a split vote, retried at the retry delay. It also counts the
// clients that wait on the release channel.
func TestAWaiterTellsAHolderFromASplitVote(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx := ctxTimeout(t, 30*time.Second)
	set := func(key string, values ...string) {
		t.Helper()
		for i, v := range values {
			if v == "" {
				continue
			}
			if err := cl.raw[i].Set(ctx, key, v, time.Duration(30*(i+1))*time.Second).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	set("split", "a", "b", "c")
	set("two-of-three", "x", "x", "y")
	set("one", "", "", "z")
	for i := range 2 {
		if err := cl.raw[i].HSet(ctx, "hash", "x", 1).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.raw[1].Set(ctx, "forever", "f", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cl.raw[2].Set(ctx, "forever", "f", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key         string
		held        bool
		least, most time.Duration // of the time left on a quorum
	}{
		{"split", false, 0, 0},
		{"two-of-three", true, 29 * time.Second, 30 * time.Second}, // 30s on master 0, 60s on master 1
		{"one", false, 0, 0},
		{"absent", false, 0, 0},
		{"hash", true, MaxTTL, MaxTTL},
		{"forever", true, MaxTTL, MaxTTL},
	} {
		h := c.holding(tc.key)
		if h.held != tc.held || h.left < tc.least || h.left > tc.most {
			t.Errorf("%s: held %v for %v; want held %v for %v to %v", tc.key, h.held, h.left, tc.held, tc.least, tc.most)
		}
	}

	// Two other clients wait for the lock: each subscribes once per master, whatever its number of waiters.
	for range 2 {
		other := cl.client(t)
		for range 2 {
			wt := other.watch("two-of-three")
			defer wt.stop()
			for !wt.heard() {
				if ctx.Err() != nil {
					t.Fatal("no master confirmed the subscription")
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	for h := c.holding("two-of-three"); h.clients != 2; h = c.holding("two-of-three") {
		if ctx.Err() != nil {
			t.Fatalf("%d clients counted on the release channel, want 2", h.clients)
		}
		time.Sleep(10 * time.Millisecond) // one master may confirm before another has the subscription
	}
}

// TestASplitVoteIsNotAnnounced: an acquisition that lost a split vote releases its key without a notice,
// which would only wake every other client's waiter into the next split. The notice that was sent, if any,
// would reach a subscriber before a marker published after the acquisition returned.
func TestASplitVoteIsNotAnnounced(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithRetries(0))
	ctx := ctxTimeout(t, 30*time.Second)
	sub := cl.raw[0].Subscribe(ctx, ReleaseChannel("sv"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.raw[1].Set(ctx, "sv", "p", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cl.raw[2].Set(ctx, "sv", "q", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TryAcquire(ctx, "sv", time.Minute); err == nil {
		t.Fatal("acquired a lock held by others on two masters of three")
	}
	for v := cl.values(t, "sv"); v[0] != ""; v = cl.values(t, "sv") { // released at once, or in the background
		if ctx.Err() != nil {
			t.Fatalf("the failed acquisition's key is still on master 0: %q", v)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cl.raw[0].Publish(ctx, ReleaseChannel("sv"), "marker").Err(); err != nil {
		t.Fatal(err)
	}
	m, err := sub.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Payload != "marker" {
		t.Errorf("the split vote's release was announced (%q) before the marker", m.Payload)
	}
}

// TestAWokenWaiterSpreadsItsRoundOverTheClientsThatWait: a waiter woken by a notice tries within a sixteenth
// of the least retry delay for each client that waits, so that the first of many tries as soon as the first of
// one would, and within watchCap however many wait.
func TestAWokenWaiterSpreadsItsRoundOverTheClientsThatWait(t *testing.T) {
	c := &Client{cfg: config{retryDelayMin: 40 * time.Millisecond}}
	for _, tc := range []struct {
		clients int
		most    time.Duration
	}{{0, 2500 * time.Microsecond}, {1, 2500 * time.Microsecond}, {20, 50 * time.Millisecond}, {100000, watchCap}} {
		w := &waiter{c: c, clients: tc.clients}
		longest := time.Duration(0)
		for range 2000 {
			longest = max(longest, w.wakeDelay())
		}
		if longest > tc.most || longest < tc.most/2 {
			t.Errorf("%d clients: woken waiters wait up to %v, want up to %v and spread over it", tc.clients, longest, tc.most)
		}
	}
}

// TestAWaiterWokenByTheReleaseSaysItTookTheLock: a waiter that a release's notice woke and that then took the
// lock publishes that it did on the release channel, after the release's notice, so that other clients'
// waiters woken by the same notice sleep on. Its retry delay is ten seconds, so that it is the notice, not its
// timer, that ends its wait.
func TestAWaiterWokenByTheReleaseSaysItTookTheLock(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	holder := cl.client(t)
	waiting := cl.client(t, WithRetries(math.MaxInt), WithRetryDelay(10*time.Second, 10*time.Second))
	ctx := ctxTimeout(t, 30*time.Second)
	ch := ReleaseChannel("tk")
	subs := make([]*redis.PubSub, len(cl.raw))
	for i, r := range cl.raw {
		subs[i] = r.Subscribe(ctx, ch)
		defer subs[i].Close()
		if _, err := subs[i].Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	held, err := holder.Acquire(ctx, "tk", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lock, 1)
	go func() {
		l, err := waiting.Acquire(ctx, "tk", time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	// The waiter's subscription, beside the test's own, on every master.
	for _, r := range cl.raw {
		for n, err := r.PubSubNumSub(ctx, ch).Result(); n[ch] < 2; n, err = r.PubSubNumSub(ctx, ch).Result() {
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	l := <-got
	if l == nil {
		t.FailNow()
	}
	defer l.Release(context.Background())
	released := held.LastRound() // the release's round: it announces where it deleted the key
	for i, sub := range subs {
		var want []string
		if released.Nodes[i].Outcome == OutcomeOK { // on a loaded machine a master may miss the release's timeout
			want = append(want, held.Token())
		}
		if l.LastRound().Nodes[i].Outcome == OutcomeOK { // where the round counted the master's grant
			want = append(want, takenPrefix+l.Token())
		}
		for k, w := range want {
			m, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatalf("master %d: notice %d of %d, %q: %v", i, k+1, len(want), w, err)
			}
			if m.Payload != w {
				t.Errorf("master %d: notice %q, want %q", i, m.Payload, w)
			}
		}
	}
}

// TestATakenNoticeWakesNoWaiter: the notice that the lock was taken tells every waiter of the client, and wakes
// none of them; the next release's notice wakes one.
func TestATakenNoticeWakesNoWaiter(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx := ctxTimeout(t, 30*time.Second)
	ws := []*watcher{c.watch("tn"), c.watch("tn")}
	for _, w := range ws {
		defer w.stop()
		for !w.heard() {
			if ctx.Err() != nil {
				t.Fatal("no master confirmed the subscription")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := cl.raw[0].Publish(ctx, ReleaseChannel("tn"), takenPrefix+"someone").Err(); err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		select {
		case <-w.taken:
		case <-ctx.Done():
			t.Fatalf("waiter %d was not told the lock was taken", i)
		}
	}
	if err := cl.raw[0].Publish(ctx, ReleaseChannel("tn"), "released").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ws[0].wake:
	case <-ws[1].wake:
	case <-ctx.Done():
		t.Fatal("no waiter woken by the release")
	}
	if len(ws[0].wake)+len(ws[1].wake) != 0 {
		t.Error("the taken notice, or the release's, woke two waiters")
	}
}
