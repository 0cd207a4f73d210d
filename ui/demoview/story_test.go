package demoview

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

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
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) // t0 of the root's tests
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &kit.KeyMap{}, Now: func() time.Time { return now }}
	v := &DemoView{KeyTable: kit.KeyTable{Shared: sh}, w: 120, StoryH: 4,
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
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) // t0 of the root's tests
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &kit.KeyMap{}, Now: func() time.Time { return now }}
	v := &DemoView{KeyTable: kit.KeyTable{Shared: sh}, w: 120, StoryH: 4,
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
