package demoview

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// A scenario run step by step (demo.StepByStep) announces each step and waits: the story box under the demo
// line says which step of how many, and what it is about to do; the Step key performs it, and once the run
// has announced the next step the monitor polls at once, so that the table shows what the step did before
// the presenter moves on.

// stepDoneMsg answers the presenter's step: done (the next step announced, or the run over), or why not.
type stepDoneMsg struct {
	err   error
	state DemoMsg
}

// stepCmd performs the announced step, asks for a poll at once when it is done, and reads the demo's state.
func stepCmd(ctx context.Context, d *demo.Demo, pollNow func()) tea.Cmd {
	return func() tea.Msg {
		_, _, err := d.Step(ctx)
		if pollNow != nil {
			pollNow()
		}
		return stepDoneMsg{err: err, state: readDemo(d)}
	}
}

// stepAction is the Step key: while a stepped run waits, it performs the announced step; once the run is
// over, it closes the box that shows its last step. It takes the key from the panels (space pages them) for as
// long as the box is up.
func (v *DemoView) stepAction() kit.Action {
	return kit.Action{Binding: &v.Shared.Keys.Demo.Step, When: v.StepsShown,
		Can: func() string {
			if v.step != nil && (v.stepping || !v.step.Waiting) {
				return fmt.Sprintf("step %d is being performed", v.step.Step)
			}
			return ""
		},
		Do: func(tea.KeyMsg) tea.Cmd {
			if v.step == nil { // the run is over: its last step was shown until now
				v.final = nil
				return nil
			}
			v.stepping, v.stepStarted = true, v.Shared.Now()
			v.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("step %d of %d: %s", v.step.Step, v.step.Steps, v.step.Text))
			return stepCmd(v.ctx, v.d, v.PollNow)
		}}
}

// closeStoryAction is Cancel while the box shows a run's last step: it closes the box, as the Step key does.
func (v *DemoView) closeStoryAction() kit.Action {
	return kit.Action{Binding: &v.Shared.Keys.Cancel, When: func() bool { return v.step == nil && v.final != nil },
		Do: func(tea.KeyMsg) tea.Cmd { v.final = nil; return nil }}
}

// finalStep is the box's state once a stepped run is over: its last step (the story's end, "over: ..."), of
// as many as it logged, and how it ended; nil when it logged none. A stepped run announces each step but the
// last, which it only logs; the box shows it until the presenter moves on, so that a story never ends
// without its last step.
func finalStep(res demo.ScenarioResult) *demo.StepState {
	if len(res.Steps) == 0 {
		return nil
	}
	last := res.Steps[len(res.Steps)-1]
	why := "mutual exclusion held"
	if res.Violated {
		why = "mutual exclusion was violated"
	}
	if res.Expected {
		why += ", as the story says"
	} else {
		why += ": NOT as the story says"
	}
	return sanitizeStep(&demo.StepState{Scenario: res.Scenario.Name, Title: res.Scenario.Title, Step: len(res.Steps),
		Steps: max(res.Scenario.Steps, len(res.Steps)), Text: last.Text, Why: why})
}

// onStepDone takes in the state after a step.
func (v *DemoView) onStepDone(msg stepDoneMsg) {
	v.stepping = false
	v.setState(msg.state)
	if msg.err != nil && !v.quitting {
		v.Shared.TellStatus(monitor.SeverityWarning, kit.Sanitize(msg.err.Error(), kit.TextCap))
	}
}

// StepsShown reports whether a stepped run's story takes lines on the screen: while the run is on, and then
// its last step, until the presenter moves on.
func (v *DemoView) StepsShown() bool { return v.step != nil || v.final != nil }

// shownStep is the step the story box shows: the one announced, or the last of a run that is over.
func (v *DemoView) shownStep() *demo.StepState {
	if v.step != nil {
		return v.step
	}
	return v.final
}

// storyCap is the width cap of a step's texts: the demo's own words, a whole story long, which sanitize must
// not cut (a cut would start them with the mark of changed text, and end them short); the box cuts them to
// its room itself.
const storyCap = 4096

// sanitizeStep returns a copy of s with its texts sanitized for the screen, nil for nil.
func sanitizeStep(s *demo.StepState) *demo.StepState {
	if s == nil {
		return nil
	}
	c := *s
	c.Scenario, c.Title, c.Text = kit.Sanitize(c.Scenario, kit.NameCap), kit.Sanitize(c.Title, storyCap), kit.Sanitize(c.Text, storyCap)
	c.Story, c.Why = kit.Sanitize(c.Story, storyCap), kit.Sanitize(c.Why, storyCap)
	return &c
}

// storyView is the stepped run's story box: the step's number of the story's steps, the scenario, what the
// step is about to do and why it matters, in as many lines as the layout gives (storyH). Short of room, what
// the step does is cut before why it matters, since the event log keeps the former.
func (v *DemoView) storyView() string {
	st, s := v.Shared.St, v.shownStep()
	hint := v.Shared.Keys.Demo.Step.Help().Key + " performs it"
	switch {
	case v.step == nil: // the run is over
		hint = "the story is over: " + v.Shared.Keys.Demo.Step.Help().Key + " or " + v.Shared.Keys.Cancel.Help().Key + " closes"
	case v.stepping && s.Until.After(v.Shared.Now()): // a wait of a known length: count it down
		hint = kit.Spinner[v.Shared.Frame%len(kit.Spinner)] + " performing it… " + vocab.ShortDuration(s.Until.Sub(v.Shared.Now())) + " left"
	case v.stepping && !v.stepStarted.IsZero(): // a step may wait out a lock's TTL: say that it goes on
		hint = kit.Spinner[v.Shared.Frame%len(kit.Spinner)] + " performing it… " + vocab.ShortDuration(v.Shared.Now().Sub(v.stepStarted)) +
			" (one that waits out a TTL takes as long)"
	case v.stepping || !s.Waiting:
		hint = kit.Spinner[v.Shared.Frame%len(kit.Spinner)] + " performing it…"
	}
	head := st.Demo.Badge.Render(fmt.Sprintf(" STEP %d of %d ", s.Step, s.Steps)) + st.Text.Muted.Render(" "+hint+
		" · ") + st.Header.Value.Render(s.Title)
	lines := []string{kit.FitStyled(head, v.w)}
	what, why := v.storyText(v.w)
	room := max(v.StoryH-1, 0)
	why = kit.CutLines(why, min(len(why), max(room-1, 0), room-min(len(what), 1)), v.w)
	what = kit.CutLines(what, room-len(why), v.w)
	for _, l := range append(what, why...) {
		lines = append(lines, kit.FitStyled(st.Text.Normal.Render(l), v.w))
	}
	for len(lines) < v.StoryH {
		lines = append(lines, strings.Repeat(" ", v.w))
	}
	return strings.Join(lines, "\n")
}

// storyText is what the announced step is about to do, and why it matters, each wrapped to w cells; the
// first step, which only begins, tells the whole story instead, which says both.
func (v *DemoView) storyText(w int) (what, why []string) {
	s := v.shownStep()
	if s.Step == 1 && s.Story != "" {
		return indentWrap(s.Story, w), nil
	}
	what = indentWrap(strings.TrimPrefix(s.Text, fmt.Sprintf("%s %d: ", s.Scenario, s.Step)), w)
	switch {
	case v.step == nil && s.Why != "": // the run is over: how it ended
		why = indentWrap(s.Why, w)
	case s.Why != "":
		why = indentWrap("why: "+s.Why, w)
	}
	return what, why
}

// indentWrap wraps text to w cells, each line indented by two.
func indentWrap(text string, w int) []string {
	lines := kit.Wrap(text, max(w-2, 1))
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return lines
}

// maxStoryText is how many lines of text the story box shows under its head: a story's whole first step from
// 100 columns; below, narrowStoryText, so that the panels keep their rows on a small screen.
const (
	maxStoryText    = 6
	narrowStoryText = 4
)

// StoryLines is how many lines the story box asks for at width w: its head and up to maxStoryText of the
// step's text and why; 0 when no stepped run is on.
func (v *DemoView) StoryLines(w int) int {
	if !v.StepsShown() {
		return 0
	}
	what, why := v.storyText(w)
	most := maxStoryText
	if w < 100 {
		most = narrowStoryText
	}
	return 1 + min(len(what)+len(why), most)
}

// modeText says how a scenario started in mode runs, for the status line.
func modeText(mode demo.RunMode, stepKey string) string {
	switch mode {
	case demo.StepByStep:
		return "runs step by step: " + stepKey + " performs each step"
	case demo.SlowMotion:
		return "runs in slow motion: its steps show in the event log"
	}
	return "running: its steps show in the event log"
}

// modeTag marks a scenario running in a presenter's mode on the demo line: " (slow)", " (steps)", or "".
func modeTag(mode demo.RunMode) string {
	switch mode {
	case demo.StepByStep:
		return " (steps)"
	case demo.SlowMotion:
		return " (slow)"
	}
	return ""
}

// menuMode is the run mode the scenario menu's key msg asks for.
func menuMode(k *kit.KeyMap, msg tea.KeyMsg) demo.RunMode {
	switch {
	case key.Matches(msg, k.Demo.Step):
		return demo.StepByStep
	case key.Matches(msg, k.Demo.Slower):
		return demo.SlowMotion
	}
	return demo.AtPace
}
