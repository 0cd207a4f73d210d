package demoview_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/ui/demoview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// now is the fixed clock of the goldens: the root's testNow.
var now = time.Date(2025, 6, 1, 12, 0, 5, 0, time.UTC)

// Tokens as the Redlock client makes them.
const (
	tokA = "q3VqG8cT1ZpXh0sQm4RkWc2YbLe"
	tokB = "Zx9LmPq2Rt7Vw0Yb3Nc5Hd8Jf1K"
)

// demoView is the demo's room over a real demo, paused, whose own state the constructed news replaces, with
// the real keys, the fixed clock and the ASCII colour profile, w columns wide.
func demoView(t *testing.T, w int) (*kit.Shared, *demoview.DemoView) {
	t.Helper()
	d, err := demo.Start(demo.Options{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	lipgloss.SetColorProfile(termenv.Ascii)
	keys := uitest.KeyMap()
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &keys, Now: func() time.Time { return now },
		Log: &kit.Journal{}, Clipboard: func(string) {}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v := demoview.NewDemoView(sh, ctx, d)
	v.SetSize(w, 10)
	return sh, v
}

// news is constructed demo news: five masters with a fault on each, the crash-restart story's steps and the
// violation it ends in (A and B both believe they hold the lock); step, when not nil, is a stepped run's.
func news(step *demo.StepState) demoview.DemoMsg {
	at := func(ms int) time.Time { return now.Add(time.Duration(ms-3000) * time.Millisecond) }
	ev := func(ms int, kind demo.EventKind, text string) demo.Event {
		return demo.Event{Time: at(ms), Kind: kind, Resource: demo.ScenarioResource, Master: -1, Text: text}
	}
	story := []demo.Event{
		ev(0, demo.EventScenario, "crash-restart 1: begins: Crash, restart at once without persistence"),
		ev(300, demo.EventAcquired, "A acquired ledger:settle on masters 1,2,3 (4,5: timeout), valid for 1.97s"),
		ev(900, demo.EventScenario, "crash-restart 5: master 3 restarts at once, empty: A's key on it is gone"),
		ev(1200, demo.EventAcquired, "B acquired ledger:settle on masters 3,4,5 (1,2: timeout), valid for 1.97s"),
	}
	msg := demoview.DemoMsg{Events: story, Step: step, Rate: 1, At: now,
		Masters: []demo.MasterState{
			{Addr: "127.0.0.1:7001", ClockRate: 1, Partitioned: true},
			{Addr: "127.0.0.1:7002", ClockRate: 1, Latency: 200 * time.Millisecond},
			{Addr: "127.0.0.1:7003", ClockRate: 1, Down: true, RestartAt: now.Add(1800 * time.Millisecond)},
			{Addr: "127.0.0.1:7004", ClockRate: 1, Paused: true},
			{Addr: "127.0.0.1:7005", ClockRate: 2, ClockOffset: 2500 * time.Millisecond},
		}}
	if step == nil {
		msg.Violations = []demo.Violation{{ID: 1, Time: at(1250), Resource: demo.ScenarioResource,
			Kind: demo.ViolationOverlap,
			First: demo.Belief{Client: "A", Resource: demo.ScenarioResource, Token: tokA, Since: at(300),
				Until: at(2270)},
			Second: demo.Belief{Client: "B", Resource: demo.ScenarioResource, Token: tokB, Since: at(1200),
				Until: at(3170)},
			Text: "A and B both believe they hold ledger:settle: A (token q3VqG8cT) until 12:00:04.270, " +
				"B (token Zx9LmPq2) since 12:00:03.200",
			Events: story}}
	}
	return msg
}

// noEscapes fails when an ASCII screen holds escape sequences.
func noEscapes(t *testing.T, view string) {
	t.Helper()
	if strings.Contains(view, "\x1b") {
		t.Errorf("an ASCII screen holds escape sequences: %q", view)
	}
}

// TestGoldenDemoBarAndViolation renders the demo's lines at 120 columns after the constructed news: the
// presenter's bar (the masters' ports, the workload, one violation) and the violation banner naming both
// holders.
func TestGoldenDemoBarAndViolation(t *testing.T) {
	_, v := demoView(t, 120)
	v.Update(news(nil))
	view := v.View()
	noEscapes(t, view)
	for _, want := range []string{"DEMO", "1 violation", "VIOLATION #1", "ledger:settle"} {
		if !strings.Contains(view, want) {
			t.Errorf("the demo's lines lack %q:\n%s", want, view)
		}
	}
	if !v.Violated() {
		t.Error("the banner is not up after a violation")
	}
	golden.RequireEqual(t, []byte(view))
}

// TestGoldenStoryBox renders the demo's lines at 100 columns while a scenario runs step by step: the bar,
// then the story box with the step waiting for the presenter, what it does and why it matters.
func TestGoldenStoryBox(t *testing.T) {
	_, v := demoView(t, 100)
	v.StoryH = 1 // the story box is shown where the layout gives it lines; they follow the step (StoryLines)
	v.Update(news(&demo.StepState{Scenario: "crash-restart", Title: "Crash, restart at once without persistence",
		Step: 4, Steps: 7, Waiting: true,
		Text: "crash-restart 4: master 3 crashes; it runs without persistence",
		Why:  "A holds ledger:settle on masters 1,2,3; with master 3 gone, A's key there goes with it."}))
	v.StoryH = v.StoryLines(100)
	view := v.View()
	noEscapes(t, view)
	if !v.StepsShown() || !strings.Contains(view, "master 3 crashes") || !strings.Contains(view, "space performs it") {
		t.Errorf("the story box does not show the waiting step:\n%s", view)
	}
	golden.RequireEqual(t, []byte(view))
}

// TestGoldenScenarioMenu renders the scenario menu the scenarios key opens (through the demo view's own key
// table), at 100x30, its cursor moved to the second scenario: every scenario of demo.Scenarios by its title, and
// the selected one's story.
func TestGoldenScenarioMenu(t *testing.T) {
	sh, v := demoView(t, 100)
	v.Update(news(nil))
	sh.Outbox = nil
	v.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("m")})
	var menu kit.Modal
	for _, msg := range sh.Outbox {
		if o, ok := msg.(kit.OpenModalMsg); ok {
			menu = o.M
		}
	}
	if _, ok := menu.(*demoview.ScenarioMenu); !ok {
		t.Fatalf("the scenarios key opened %T; told %#v", menu, sh.Outbox)
	}
	menu.SetSize(100, 30)
	menu.Update(tea.KeyMsg{Type: tea.KeyDown})
	view := menu.View()
	noEscapes(t, view)
	for _, sc := range demo.Scenarios() {
		if !strings.Contains(view, sc.Title) {
			t.Errorf("the menu lacks scenario %s:\n%s", sc.Title, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
}
