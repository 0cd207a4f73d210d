package redlock

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func TestObserverHearsEveryAcquisitionExtensionAndRelease(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	var mu sync.Mutex
	var heard []Action
	c := cl.client(t, WithRetries(1), WithRetryDelay(time.Millisecond, 2*time.Millisecond), WithObserver(func(a Action) {
		mu.Lock()
		heard = append(heard, a)
		mu.Unlock()
	}))
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.Acquire(ctx, "observed", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Extend(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Acquire(ctx, "observed", time.Second); err == nil { // held: fails after its two rounds
		t.Fatal("acquired a held lock")
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []struct {
		op     Op
		token  string
		failed bool
	}{{OpAcquire, l.Token(), false}, {OpExtend, l.Token(), false}, {OpAcquire, "", true}, {OpRelease, l.Token(), false}}
	if len(heard) != len(want) {
		t.Fatalf("heard %d actions (%+v), want %d: one per acquisition, extension and release", len(heard), heard, len(want))
	}
	for i, w := range want {
		a := heard[i]
		if a.Op != w.op || a.Resource != "observed" || a.Token != w.token || (a.Err != nil) != w.failed || a.Round.Op == "" {
			t.Errorf("action %d = %s %q token %q err %v, want %s with token %q, failed %v", i, a.Op, a.Resource, a.Token, a.Err, w.op, w.token, w.failed)
		}
	}
	if !errors.Is(heard[2].Err, ErrNotAcquired) {
		t.Errorf("failed acquisition reported with %v, want ErrNotAcquired", heard[2].Err)
	}
}
