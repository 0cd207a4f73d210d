// Package redlock is a Redlock client: a distributed lock held on a majority of
// N independent Redis masters, as specified on the Redis "Distributed locks with
// Redis" page.
//
// A lock is acquired by sending SET resource token NX PX ttl to every master at
// once, each with a small node timeout. It is held only when at least N/2+1
// masters accepted it and the validity left, ttl - elapsed - drift allowance, is
// positive; otherwise it is released everywhere before the call returns. Release
// and extension use compare-and-delete and compare-and-expire scripts, so a key
// holding another client's token is never touched.
//
// Every round reports what each master did (see Round), on success and inside
// errors (see RoundError), so that callers can show per-master outcomes.
//
// A master grants only with its command's literal success value: OK to SET,
// a positive counter to the fenced acquire script, 1 to the scripts. An error
// reply, a reply of another type, a nil value, no reply, a closed connection
// or a timeout is never a grant, and is named in the round. A replica (it
// answers READONLY, or said role:slave when the connection was set up) has
// the outcome OutcomeReplica and never counts towards a quorum. A key of
// another type under the resource's name is another client's lock: release
// and extension answer "held by another token" there.
//
// # Keeping a lock
//
// Lock.AutoExtend starts a Keeper: it extends the lock each time a third of
// its TTL is left, and reads the key on every master between extensions
// (Lock.Check, a few times per TTL, at most a second apart), so that a lock
// deleted, evicted or taken over on a quorum is reported within about a
// second, not at the next extension. An extension that fails with errors or
// timeouts (a master paused, a write pause) proves nothing: the lock stays
// held for its validity and the keeper tries again until one succeeds or the
// validity runs out. A loss comes as a *LostError whose Cause says which of
// taken over, evicted, deleted or expired happened.
//
// # Masters behind Sentinels
//
// Each of the N masters may be a primary with replicas that Sentinels fail
// over: NewFailoverClient returns a client of whichever server the Sentinels
// name now, which New follows through failovers. A failover can lose a lock
// its primary granted a moment before, until the replicas had it (the
// algorithm page's replication race); the monitor warns of it. A Sentinel
// given where a master is expected fails with a SentinelPortError.
//
// # Fencing tokens
//
// A lock that expires while its holder is paused (a GC pause, a page fault, a
// slow network) lets another client take it, and the paused holder then
// writes after the new one: no lock service can prevent that alone. The cure
// is a fencing token: a number the storage checks, refusing a write whose
// token is below the highest it has accepted. With WithFencing, every lock
// carries one (Lock.Fence), kept across extensions:
//
//	c, _ := redlock.New(masters, redlock.WithFencing())
//	l, err := c.Acquire(ctx, "orders", 10*time.Second)
//	...
//	store.Write(ctx, data, l.Fence()) // the store refuses tokens below its highest
//
// Guarantee: a fenced lock's token is strictly greater than the token of
// every fenced lock on the same resource whose acquisition completed before
// this acquisition began, as long as fewer than 2Q-N masters lost their
// counters in between (Q = N/2+1 is the quorum): with 5 masters, none.
//
// How: each master keeps one counter per resource, the key resource +
// DefaultFenceSuffix (see WithFenceSuffix), without a TTL. In the acquire
// round, a master that sets the lock's key also increments the counter, in
// the same script, and returns it. The token T is the largest value among
// the masters that accepted. If a quorum of them returned T, the acquisition
// is complete. Otherwise a fence round asks every master to raise its
// counter to T if it still holds our key (compare-and-raise, one script),
// and the lock is held only when a quorum confirms and the validity,
// measured from the acquire round's start, is still positive.
//
// Proof. Call Q1 the quorum that confirmed lock L1 with token T1: the
// masters whose acquire reply was T1, or that confirmed the fence round.
// When such a master answered, its counter was at least T1, and counters
// only grow (INCR, and a raise never lowers). L2's acquisition begins after
// L1's completed, so after every master of Q1 answered; L2's accepting
// masters Q2 form a quorum too, and two quorums of N masters share at least
// one master m. L2's increment on m runs after L1's answer from m, so it
// returns at least T1+1, and T2, the largest value in Q2, is at least T1+1.
// Without the fence round this fails: the largest value may come from a
// master outside every later quorum's intersection (quorum {A,B,C} returns
// 9 from C, a later quorum {A,B,D} returns 6).
//
// Assumptions. Counters must survive restarts: a master that restarts
// without persistence (appendonly with fsync, or a snapshot taken after
// every increment) has lost its counter. Two quorums share at least 2Q-N
// masters, and with 5 masters that may be a single one, so one such restart
// can hand a later lock a lower or equal token (the demo's
// crash-restart-fenced story shows it). Redlock's delayed-restart rule is not
// enough here: it protects keys that expire, and counters never do. The
// tokens are not consecutive (failed acquisitions increment too) and are
// ordered only for acquisitions that did not overlap in time. The
// guarantee does not use clocks: it holds even when validity arithmetic is
// wrong, which is the point of fencing. A fenced lock uses the same key
// and the same kind of random value as any Redlock client, so it excludes
// and is excluded by them; their acquisitions do not touch the counter.
//
// A command goes out to its master at once on a free connection; commands that
// arrive while every connection to that master has a pipeline in flight go out
// together in the next free one, so many concurrent lockers share round trips
// without waiting for each other's.
package redlock
