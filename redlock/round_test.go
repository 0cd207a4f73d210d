package redlock

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRoundSummaryNeverCallsAMasterPending: a round is decided at quorum, or once a quorum is out of reach, and
// a master that had not answered by then is "not awaited", not "pending": issue 34 saw run, with two masters
// dead, say "127.0.0.1:7601: pending" of the healthy one.
func TestRoundSummaryNeverCallsAMasterPending(t *testing.T) {
	r := Round{Op: OpAcquire, Resource: "o1:hot", OK: 0, Quorum: 2, Elapsed: 158 * time.Microsecond, Nodes: []NodeResult{
		{Addr: "127.0.0.1:7601", Outcome: OutcomePending},
		{Addr: "127.0.0.1:7602", Outcome: OutcomeError, Err: errors.New("connection refused")},
		{Addr: "127.0.0.1:7603", Outcome: OutcomeError, Err: errors.New("connection refused")}}}
	got := r.Summary()
	if strings.Contains(got, "pending") || !strings.Contains(got, "127.0.0.1:7601: not awaited (decided before it answered)") ||
		!strings.Contains(got, "127.0.0.1:7602: error (connection refused)") {
		t.Errorf("Summary() = %q; want the healthy master not awaited, the dead ones' errors, and no \"pending\"", got)
	}
}
