package monitor

import (
	"cmp"
	"encoding/json"
	"slices"
	"sort"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/millis"
)

// OwnLock is what this process did on a resource: the lock it acquired there (its token, when the
// acquisition completed and its TTL; Token "" for none), and the tokens of others it force-deleted there.
type OwnLock struct {
	Token      string        // our lock's token; "" when we hold none there
	AcquiredAt time.Time     // when its acquisition completed
	TTL        time.Duration // counts among the TTLs a restarted master is weighed against
	// ValidUntil is the end of the validity we last held it with (acquired or extended), on this process's
	// clock; zero when not known. Its keys cannot have run out before: our token gone before it is a loss;
	// gone after it, the expiry at its TTL, which the operator let happen (LockView.Expired).
	ValidUntil time.Time
	Deleted    []string // tokens this process force-deleted: when they go, it is a deletion, not a release
}

// Owner is the register of this process's own locks and force-deletions, kept by the program that writes
// (internal/app). Snapshots show its locks as Mine, with their real acquisition time, and as lost once they no
// longer have a quorum; the disappearance of a token it deleted is reported as that deletion, not a release.
type Owner interface {
	// OwnLocks returns the register by resource, as of now; the monitor does not modify it.
	OwnLocks() map[string]OwnLock
}

// Lock returns resource's view in s (Locks is sorted by resource), nil when s shows no key of it.
func (s *Snapshot) Lock(resource string) *LockView {
	if i, ok := s.lockIndex(resource); ok {
		return s.Locks[i]
	}
	return nil
}

// lockIndex returns where resource's view is in s.Locks, and whether it is there.
func (s *Snapshot) lockIndex(resource string) (int, bool) {
	i := sort.Search(len(s.Locks), func(i int) bool { return s.Locks[i].Resource >= resource })
	return i, i < len(s.Locks) && s.Locks[i].Resource == resource
}

// ownView returns s.Locks[i] for a pass after the views are built to change: the view itself when this poll
// built it, otherwise a copy put in its place, for the view may be an earlier snapshot's (taken as it was).
func (s *Snapshot) ownView(i int) *LockView {
	if s.Locks[i].hist.builtIn != s.Seq {
		v := *s.Locks[i]
		s.Locks[i] = &v
	}
	return s.Locks[i]
}

// Shows reports whether s shows any of tokens on some master of resource: a force-deletion is over when it
// no longer does.
func (s *Snapshot) Shows(resource string, tokens []string) bool {
	l := s.Lock(resource)
	return l != nil && slices.ContainsFunc(l.Masters, func(c MasterLock) bool {
		return c.State != CellAbsent && slices.Contains(tokens, c.Token)
	})
}

// ownLockJSON is OwnLock as a recording holds it: its TTL in milliseconds (format version 3), and the
// nanoseconds of versions 1 and 2 still read.
type ownLockJSON struct {
	ownLockFields
	TTLMS millis.Duration `json:"ttl_ms,omitempty"` // counts among the TTLs a restarted master is weighed against
	TTL   time.Duration   `json:"TTL,omitempty"`    // versions 1 and 2: the TTL in nanoseconds
}

// ownLockFields is OwnLock without its methods.
type ownLockFields OwnLock

// MarshalJSON writes the lock for a recording, its TTL in milliseconds.
func (o OwnLock) MarshalJSON() ([]byte, error) {
	return json.Marshal(ownLockJSON{ownLockFields: ownLockFields(o), TTLMS: millis.Duration(o.TTL)})
}

// UnmarshalJSON reads a lock a recording holds, in any format version.
func (o *OwnLock) UnmarshalJSON(data []byte) error {
	var rec ownLockJSON
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*o = OwnLock(rec.ownLockFields)
	o.TTL = cmp.Or(rec.TTL, time.Duration(rec.TTLMS))
	return nil
}
