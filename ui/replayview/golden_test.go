package replayview_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/replayview"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// start is when the fixed recording begins.
var start = time.Date(2026, 11, 27, 3, 12, 0, 0, time.UTC)

// recording is a fixed recording of one master polled once a second for ten seconds, with a demo's violation
// at 03:12:03.500 among its events, written and read back through package record.
func recording(t *testing.T) *record.Player {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixed.rec")
	w, err := record.Create(path, 0, record.Header{Started: start, Masters: []string{"a:1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		at := start.Add(time.Duration(i) * time.Second)
		if err := w.WritePoll(monitor.Poll{Time: at, Readings: []monitor.Reading{{Addr: "a:1", Role: "master",
			Sent: at, Received: at, ServerTime: at}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEvent(events.Record{Time: start.Add(3500 * time.Millisecond), Source: events.SourceDemo,
		Kind: "violation", Severity: monitor.SeverityError, Text: "two clients held orders:1 at once"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return record.NewPlayer(rec, nil)
}

// replayer is the replay's room over the fixed recording, with the real keys and the ASCII colour profile,
// its first poll arrived as the root hands it over.
func replayer(t *testing.T) (*kit.Shared, *replayview.Replayer) {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	keys := uitest.KeyMap()
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &keys, Log: &kit.Journal{}, Clipboard: func(string) {}}
	r := replayview.NewReplayer(sh, recording(t), time.Time{})
	sh.Now = func() time.Time { return r.Clock }
	arrive(t, r, r.Init())
	return sh, r
}

// arrive runs cmd, the snapshot of a poll rebuilt, and hands it to r as the root does.
func arrive(t *testing.T, r *replayview.Replayer, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no poll asked for")
	}
	msg, ok := cmd().(replayview.ReplayMsg)
	if !ok || !r.Arrived(msg) {
		t.Fatalf("the poll asked for did not arrive: %#v", msg)
	}
}

// press is the key a user types: a rune, or a named key.
func press(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// TestGoldenReplayBar keeps the header's time cursor (HeaderPart) at three moments of the fixed recording, a
// line each: paused at the first poll; after } at the poll that follows the violation, the status saying so;
// playing at 2x.
func TestGoldenReplayBar(t *testing.T) {
	sh, r := replayer(t)
	lines := []string{r.HeaderPart(sh.St)}
	sh.Outbox = nil
	_, cmd := r.Update(press("}"))
	arrive(t, r, cmd)
	lines = append(lines, r.HeaderPart(sh.St))
	for _, msg := range sh.Outbox {
		if s, ok := msg.(kit.StatusMsg); ok {
			lines = append(lines, "status: "+s.Text)
		}
	}
	r.TogglePlay()
	r.ChangeSpeed(-1) // faster, as Faster polls faster
	lines = append(lines, r.HeaderPart(sh.St))
	view := strings.Join(lines, "\n")
	for _, want := range []string{"poll 1/10 PAUSED", "03:12:04.000 poll 5/10", "error or warning at 03:12:03.500",
		"▶ 2x"} {
		if !strings.Contains(view, want) {
			t.Errorf("the replay's bar lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b") {
		t.Errorf("an ASCII screen holds escape sequences: %q", view)
	}
	golden.RequireEqual(t, []byte(view))
}

// TestGoldenSeekForm renders the seek form the seek key opens, at 80 columns: with a moment typed, and with
// one outside the recording refused, the error naming the recording's span.
func TestGoldenSeekForm(t *testing.T) {
	for _, tc := range []struct {
		name, typed, want string
		confirm           bool
	}{
		{"typed", "+5s", "from 2026-11-27 03:12:00 to 03:12:09", false},
		{"refused", "04:00:00", "04:00:00", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, r := replayer(t)
			sh.Outbox = nil
			r.Update(press("t"))
			var f kit.Modal
			for _, msg := range sh.Outbox {
				if o, ok := msg.(kit.OpenModalMsg); ok {
					f = o.M
				}
			}
			if f == nil {
				t.Fatalf("the seek key opened no form; told %#v", sh.Outbox)
			}
			f.SetSize(80, 24)
			for _, c := range tc.typed {
				f.Update(press(string(c)))
			}
			if tc.confirm {
				if next, _ := f.Update(press("enter")); next == nil {
					t.Fatal("a moment outside the recording closed the form")
				}
			}
			view := f.View()
			if !strings.Contains(view, "Go to a moment") || !strings.Contains(view, tc.want) {
				t.Errorf("the seek form lacks %q:\n%s", tc.want, view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}
