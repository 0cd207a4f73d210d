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

// ErrLost matches operations on a lock that is no longer held: a failed
// extension, or an extension after the lock lapsed or was released.
var ErrLost = errors.New("redlock: lock lost")

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
