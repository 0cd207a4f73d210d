package ui_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// recordTwoHolders records three real masters while "orders:1" is held by token-a, then by token-b on a
// quorum, then split, and returns the recording's player.
func recordTwoHolders(t *testing.T) *record.Player {
	t.Helper()
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	mon, err := monitor.New(clients, redlocktest.Addrs(masters), monitor.Config{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "two.rec")
	w, err := record.Create(path, 0, record.Header{Started: time.Now(), Masters: redlocktest.Addrs(masters),
		Config: monitor.Config{}.Recorded()}, mon.ReadWholeNext)
	if err != nil {
		t.Fatal(err)
	}
	mon.ObservePolls(func(p monitor.Poll) { _ = w.WritePoll(p) })
	set := func(token string, on ...int) {
		for _, i := range on {
			if err := clients[i].Set(context.Background(), "orders:1", token, time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	poll := func(n int) {
		for range n {
			mon.Poll(context.Background())
		}
	}
	set("token-a", 0, 1, 2)
	poll(3)
	set("token-b", 0, 1, 2)
	poll(3)
	set("token-c", 0)
	set("token-d", 1)
	poll(3)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return record.NewPlayer(rec, nil)
}

// TestTheReplayDashboardMovesThroughTheRecording is issue 36's replay dashboard: read-only, a time cursor in
// the header, stepping one poll back and forth changes the table as recorded, and jumping to the next error
// or warning lands on the overwrite (token-b set over token-a without NX), then on the split.
func TestTheReplayDashboardMovesThroughTheRecording(t *testing.T) {
	t.Parallel()
	p := recordTwoHolders(t)
	d := drive(t, newDashboard(ui.Options{Replay: p}, 140, 44))
	d.exec(d.m.Init())
	d.waitView("REPLAY")
	d.waitView("token-a")
	if v := d.m.View(); !strings.Contains(v, "poll 1/") || !strings.Contains(v, "PAUSED") {
		t.Fatalf("the replay does not start paused at its first poll:\n%s", v)
	}
	for range 3 {
		d.press(".")
	}
	d.waitView("token-b")
	d.waitView("poll 4/")
	d.press(",")
	d.waitView("token-a")
	d.waitView("poll 3/")
	d.press("enter") // the lock's view follows the cursor, stepped from inside it
	d.waitView("Lock orders:1")
	d.press(".")
	d.waitFor("the lock's view at poll 4, token-b holding", func(v string) bool {
		return strings.Contains(v, "Lock orders:1") && strings.Contains(v, "poll 4/") && strings.Contains(v, "token-b")
	})
	d.press(",")
	d.waitFor("the lock's view back at poll 3, token-a holding", func(v string) bool {
		return strings.Contains(v, "Lock orders:1") && strings.Contains(v, "poll 3/") && strings.Contains(v, "token-a") &&
			!strings.Contains(v, "token-b")
	})
	d.press("esc")
	d.press("}") // token-b was set over token-a's live key without NX: an overwrite, the first error, told by
	// the poll after the one that showed token-b (its counters confirm no DEL ran there)
	d.waitFor("the overwrite", func(v string) bool { return strings.Contains(v, "poll 5/") && strings.Contains(v, "overwritten") })
	d.press("}")
	d.waitFor("the split", func(v string) bool { return strings.Contains(v, "split") && strings.Contains(v, "token-c") })
	d.press("a")
	if v := d.m.View(); strings.Contains(v, "Acquire") && strings.Contains(v, "resource") {
		t.Errorf("a replay opened the acquire form:\n%s", v)
	}
	d.press("t") // go to a moment: a wrong one, or one outside the recording, is refused in the form; "end" is the last poll
	d.waitView("Go to a moment")
	d.typeText("yesterday")
	d.press("enter")
	d.waitView("want a time such as")
	for range len("yesterday") {
		d.press("backspace")
	}
	d.typeText("+1h") // past the end: refused, naming the span, not taken for the last poll
	d.press("enter")
	d.waitView("is after the recording ended")
	for range len("+1h") {
		d.press("backspace")
	}
	d.typeText("end")
	d.press("enter")
	d.waitFor("the last poll", func(v string) bool {
		return strings.Contains(v, fmt.Sprintf("poll %d/%d", p.Len(), p.Len())) && !strings.Contains(v, "Go to a moment")
	})
	d.press("^")
	d.waitFor("the first poll, its event log as it stood then", func(v string) bool {
		return strings.Contains(v, "poll 1/") && strings.Contains(v, "token-a") && !strings.Contains(v, "token-c")
	})
	d.press("+", "+", "p") // play at 5x to the end
	d.waitFor("the end of the recording", func(v string) bool {
		return strings.Contains(v, "end of the recording") && strings.Contains(v, "token-c")
	})
}

// TestTheReplayJumpsToTheDemosViolationsBothWays: { and } reach the errors a recording holds besides the
// monitor's (a demo's violation, a dashboard's failure), backwards as well as forwards.
func TestTheReplayJumpsToTheDemosViolationsBothWays(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 27, 3, 12, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "demo.rec")
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
	for _, e := range []events.Record{
		{Time: start.Add(3500 * time.Millisecond), Source: events.SourceDemo, Kind: "violation", Severity: monitor.SeverityError,
			Text: "two clients held orders:1 at once"},
		{Time: start.Add(6500 * time.Millisecond), Source: events.SourceDashboard, Kind: events.KindReleaseUnconfirmed,
			Severity: monitor.SeverityWarning, Text: "a release some masters did not confirm"},
	} {
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	d := drive(t, newDashboard(ui.Options{Replay: record.NewPlayer(rec, nil)}, 140, 44))
	d.exec(d.m.Init())
	d.waitView("poll 1/10")
	d.press("}") // the poll after the violation, whose event log holds it
	d.waitView("poll 5/10")
	d.waitFor("the violation in the status line, stamped with the poll's time, and in the log", func(v string) bool {
		return strings.Count(v, "two clients held orders:1 at once") == 2 &&
			strings.Contains(v, "03:12:04 • error or warning at 03:12:03.500")
	})
	d.press("}")
	d.waitView("poll 8/10")
	d.press("{")
	d.waitView("poll 5/10")
	d.press("{") // the first poll's banner warnings (one master, its first scan) are moments too (issue 42)
	d.waitView("poll 1/10")
	d.press("{")
	d.waitView("no error or warning before this moment")
}
