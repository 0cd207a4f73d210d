package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
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

// TestTheProgramsOwnStoryIsNeverMarked: a scenario's story is the program's text: however long, it is not cut
// by sanitize nor started with the mark of escaped text (issue 34: a stray ‽ started the first step).
func TestTheProgramsOwnStoryIsNeverMarked(t *testing.T) {
	for _, sc := range demo.Scenarios() {
		s := sanitizeStep(&demo.StepState{Scenario: sc.Name, Title: sc.Title, Story: sc.Description, Why: sc.Description,
			Text: sc.Name + " 1: begins: " + sc.Title})
		if s.Story != sc.Description || strings.HasPrefix(s.Why, kit.Mark) || strings.HasPrefix(s.Title, kit.Mark) {
			t.Errorf("%s: the story became %q", sc.Name, s.Story)
		}
	}
}

// TestALongStepSaysItGoesOn: while the presenter's step is performed (one that waits out a lock's TTL takes
// 30 seconds), the box says for how long it has run, not only "performing it…".
func TestALongStepSaysItGoesOn(t *testing.T) {
	now := t0
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &kit.KeyMap{}, Now: func() time.Time { return now }}
	v := &demoView{KeyTable: kit.KeyTable{Sh: sh}, w: 120, storyH: 4,
		step: &demo.StepState{Scenario: "crash-delayed-restart", Step: 4, Steps: 8, Title: "Crash, delayed restart",
			Text: "crash-delayed-restart 4: master 3 stays down for 30.5s, longer than the longest TTL (30s)"},
		stepping: true, stepStarted: now}
	now = now.Add(12 * time.Second)
	if got := v.storyView(); !strings.Contains(got, "performing it… 12s") {
		t.Errorf("12s into a step the box says:\n%s", got)
	}
}

// TestALongStepCountsDown: a step whose wait has a known end (demo.StepState.Until: a master kept down until
// A's validity runs out) counts down to it, and says how it goes on once the end has passed.
func TestALongStepCountsDown(t *testing.T) {
	now := t0
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &kit.KeyMap{}, Now: func() time.Time { return now }}
	v := &demoView{KeyTable: kit.KeyTable{Sh: sh}, w: 120, storyH: 4,
		step: &demo.StepState{Scenario: "crash-delayed-restart", Step: 6, Steps: 9, Title: "Crash, delayed restart",
			Text:  "crash-delayed-restart 6: master 3 stays down for 30.5s, longer than the longest TTL (30s): A's validity runs out meanwhile",
			Until: now.Add(28 * time.Second)},
		stepping: true, stepStarted: now}
	now = now.Add(12 * time.Second)
	if got := v.storyView(); !strings.Contains(got, "performing it… 16s left") {
		t.Errorf("12s into a 28s wait the box says:\n%s", got)
	}
	now = now.Add(20 * time.Second)
	if got := v.storyView(); !strings.Contains(got, "performing it… 32s") || strings.Contains(got, "left") {
		t.Errorf("past the wait's end the box says:\n%s", got)
	}
}

// TestParseTTLSaysItsLimitsInTheVocabularysWords: the acquire form's TTL limits read 24h and 1ms, as the
// rest of the program writes durations (vocab.ExactDuration), not Go's 24h0m0s.
func TestParseTTLSaysItsLimitsInTheVocabularysWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"48h", "the TTL must be at most 24h"},
		{"24h0m1s", "the TTL must be at most 24h"},
		{"500us", "the TTL must be at least 1ms"},
	} {
		if _, err := parseTTL(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("parseTTL(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	if d, err := parseTTL("24h"); err != nil || d != 24*time.Hour {
		t.Errorf("parseTTL(24h) = %v, %v; want 24h, the limit itself", d, err)
	}
}
