package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Keeper extends a lock in the background before its validity runs low, so a
// long task keeps its lock, and reports at once when the lock is lost.
type Keeper struct {
	lock     *Lock
	lost     chan error
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	released <-chan struct{} // the lock's: closed on release
}

// AutoExtend starts a keeper for the lock. Each time the lock's validity falls
// to a third of its TTL, the keeper extends it by its TTL. It stops when told
// to, as soon as the lock is released or its client closed, or when the lock
// is lost: a failed extension, or the extension bound reached and the
// validity run out. Loss is sent once on Lost.
func (l *Lock) AutoExtend() *Keeper {
	k := &Keeper{lock: l, lost: make(chan error, 1), stop: make(chan struct{}), done: make(chan struct{}),
		released: l.releasedChan()}
	go k.run()
	return k
}

// Lost receives the reason when the keeper's lock is lost; it is closed when
// the keeper ends, lost or not.
func (k *Keeper) Lost() <-chan error { return k.lost }

// Done is closed when the keeper has ended.
func (k *Keeper) Done() <-chan struct{} { return k.done }

// Stop ends the keeper and waits for it. It does not release the lock.
func (k *Keeper) Stop() {
	k.stopOnce.Do(func() { close(k.stop) })
	<-k.done
}

func (k *Keeper) run() {
	defer close(k.done)
	defer close(k.lost)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-k.stop:
		case <-k.lock.client.closing:
		case <-ctx.Done():
		}
		cancel()
	}()
	l := k.lock
	for {
		ttl := l.TTL()
		if !k.sleep(l.Validity() - ttl/3) {
			return
		}
		if l.isReleased() {
			return
		}
		err := l.Extend(ctx, ttl)
		switch {
		case err == nil:
			continue
		case ctx.Err() != nil, l.isReleased(): // stopped, or released by the caller since the check above
			return
		case errors.Is(err, ErrExtendLimit):
			if !k.sleep(l.Validity()) || l.isReleased() {
				return
			}
			err = fmt.Errorf("lock %q lapsed after %d extensions: %w", l.resource, l.Extensions(), ErrLost)
		}
		k.lost <- err
		return
	}
}

// sleep waits d or until stopped, the lock released or the client closed; it
// reports whether the keeper goes on.
func (k *Keeper) sleep(d time.Duration) bool {
	var wake <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		wake = t.C
	}
	select {
	case <-k.stop:
		return false
	case <-k.released:
		return false
	case <-k.lock.client.closing:
		return false
	default:
	}
	if wake == nil {
		return true
	}
	select {
	case <-wake:
		return true
	case <-k.stop:
	case <-k.released:
	case <-k.lock.client.closing:
	}
	return false
}

func (l *Lock) isReleased() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.released
}
