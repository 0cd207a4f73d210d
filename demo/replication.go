package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// The replication race is the first failure on the Redlock page, the reason the algorithm exists: a single
// Redis primary with a replica, replication asynchronous, the primary crashes after granting a lock and
// before sending the key to its replica; the replica is promoted and grants the lock again. The embedded
// masters cannot replicate, so the story plays the primary on master 3 and its replica on master 4, and the
// demo itself copies the primary's keys to the replica, replicationLag after each write, as Redis's
// asynchronous replication would; a crash loses the copies not yet made.

// replicaOf is the master that plays the victim's replica in the replication race.
const replicaOf = 3

// replicationLag is how long after a write on the primary the demo copies it to the replica.
const replicationLag = 2 * time.Second

// copyTimeout bounds the copy of one key to the replica.
const copyTimeout = time.Second

// replicaLink copies keys from a primary to its replica, lag after each write, until the primary crashes.
type replicaLink struct {
	from, to *testbed.Embedded
	lag      time.Duration
	mu       sync.Mutex
	pending  []*time.Timer
	copied   int // keys copied so far
}

// wrote schedules the copy of key to the replica, lag from now.
func (l *replicaLink) wrote(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, time.AfterFunc(l.lag, func() { l.copyKey(key) }))
}

// copyKey copies key, its value and its remaining TTL, from the primary to the replica; a key gone from the
// primary (expired, or the primary down) is not copied.
func (l *replicaLink) copyKey(key string) {
	ctx, cancel := context.WithTimeout(context.Background(), copyTimeout)
	defer cancel()
	src, dst := l.from.NewClient(), l.to.NewClient()
	defer src.Close()
	defer dst.Close()
	val, err := src.Get(ctx, key).Result()
	ttl, terr := src.PTTL(ctx, key).Result()
	if err != nil || terr != nil || ttl <= 0 {
		return
	}
	if dst.Set(ctx, key, val, ttl).Err() == nil {
		l.mu.Lock()
		l.copied++
		l.mu.Unlock()
	}
}

// crash stops the copies not yet made, as a crashed primary's unsent replication stream is lost; it reports
// how many keys were copied before.
func (l *replicaLink) crash() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range l.pending {
		t.Stop()
	}
	l.pending = nil
	return l.copied
}

// newSingleActor returns a client named name that locks on master i alone: a single-instance lock.
func (r *scenarioRun) newSingleActor(name string, i int) (*actor, error) {
	a := &actor{name: name}
	r.actors = append(r.actors, a)
	p, err := testbed.NewProxy(r.d.masters[i].Addr())
	if err != nil {
		return nil, fmt.Errorf("path from %s to master %d: %w", name, i+1, err)
	}
	a.paths = append(a.paths, p)
	a.locker, a.conns, err = newLocker([]string{p.Addr()}, r.d.opts.NodeTimeout, redlock.WithRetries(0),
		redlock.WithDriftFactor(driftFactor))
	if err != nil {
		return nil, err
	}
	warmUp(r.ctx, a.conns)
	return a, nil
}

// replicationRace is the single-instance story: A's lock is lost with the primary, the promoted replica
// grants it to B.
func (r *scenarioRun) replicationRace() error {
	r.say("A and B lock %s on one Redis primary, master 3, without Redlock; master %d is its replica. "+
		"Replication is asynchronous: the demo copies each write to the replica %v later", ScenarioResource,
		replicaOf+1, replicationLag)
	a, err := r.newSingleActor("A", victim)
	if err != nil {
		return err
	}
	link := &replicaLink{from: r.d.masters[victim], to: r.d.masters[replicaOf], lag: replicationLag}
	r.say("A acquires the lock on the primary; at once, before the primary sends the key to its replica, " +
		"master 3 crashes")
	if err := r.acquireWithin(a, r.ttl+time.Second); err != nil {
		return err
	}
	link.wrote(ScenarioResource)
	if err := r.d.StopMaster(victim); err != nil {
		return err
	}
	r.stopped = true
	if link.crash() > 0 {
		return errors.New("the replica got A's key before the crash: no race this time")
	}
	r.write(a, validityLeft(a))
	if err := r.pace(); err != nil {
		return err
	}
	r.say("master %d, the replica, is promoted to primary; it never got A's key", replicaOf+1)
	b, err := r.newSingleActor("B", replicaOf)
	if err != nil {
		return err
	}
	if err := r.pace(); err != nil {
		return err
	}
	return r.bothWriteOn(a, b, fmt.Sprintf("B acquires the lock on the new primary, master %d", replicaOf+1))
}

// bWithinMargin is the validity A keeps, at least, when B's retries give up: enough for A's write to come
// after B's within A's validity.
const bWithinMargin = 300 * time.Millisecond

// bothWriteOn has B acquire the lock A still holds, as step says, and both write.
func (r *scenarioRun) bothWriteOn(a, b *actor, step string) error {
	r.say("%s", step)
	// B retries while A has validity left to write with (bWithinMargin): a master just restarted may fail B's
	// first rounds (connections the crash broke), and the story is B holding the lock while A still does.
	if err := r.acquireWithin(b, max(a.lock.Validity()-bWithinMargin, 0)); err != nil {
		return err
	}
	r.write(b, validityLeft(b))
	if err := r.pace(); err != nil {
		return err
	}
	r.say("A, still within its validity, writes too")
	r.write(a, validityLeft(a))
	return nil
}

// replicationRaceRedlock is the same fault against Redlock on five masters: the promoted replica (master 3
// back, empty) is one vote of five, and A's key lives on in the other four.
func (r *scenarioRun) replicationRaceRedlock() error {
	a, b, err := r.opening(reachAll, reachAll)
	if err != nil {
		return err
	}
	if err := r.onEveryMaster(a); err != nil {
		return err
	}
	if err := r.pace(); err != nil {
		return err
	}
	r.say("master 3 crashes before it sends A's key to its replica, and the replica, without the key, takes " +
		"its place: the demo plays it by bringing master 3 back empty")
	if err := r.d.StopMaster(victim); err != nil {
		return err
	}
	r.stopped = true
	if err := r.d.StartMaster(victim); err != nil {
		return err
	}
	r.stopped = false
	if err := r.pace(); err != nil {
		return err
	}
	r.say("B tries to acquire the lock: A's key is still on masters 1, 2, 4, 5")
	if err := r.tryAcquire(b); err == nil { // the story says it cannot; if it did, the detector tells
		r.write(b, validityLeft(b))
	}
	return r.ctx.Err()
}

// onEveryMaster makes sure a's lock is on every master, as the story says: a lock won by a bare three (a key
// another client left on two masters, or a master over its node timeout on a loaded machine) with master 3
// among them would truly let B in once master 3 forgets. A releases such a lock and takes it again, for up to a
// TTL and a second. The masters themselves are asked, once every SET of the round has answered: a round
// decides at its majority, and a late SET may still land. A master that does not answer the question is asked
// again: not knowing is no reason to give up A's lock.
func (r *scenarioRun) onEveryMaster(a *actor) error {
	limit := r.ttl + time.Second
	deadline := time.Now().Add(limit)
	for {
		missing, err := r.withoutKey(a)
		switch {
		case err == nil && len(missing) == 0:
			return nil
		case time.Now().After(deadline) && err != nil:
			return fmt.Errorf("whether the lock landed on every master for A is unknown after %v: %w",
				vocab.ShortDuration(limit), err)
		case time.Now().After(deadline):
			return fmt.Errorf("the lock did not land on every master for A within %v: not on %s",
				vocab.ShortDuration(limit), masterList(missing))
		case err != nil:
			if err := r.wait(retryDelayMin); err != nil {
				return err
			}
			continue
		}
		lock := a.lock
		if err := lock.Release(r.ctx); err != nil && !errors.Is(err, redlock.ErrIncomplete) {
			return fmt.Errorf("%s's release: %w", a.name, err)
		}
		r.d.stopBelieving(lock.Token())
		r.d.emit(Event{Kind: EventReleased, Client: a.name, Resource: ScenarioResource, Token: lock.Token(), Master: -1,
			Text: fmt.Sprintf("A released %s: the story needs A's key on all five masters, and master %s had none",
				ScenarioResource, masterList(missing))})
		if err := r.wait(between(retryDelayMin, 3*retryDelayMin, 1)); err != nil {
			return err
		}
		if err := r.acquireWithin(a, max(time.Until(deadline), 0)); err != nil {
			return err
		}
	}
}

// withoutKey returns the masters (by index) where a's lock has no key, once every SET of the round that won
// it has answered.
func (r *scenarioRun) withoutKey(a *actor) ([]int, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.ttl)
	defer cancel()
	a.lock.Unreached(ctx)
	var missing []int
	for i, m := range r.d.masters {
		c := redis.NewClient(&redis.Options{Addr: m.Addr(), DialTimeout: r.ttl, ReadTimeout: r.ttl, MaxRetries: -1})
		v, err := c.Get(ctx, ScenarioResource).Result()
		_ = c.Close()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("master %d: %w", i+1, err)
		}
		if v != a.lock.Token() {
			missing = append(missing, i)
		}
	}
	return missing, nil
}
