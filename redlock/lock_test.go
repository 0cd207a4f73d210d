package redlock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestForeignTokenIsNeverReleasedOrExtended(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	for _, r := range cl.raw {
		if err := r.Set(ctx, "shared", "someone-else", 5*time.Second).Err(); err != nil {
			t.Fatal(err)
		}
	}
	impostor := &Lock{client: c, resource: "shared", token: "not-theirs", ttl: 5 * time.Second,
		validUntil: c.cfg.clock.Now().Add(time.Minute)}

	err := impostor.Extend(ctx, time.Hour)
	if !errors.Is(err, ErrLost) {
		t.Fatalf("extend with a foreign token: want ErrLost, got %v", err)
	}
	// The round is decided once a quorum is impossible; masters that had not
	// answered by then are pending.
	for i, n := range impostor.LastRound().Nodes {
		if n.Outcome != OutcomeHeldByOther && n.Outcome != OutcomePending {
			t.Errorf("extend on master %d: outcome %s, want held by another token", i+1, n.Outcome)
		}
	}
	for i, r := range cl.raw {
		if pttl := r.PTTL(ctx, "shared").Val(); pttl > 5*time.Second {
			t.Errorf("master %d: foreign key's TTL was extended to %s", i+1, pttl)
		}
	}

	other := &Lock{client: c, resource: "shared", token: "not-theirs", ttl: 5 * time.Second}
	if err := other.Release(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("release with a foreign token: want ErrNotHeld, got %v", err)
	}
	if got := count(cl.values(t, "shared"), "someone-else"); got != 5 {
		t.Fatalf("release with a foreign token deleted the owner's key: %d of 5 left", got)
	}
	if _, err := c.ReleaseToken(ctx, "shared", "not-theirs"); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("ReleaseToken with the wrong token: want ErrNotHeld, got %v", err)
	}
	if _, err := c.ReleaseToken(ctx, "shared", "someone-else"); err != nil {
		t.Fatalf("ReleaseToken with the owner's token: %v", err)
	}
	if got := count(cl.values(t, "shared"), ""); got != 5 {
		t.Fatalf("ReleaseToken left the key on %d masters", 5-got)
	}
}

func TestReleaseAfterExpiryReportsIt(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "short", 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(250 * time.Millisecond)
	if l.Validity() > 0 || l.Held() {
		t.Fatalf("lock still valid after its TTL: %s", l.Validity())
	}
	err = l.Release(ctx)
	if !errors.Is(err, ErrNotHeld) {
		t.Fatalf("release after expiry: want ErrNotHeld, got %v", err)
	}
	for i, n := range l.LastRound().Nodes {
		if n.Outcome != OutcomeGone {
			t.Errorf("master %d: outcome %s, want gone", i+1, n.Outcome)
		}
	}
	if err := l.Release(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("second release should be harmless and say so: %v", err)
	}
	if err := l.Extend(ctx, time.Second); !errors.Is(err, ErrLost) {
		t.Fatalf("extend after release: want ErrLost, got %v", err)
	}
}

func TestValidityArithmeticWithInjectedClock(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	clk := &tickingClock{now: time.Unix(1000, 0), step: 7 * time.Millisecond}
	c := cl.client(t, WithClock(clk), WithDriftFactor(0.01))
	ctx := ctxTimeout(t, 10*time.Second)
	const ttl = 10 * time.Second
	l, err := c.TryAcquire(ctx, "arith", ttl)
	if err != nil {
		t.Fatal(err)
	}
	// The round read the clock twice: start, then decision (elapsed 7ms).
	drift := time.Duration(float64(ttl)*0.01) + 2*time.Millisecond
	want := ttl - 7*time.Millisecond - drift
	if r := l.LastRound(); r.Elapsed != 7*time.Millisecond || r.Validity != want {
		t.Fatalf("round: elapsed %s validity %s, want 7ms and %s", r.Elapsed, r.Validity, want)
	}
	// Validity reads the clock once more: 7ms after the decision.
	if got := l.Validity(); got != want-7*time.Millisecond {
		t.Fatalf("Validity() = %s, want %s", got, want-7*time.Millisecond)
	}
	clk.advance(ttl)
	if got := l.Validity(); got > 0 {
		t.Fatalf("Validity() positive after the TTL passed: %s", got)
	}
	if l.Held() {
		t.Fatal("Held() after the TTL passed")
	}
	if err := l.Extend(ctx, ttl); !errors.Is(err, ErrLost) {
		t.Fatalf("extend after validity ran out: want ErrLost, got %v", err)
	}

	l2, err := c.TryAcquire(ctx, "arith2", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got := l2.Validity(); got > 0 {
		t.Fatalf("Validity() positive after release: %s", got)
	}
}

func TestValidityRunOutIsNotAcquired(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	// Every clock reading advances 60ms: a 50ms TTL has no validity left.
	clk := &tickingClock{now: time.Unix(1000, 0), step: 60 * time.Millisecond}
	c := cl.client(t, WithClock(clk))
	ctx := ctxTimeout(t, 10*time.Second)
	_, err := c.TryAcquire(ctx, "slow", 50*time.Millisecond)
	if !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("want ErrNotAcquired when validity ran out, got %v", err)
	}
	var re *RoundError
	if !errors.As(err, &re) || re.Round.OK < c.Quorum() {
		t.Fatalf("the round should show a quorum accepted before validity ran out: %v", err)
	}
	if got := cl.settle(t, "slow", "", 3); got != 3 {
		t.Fatalf("a lock without validity was left on %d masters", 3-got)
	}
}

func TestExtendIsBounded(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	c := cl.client(t, WithMaxExtensions(2))
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "bounded", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := l.Extend(ctx, 3*time.Second); err != nil {
			t.Fatalf("extension %d: %v", i+1, err)
		}
	}
	if l.Validity() <= 2*time.Second {
		t.Fatalf("extension did not renew validity: %s", l.Validity())
	}
	// Rounds are decided at quorum, so a slow master may lack the key; a
	// quorum must carry the renewed TTL.
	renewed := 0
	for _, r := range cl.raw {
		if pttl := r.PTTL(ctx, "bounded").Val(); pttl > 2*time.Second {
			renewed++
		}
	}
	if renewed < c.Quorum() {
		t.Fatalf("renewed TTL on %d masters after extending to 3s, want at least %d", renewed, c.Quorum())
	}
	if err := l.Extend(ctx, 3*time.Second); !errors.Is(err, ErrExtendLimit) {
		t.Fatalf("third extension: want ErrExtendLimit, got %v", err)
	}
	if !l.Held() || l.Extensions() != 2 {
		t.Fatalf("refused extension must leave the lock as it was: held %v, extensions %d", l.Held(), l.Extensions())
	}
}

func TestExtendDoesNotRetakeAFreeKey(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "expiring", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n := cl.settle(t, "expiring", l.Token(), 5); n != 5 {
		t.Fatalf("token on %d of 5 masters after acquire", n)
	}
	for _, r := range cl.raw[:3] {
		r.Del(ctx, "expiring")
	}
	if err := l.Extend(ctx, 5*time.Second); !errors.Is(err, ErrLost) {
		t.Fatalf("extend with the key gone from 3 of 5: want ErrLost, got %v", err)
	}
	if got := count(cl.values(t, "expiring"), ""); got != 3 {
		t.Fatalf("extend re-created the key: absent on %d of 5, want 3", got)
	}
	if l.Held() {
		t.Fatal("a failed extension must mark the lock lost")
	}
}

func TestAutoExtendKeepsLockAndReportsLoss(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 5)
	const ttl = time.Second // leaves the keeper a third of a second per extension on a loaded machine
	c := cl.client(t, WithMaxExtensions(100))
	ctx := ctxTimeout(t, 20*time.Second)
	l, err := c.TryAcquire(ctx, "kept", ttl)
	if err != nil {
		t.Fatal(err)
	}
	k := l.AutoExtend()
	defer k.Stop()
	time.Sleep(4 * ttl)
	if !l.Held() || l.Extensions() < 3 {
		t.Fatalf("after 4 TTLs: held %v with %d extensions, want held with >= 3", l.Held(), l.Extensions())
	}
	if got := count(cl.values(t, "kept"), l.Token()); got != 5 {
		t.Fatalf("kept lock present on %d of 5 masters", got)
	}
	for _, m := range cl.masters[:3] {
		if err := m.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-k.Lost():
		if !errors.Is(err, ErrLost) {
			t.Fatalf("loss reported with %v, want ErrLost", err)
		}
	case <-time.After(2 * ttl):
		t.Fatal("loss not reported within a TTL of a majority going down")
	}
	if l.Held() {
		t.Fatal("lock still held after the keeper reported loss")
	}
}

func TestAutoExtendReportsLapseAtTheBound(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithMaxExtensions(1))
	ctx := ctxTimeout(t, 10*time.Second)
	// A TTL long enough that a loaded machine's keeper makes its one extension in time (with 150ms it once
	// had not when the validity ran out): the test is of the bound, not of the keeper's speed.
	const ttl = 2 * time.Second
	l, err := c.TryAcquire(ctx, "bound", ttl)
	if err != nil {
		t.Fatal(err)
	}
	k := l.AutoExtend()
	select {
	case err := <-k.Lost():
		if !errors.Is(err, ErrLost) || l.Extensions() != 1 || l.Held() {
			t.Fatalf("lapse at the bound: err %v, extensions %d, held %v", err, l.Extensions(), l.Held())
		}
	case <-time.After(4 * ttl):
		t.Fatal("keeper did not report the lapse after the bound")
	}
	<-k.Done()
}

func TestAutoExtendStopsQuietlyOnRelease(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "quiet", 150*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	k := l.AutoExtend()
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err, ok := <-k.Lost():
		if ok {
			t.Fatalf("release reported as loss: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("keeper did not end after release")
	}
}

func TestCancelInterruptsRetryWait(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	holder := cl.client(t)
	waiter := cl.client(t, WithRetries(100), WithRetryDelay(5*time.Second, 5*time.Second))
	bg := ctxTimeout(t, 10*time.Second)
	l, err := holder.TryAcquire(bg, "busy", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(bg)
	ctx, cancel := context.WithCancel(bg)
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = waiter.Acquire(ctx, "busy", 10*time.Second)
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrNotAcquired) || errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("cancelled acquire: want Canceled and ErrNotAcquired, got %v", err)
	}
	if took > time.Second {
		t.Fatalf("cancel did not interrupt the 5s retry wait: returned after %s", took)
	}
}

func TestScriptsSurviveScriptCacheFlush(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t)
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "flushed", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cl.raw {
		if err := r.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Extend(ctx, 5*time.Second); err != nil {
		t.Fatalf("extend after SCRIPT FLUSH (NOSCRIPT fallback): %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("release after SCRIPT FLUSH: %v", err)
	}
}

func TestLockIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithMaxExtensions(1000))
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.TryAcquire(ctx, "shared-lock", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				_ = l.Extend(ctx, 5*time.Second)
				_ = l.Validity()
				_ = l.LastRound()
			}
		}()
	}
	wg.Wait()
	if l.Extensions() != 80 {
		t.Fatalf("80 concurrent extensions counted as %d", l.Extensions())
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
