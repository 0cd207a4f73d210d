package redlock

import (
	"errors"
	"fmt"
)

// ErrNotAcquired matches every failure to hold a lock: no quorum, validity run
// out, retries exhausted, or the context ended while acquiring.
var ErrNotAcquired = errors.New("redlock: lock not acquired")

// ErrRetriesExhausted matches an Acquire that used all its rounds.
var ErrRetriesExhausted = errors.New("redlock: retries exhausted")

// ErrLost matches operations on a lock that is no longer held: an extension
// or a check (Lock.Check) that the masters answered with "not ours" on so
// many of them that fewer than a quorum may still hold it, or an extension
// after the lock lapsed or was released. A loss the masters or the validity
// proved is a *LostError, which says how it happened.
var ErrLost = errors.New("redlock: lock lost")

// ErrNotExtended matches an extension that failed without proving the lock
// lost: errors or timeouts on too many masters. The lock is still held, for
// the validity it had (no longer than the new TTL allows from the round's
// start), and may be extended again; a Keeper retries.
var ErrNotExtended = errors.New("redlock: lock not extended")

// LossCause says how a lock was lost.
type LossCause string

// The ways a lock is lost.
const (
	// LossTakenOver: another token holds the key on masters without which no quorum holds ours.
	LossTakenOver LossCause = "taken over"
	// LossEvicted: the key is gone before its TTL from masters whose evicted_keys grew meanwhile (a
	// maxmemory policy that evicts keys with a TTL).
	LossEvicted LossCause = "evicted"
	// LossDeleted: the key is gone before its TTL, not by eviction as far as the masters tell: deleted
	// (DEL, FLUSHALL, an operator), or lost in a restart or failover.
	LossDeleted LossCause = "deleted"
	// LossExpired: the validity ran out before an extension could renew the lock (failed extensions, the
	// extension bound, or a holder stalled past its TTL).
	LossExpired LossCause = "expired"
)

// LostError is a loss the masters' answers or the lock's validity proved. It
// matches ErrLost, and the *RoundError of the round that proved it, if any.
type LostError struct {
	Resource string
	Cause    LossCause
	Detail   string // what showed it, for people: "no key on 2 of 3 masters"
	err      error  // the round's error, or the error that came before the lapse
}

// Error says which lock was lost, how, and what showed it.
func (e *LostError) Error() string {
	msg := fmt.Sprintf("redlock: lock %q lost, %s", e.Resource, e.Cause)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

// Unwrap lets errors.Is match ErrLost and errors.As find the round's error.
func (e *LostError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrLost}
	}
	return []error{ErrLost, e.err}
}

// CauseOf returns how the lock was lost when err reports a loss (a
// *LostError), and "" otherwise.
func CauseOf(err error) LossCause {
	var le *LostError
	if errors.As(err, &le) {
		return le.Cause
	}
	return ""
}

// ErrExtendLimit matches an extension beyond the bound set by WithMaxExtensions.
var ErrExtendLimit = errors.New("redlock: extension limit reached")

// ErrNotHeld matches a release that found the lock on no master: it had
// expired or was already released.
var ErrNotHeld = errors.New("redlock: lock was not held on any master")

// ErrIncomplete matches a release some masters did not confirm (errors or
// timeouts); the key may linger there until its TTL runs out.
var ErrIncomplete = errors.New("redlock: release not confirmed by every master")

// RoundError is a failed round with what each master did. errors.As finds it
// in every error Acquire, TryAcquire, Extend and Release return after talking
// to the masters.
type RoundError struct {
	Round    Round
	Attempts int    // rounds run: more than one for Acquire with retries
	Reason   string // why the round failed, for people
	kinds    []error
	cause    error // the context's error when it ended the attempt
}

// Error says which operation failed, why, and what each master did.
func (e *RoundError) Error() string {
	why := e.Reason
	if e.Attempts > 1 {
		why = fmt.Sprintf("%s after %d attempts", why, e.Attempts)
	}
	if e.cause != nil {
		why = fmt.Sprintf("%s: %v", why, e.cause)
	}
	return fmt.Sprintf("redlock: %s: %s", why, e.Round.Summary())
}

// Unwrap lets errors.Is match the sentinels and the context's error.
func (e *RoundError) Unwrap() []error {
	errs := append([]error(nil), e.kinds...)
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}
