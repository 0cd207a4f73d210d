package redlock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Keeper extends a lock in the background before its validity runs low, so a
// long task keeps its lock, checks it between extensions, and reports at once
// when the lock is lost.
type Keeper struct {
	lock     *Lock
	lost     chan error
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	released <-chan struct{} // the lock's: closed on release
}

// AutoExtend starts a keeper for the lock. Each time the lock's validity falls
// to a third of its TTL, the keeper extends it by its TTL, but never sooner
// than a tenth of the TTL (at least a node timeout) after the last extension,
// whatever the drift factor (see MaxDriftFactor); an extension that
// fails with errors or timeouts is tried again after about a node timeout
// (jittered) until one succeeds or the validity runs out. Between extensions
// it checks the lock (Lock.Check, see WithCheckInterval), so that a lock
// deleted, evicted or taken over on a quorum is reported within about a
// check interval. It stops when told to, as soon as the lock is released or
// its client closed, or when the lock is lost: a loss the masters proved, the
// validity run out before an extension succeeded, or the extension bound
// reached and the validity run out. The loss, a *LostError that says how, is
// sent once on Lost.
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
	if !l.client.cfg.noEvictions {
		l.noteEvictions(ctx)
	}
	var failed error // the last extension's error while extensions fail without proof
	failures := 0
	var floor time.Duration // after an extension, the least interval to the next (none before the first)
	for {
		ttl := l.TTL()
		// Never sooner than the floor: an extension whose validity starts below a third of the TTL (a drift
		// factor that leaves no time to extend) would make the next one due at once, again and again. Never
		// later than the validity either: a lock that cannot be extended in time is lost, and said so.
		next := max(l.Validity()-ttl/3, min(floor, l.Validity()))
		if failed != nil {
			next = min(l.client.extendRetryDelay(), l.Validity())
		}
		err, goOn := k.wait(ctx, next, ttl)
		switch {
		case !goOn || l.isReleased():
			return
		case err != nil:
			k.lost <- err
			return
		}
		err = l.Extend(ctx, ttl)
		switch {
		case err == nil:
			failed, failures, floor = nil, 0, l.client.minExtendInterval(ttl)
			continue
		case ctx.Err() != nil, l.isReleased(): // stopped, or released by the caller since the check above
			return
		case errors.Is(err, ErrExtendLimit):
			checked, goOn := k.wait(ctx, l.Validity(), ttl)
			switch {
			case !goOn || l.isReleased():
				return
			case checked != nil:
				err = checked
			default:
				err = &LostError{Resource: l.resource, Cause: LossExpired,
					Detail: fmt.Sprintf("it lapsed after %d extensions, the bound", l.Extensions())}
			}
		case errors.Is(err, ErrNotExtended):
			failed = err
			failures++
			continue
		case errors.Is(err, ErrLost) && CauseOf(err) == LossExpired && failed != nil:
			err = &LostError{Resource: l.resource, Cause: LossExpired,
				Detail: fmt.Sprintf("its validity ran out after %d failed extensions", failures), err: failed}
		}
		k.lost <- err
		return
	}
}

// wait waits d, checking the lock every check interval of a lock of ttl meanwhile (none when d is shorter). It
// returns the loss a check proved, or reports false when the keeper is to end: stopped, the lock released or
// its client closed.
func (k *Keeper) wait(ctx context.Context, d, ttl time.Duration) (error, bool) {
	every := k.lock.client.cfg.checkInterval(ttl)
	until := time.Now().Add(d)
	for {
		left := time.Until(until)
		if every <= 0 || left <= every {
			return nil, k.sleep(left)
		}
		if !k.sleep(every) {
			return nil, false
		}
		err := k.lock.Check(ctx)
		switch {
		case ctx.Err() != nil || k.lock.isReleased():
			return nil, false
		case errors.Is(err, ErrLost):
			return err, true
		}
	}
}

// minExtendInterval is the least time a keeper waits between two extensions of a lock of ttl, whatever the
// settings: a tenth of the TTL, and at least a node timeout, which is what one extension may take.
func (c *Client) minExtendInterval(ttl time.Duration) time.Duration {
	return max(ttl/10, c.cfg.nodeTimeout)
}

// MaxDriftFactor is the largest drift factor (WithDriftFactor) with which a Keeper has time to extend a lock of
// ttl on masters that answer within nodeTimeout: after an extension that took a node timeout, the validity
// left must exceed the third of the TTL at which the keeper extends by the least interval between extensions
// (a tenth of the TTL, at least a node timeout). Above it each extension is due as soon as the last ends, or
// the lock lapses between them. It is negative when ttl is too short for nodeTimeout whatever the factor.
func MaxDriftFactor(ttl, nodeTimeout time.Duration) float64 {
	gap := max(ttl/10, nodeTimeout)
	return (float64(ttl)*2/3 - float64(nodeTimeout+2*time.Millisecond+gap)) / float64(ttl)
}

// extendRetryDelay is how long a keeper waits before it tries again an extension that failed without proof:
// a node timeout and up to as much again at random, so that keepers that failed together do not retry
// together.
func (c *Client) extendRetryDelay() time.Duration {
	d := c.cfg.nodeTimeout
	return d + rand.N(d+1)
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
