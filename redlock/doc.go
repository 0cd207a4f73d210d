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
// A command goes out to its master at once on a free connection; commands that
// arrive while every connection to that master has a pipeline in flight go out
// together in the next free one, so many concurrent lockers share round trips
// without waiting for each other's.
package redlock
