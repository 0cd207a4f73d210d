package redlock

import (
	"fmt"
	"testing"
)

// round builds a round of op over masters with the given outcomes, quorum N/2+1.
func round(op Op, outcomes ...Outcome) Round {
	r := Round{Op: op, Quorum: len(outcomes)/2 + 1, Nodes: make([]NodeResult, len(outcomes))}
	for i, o := range outcomes {
		r.Nodes[i].Outcome = o
		if o == OutcomeOK {
			r.OK++
		}
	}
	return r
}

func TestProofThatALockIsGone(t *testing.T) {
	t.Parallel()
	const (
		ok      = OutcomeOK
		gone    = OutcomeGone
		other   = OutcomeHeldByOther
		errored = OutcomeError
		timeout = OutcomeTimeout
		pending = OutcomePending
		replica = OutcomeReplica
	)
	for _, tc := range []struct {
		r    Round
		want bool
	}{
		{round(OpRelease, ok, ok, ok), true},
		{round(OpRelease, ok, errored, errored), false},             // two masters may still hold it: a quorum
		{round(OpRelease, ok, gone, errored), true},                 // one at most
		{round(OpRelease, other, replica, timeout), true},           // a replica holds no lock of ours
		{round(OpRelease, pending, pending, gone), false},           // not answered is not gone
		{round(OpExtend, ok, ok, gone), false},                      // an extension that renewed is not gone
		{round(OpExtend, gone, other, ok), true},                    // one master left
		{round(OpExtend, errored, timeout, gone), false},            // errors prove nothing
		{round(OpExtend, gone, gone, gone, errored, errored), true}, // 2 of 5 left
		{round(OpExtend, gone, gone, errored, errored, errored), false},
		{Round{Op: OpRelease}, false}, // no round at all
	} {
		if got := tc.r.ProvesGone(); got != tc.want {
			t.Errorf("%s with %v: ProvesGone %v, want %v", tc.r.Op, outcomesOf(tc.r), got, tc.want)
		}
	}

	lostRound := round(OpExtend, gone, other, errored)
	erroredRound := round(OpExtend, errored, errored, gone)
	for _, tc := range []struct {
		name     string
		err      error
		released bool
		lost     bool
	}{
		{"release nil", nil, true, false},
		{"release not held", releaseError(round(OpRelease, gone, gone, gone), nil), true, false},
		{"release unconfirmed on a quorum", releaseError(round(OpRelease, ok, errored, errored), nil), false, false},
		{"release unconfirmed on a minority", releaseError(round(OpRelease, ok, ok, errored), nil), true, false},
		{"extension refused", &RoundError{Round: lostRound, kinds: []error{ErrLost}}, false, true},
		{"extension failed with errors", &RoundError{Round: erroredRound, kinds: []error{ErrLost}}, false, false},
		{"extension after the validity ran out", fmt.Errorf("extend: %w", ErrLost), false, true},
		{"extension limit", fmt.Errorf("extend: %w", ErrExtendLimit), false, false},
		{"extension failed without proof", &RoundError{Round: erroredRound, kinds: []error{ErrNotExtended}}, false, false},
		{"expired after failed extensions", &LostError{Resource: "r", Cause: LossExpired,
			err: &RoundError{Round: erroredRound, kinds: []error{ErrNotExtended}}}, false, true},
	} {
		if got := ProvesReleased(tc.err); got != tc.released {
			t.Errorf("%s: ProvesReleased %v, want %v", tc.name, got, tc.released)
		}
		if got := ProvesLost(tc.err); got != tc.lost {
			t.Errorf("%s: ProvesLost %v, want %v", tc.name, got, tc.lost)
		}
	}
}
