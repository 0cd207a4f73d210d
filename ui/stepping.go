package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/demo"
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

// stepAction is the Step key: while a stepped run waits, it performs the announced step. It takes the key
// from the panels (space pages them) for as long as such a run is on.
func (v *demoView) stepAction() action {
	return action{binding: &v.sh.keys.Demo.Step, when: func() bool { return v.step != nil },
		can: func() string {
			if v.stepping || !v.step.Waiting {
				return fmt.Sprintf("step %d is being performed", v.step.Step)
			}
			return ""
		},
		do: func(tea.KeyMsg) tea.Cmd {
			v.stepping = true
			v.sh.setStatus(levelInfo, fmt.Sprintf("step %d of %d: %s", v.step.Step, v.step.Steps, v.step.Text))
			return stepCmd(v.ctx, v.d, v.pollNow)
		}}
}

// onStepDone takes in the state after a step.
func (v *demoView) onStepDone(msg stepDoneMsg) {
	v.stepping = false
	v.setState(msg.state)
	if msg.err != nil && !v.quitting {
		v.sh.setStatus(levelWarn, sanitize(msg.err.Error(), textCap))
	}
}

// stepsShown reports whether a stepped run's story takes lines on the screen.
func (v *demoView) stepsShown() bool { return v.step != nil }

// sanitizeStep returns a copy of s with its texts sanitized for the screen, nil for nil.
func sanitizeStep(s *demo.StepState) *demo.StepState {
	if s == nil {
		return nil
	}
	c := *s
	c.Scenario, c.Title, c.Text = sanitize(c.Scenario, nameCap), sanitize(c.Title, textCap), sanitize(c.Text, textCap)
	c.Story, c.Why = sanitize(c.Story, textCap), sanitize(c.Why, textCap)
	return &c
}

// storyView is the stepped run's story box: the step's number of the story's steps, the scenario, what the
// step is about to do and why it matters, in as many lines as the layout gives (storyH). Short of room, what
// the step does is cut before why it matters, since the event log keeps the former.
func (v *demoView) storyView() string {
	st, s := v.sh.st, v.step
	hint := v.sh.keys.Demo.Step.Help().Key + " performs it"
	if v.stepping || !s.Waiting {
		hint = "performing it…"
	}
	head := st.demo.badge.Render(fmt.Sprintf(" STEP %d of %d ", s.Step, s.Steps)) + st.text.muted.Render(" "+hint+
		" · ") + st.header.value.Render(s.Title)
	lines := []string{fitStyled(head, v.w)}
	what, why := v.storyText(v.w)
	room := max(v.storyH-1, 0)
	why = cutLines(why, min(len(why), max(room-1, 0), room-min(len(what), 1)), v.w)
	what = cutLines(what, room-len(why), v.w)
	for _, l := range append(what, why...) {
		lines = append(lines, fitStyled(st.text.normal.Render(l), v.w))
	}
	for len(lines) < v.storyH {
		lines = append(lines, strings.Repeat(" ", v.w))
	}
	return strings.Join(lines, "\n")
}

// cutLines returns the first n of lines, the last of them ending in "…" when some are cut off.
func cutLines(lines []string, n, w int) []string {
	if n <= 0 {
		return nil
	}
	if len(lines) <= n {
		return lines
	}
	out := slices.Clone(lines[:n])
	out[n-1] = ansi.Truncate(out[n-1], w-1, "") + "…"
	return out
}

// storyText is what the announced step is about to do, and why it matters, each wrapped to w cells; the
// first step, which only begins, tells the whole story instead, which says both.
func (v *demoView) storyText(w int) (what, why []string) {
	if v.step.Step == 1 && v.step.Story != "" {
		return indentWrap(v.step.Story, w), nil
	}
	what = indentWrap(strings.TrimPrefix(v.step.Text, fmt.Sprintf("%s %d: ", v.step.Scenario, v.step.Step)), w)
	if v.step.Why != "" {
		why = indentWrap("why: "+v.step.Why, w)
	}
	return what, why
}

// indentWrap wraps text to w cells, each line indented by two.
func indentWrap(text string, w int) []string {
	lines := strings.Split(ansi.Wrap(text, max(w-2, 1), " "), "\n")
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return lines
}

// maxStoryText is how many lines of text the story box shows under its head.
const maxStoryText = 4

// storyLines is how many lines the story box asks for at width w: its head and up to maxStoryText of the
// step's text and why; 0 when no stepped run is on.
func (v *demoView) storyLines(w int) int {
	if v.step == nil {
		return 0
	}
	what, why := v.storyText(w)
	return 1 + min(len(what)+len(why), maxStoryText)
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
func menuMode(k *KeyMap, msg tea.KeyMsg) demo.RunMode {
	switch {
	case key.Matches(msg, k.Demo.Step):
		return demo.StepByStep
	case key.Matches(msg, k.Demo.Slower):
		return demo.SlowMotion
	}
	return demo.AtPace
}
