package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// TestADecidedRoundNeverCallsAMasterPending: a round is decided at quorum, and a master that had not answered
// then is not "pending" (its key usually lands too): the words say it was not awaited (issue 34).
func TestADecidedRoundNeverCallsAMasterPending(t *testing.T) {
	r := kit.ViewRound(redlock.Round{Op: redlock.OpAcquire, OK: 2, Quorum: 2, Nodes: []redlock.NodeResult{
		{Outcome: redlock.OutcomePending}, {Outcome: redlock.OutcomeOK, Latency: time.Millisecond},
		{Outcome: redlock.OutcomeOK, Latency: time.Millisecond}}})
	got := r.Detail()
	if strings.Contains(got, "pending") || !strings.Contains(got, "M1 not awaited (decided before it answered)") {
		t.Errorf("the round's detail is %q; want M1 not awaited, and no \"pending\"", got)
	}
}

// TestTheEventLogKeepsHyphenatedTokensWhole: a token with hyphens wraps as one word, so that a copy of it from
// the screen is the token (issue 34: the log broke "LUktt-A2Woka2g08mJE-ahjT3ew" at its hyphens).
func TestTheEventLogKeepsHyphenatedTokensWhole(t *testing.T) {
	const token = "LUktt-A2Woka2g08mJE-ahjT3ew"
	st := kit.NewStyles(kit.DefaultTheme())
	e := kit.LogEntry{At: t0, Text: `lock-appeared reports:daily: appeared, held by "` + token + `"`}
	for w := 40; w <= 80; w++ {
		lines := kit.LogLines(st, e, w)
		found := false
		for _, l := range lines {
			found = found || strings.Contains(l, token)
		}
		if !found {
			t.Fatalf("at %d cells the token is split across lines:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	// A word longer than a line is still cut into lines, none wider than the line.
	for _, l := range kit.Wrap(strings.Repeat("x", 25)+" y", 10) {
		if len(l) > 10 {
			t.Errorf("wrap left a line of %d cells at 10: %q", len(l), l)
		}
	}
}
