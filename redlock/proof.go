package redlock

import "errors"

// ProvesGone reports whether the round proves the lock's token is no longer
// on a quorum of masters: so many masters answered that it is not there
// (deleted by this release, no key, another holder's key) or that they are
// replicas, which hold no lock of their own, that those which may still hold
// it (they failed, timed out or had not answered) are fewer than a quorum.
// A round that failed with errors proves nothing: the keys may still hold the
// token.
func (r Round) ProvesGone() bool {
	if len(r.Nodes) == 0 || r.Quorum == 0 {
		return false
	}
	notOurs := 0
	for _, n := range r.Nodes {
		switch n.Outcome {
		case OutcomeGone, OutcomeHeldByOther, OutcomeReplica:
			notOurs++
		case OutcomeOK:
			if r.Op == OpRelease {
				notOurs++
			}
		}
	}
	return len(r.Nodes)-notOurs < r.Quorum
}

// ProvesReleased reports whether a release (Lock.Release, ReleaseToken) that
// returned err ended the lock: it succeeded, found the lock on no master, or
// enough masters confirmed that the token cannot be on a quorum any more.
func ProvesReleased(err error) bool {
	if err == nil || errors.Is(err, ErrNotHeld) {
		return true
	}
	var re *RoundError
	return errors.As(err, &re) && re.Round.Op == OpRelease && re.Round.ProvesGone()
}

// ProvesLost reports whether a failed Lock.Extend or Lock.Check, or a
// Keeper's loss, proves the lock lost: the masters answered that the token is
// not on a quorum, or the validity ran out (a *LostError says which). An
// extension that failed with errors or timeouts does not: the keys may still
// hold the token until the validity it had.
func ProvesLost(err error) bool {
	var le *LostError
	if errors.As(err, &le) {
		return true
	}
	if !errors.Is(err, ErrLost) {
		return false
	}
	var re *RoundError
	return !errors.As(err, &re) || re.Round.ProvesGone()
}
