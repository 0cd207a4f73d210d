package redlock

import (
	"testing"
	"time"
)

// A master that restarts closes the connections the client keeps warm. The first command after the restart
// must not fail on such a connection: the master that closed it never ran the command.
func TestFirstAcquisitionAfterMastersRestartSucceeds(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithRetries(0))
	ctx := ctxTimeout(t, 10*time.Second)
	l, err := c.Acquire(ctx, "before", time.Second)
	if err != nil {
		t.Fatalf("before the restarts: %v", err)
	}
	_ = l.Release(ctx)
	for _, m := range cl.masters {
		if err := m.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := m.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Acquire(ctx, "after-restart", time.Second); err != nil {
		t.Errorf("first acquisition after every master restarted, in one round: %v", err)
	}
}

// While a master is down, calls to it fail fast with the setup's error; the first call after it is back must
// not be answered with that old error.
func TestFirstAcquisitionAfterADelayedRestartSucceeds(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 3)
	c := cl.client(t, WithRetries(0))
	ctx := ctxTimeout(t, 10*time.Second)
	for _, m := range cl.masters {
		if err := m.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Acquire(ctx, "while-down", time.Second); err == nil {
		t.Fatal("acquired with every master down")
	}
	time.Sleep(200 * time.Millisecond) // several failed reconnection attempts: the node is known down
	for _, m := range cl.masters {
		if err := m.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Acquire(ctx, "after-restart", time.Second); err != nil {
		t.Errorf("first acquisition once the masters are back, in one round: %v", err)
	}
}
