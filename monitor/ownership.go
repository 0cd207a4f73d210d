package monitor

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Ownership is the register of this process's locks: the ones the dashboard acquired and still holds, and
// the tokens of others it is force-deleting. The lock commands write it; the monitor reads it at the start of
// every poll (Owner) to mark our locks and tell our deletions from their holders' releases. It is safe
// for concurrent use.
type Ownership struct {
	mu    sync.Mutex
	locks map[string]OwnLock
}

// NewOwnership returns an empty register.
func NewOwnership() *Ownership {
	return &Ownership{locks: map[string]OwnLock{}}
}

// Acquired records token as this process's lock on resource, acquired at at with ttl.
func (o *Ownership) Acquired(resource, token string, at time.Time, ttl time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.locks[resource]
	l.Token, l.AcquiredAt, l.TTL = token, at, ttl
	o.locks[resource] = l
}

// Valid records until as the end of the validity this process holds its lock on resource with, if resource
// is still recorded with token: it was acquired or extended. Our token gone after it is the lock's expiry at
// its TTL, not a loss (OwnLock.ValidUntil).
func (o *Ownership) Valid(resource, token string, until time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if l, ok := o.locks[resource]; ok && l.Token == token {
		l.ValidUntil = until
		o.locks[resource] = l
	}
}

// Ended removes the lock Acquired recorded, if resource is still recorded with token: it was released, or
// it ran out.
func (o *Ownership) Ended(resource, token string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if l := o.locks[resource]; l.Token == token {
		o.locks[resource] = OwnLock{Deleted: l.Deleted}
		o.dropEmpty(resource)
	}
}

// Deleting records that this process is force-deleting tokens of resource (a lock not ours). The record
// lasts until a snapshot no longer shows those tokens (Settle).
func (o *Ownership) Deleting(resource string, tokens ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.locks[resource]
	l.Deleted = append(slices.Clone(l.Deleted), tokens...)
	o.locks[resource] = l
}

// OwnLocks returns a copy of the register by resource (Owner).
func (o *Ownership) OwnLocks() map[string]OwnLock {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.locks)
}

// Settle forgets the deletions whose tokens s shows on no master any more: they are done. The monitor calls
// it after every poll (Monitor.Observe).
func (o *Ownership) Settle(_ *Snapshot, s Snapshot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for res, l := range o.locks {
		if len(l.Deleted) == 0 || s.Shows(res, l.Deleted) {
			continue
		}
		l.Deleted = nil
		o.locks[res] = l
		o.dropEmpty(res)
	}
}

// dropEmpty removes resource's record when it holds neither a lock of ours nor a deletion.
func (o *Ownership) dropEmpty(resource string) {
	if l := o.locks[resource]; l.Token == "" && len(l.Deleted) == 0 {
		delete(o.locks, resource)
	}
}
