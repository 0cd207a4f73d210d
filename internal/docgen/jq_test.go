package docgen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
)

// TestJQRecipesAnswerFromAStream runs each jq command of docs/events.md, as the page writes it, on a stream
// the events writer wrote: billing:nightly held by token A from 11:58, taken over by B at 12:05 (so A held it
// at 12:00); two takeovers of another lock in the last minute and one before it; a master down, then up.
func TestJQRecipesAnswerFromAStream(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (CI installs it)")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := events.NewWriter(f)
	at := func(hh, mm int) time.Time { return time.Date(2026, 6, 2, hh, mm, 0, 456_000_000, time.UTC) }
	now := time.Now()
	for _, r := range []events.Record{
		{Time: at(11, 58), Source: events.SourceMonitor, Kind: events.KindAlreadyHeld, Resource: "billing:nightly", Token: "token-A"},
		{Time: at(11, 59), Source: events.SourceMonitor, Kind: "master-down", Master: "10.0.0.2:6379"},
		{Time: at(12, 3), Source: events.SourceMonitor, Kind: "master-up", Master: "10.0.0.2:6379"},
		{Time: at(12, 5), Source: events.SourceMonitor, Kind: "taken-over", Resource: "billing:nightly", Token: "token-B"},
		{Time: now.Add(-10 * time.Minute), Source: events.SourceMonitor, Kind: "taken-over", Resource: "cache", Token: "c1"},
		{Time: now.Add(-5 * time.Second), Source: events.SourceMonitor, Kind: "taken-over", Resource: "cache", Token: "c2"},
		{Time: now.Add(-time.Second), Source: events.SourceMonitor, Kind: "taken-over", Resource: "cache", Token: "c3"},
	} {
		w.Emit(r)
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := []string{"token-A", "2",
		"2026-06-02T11:59:00.456Z master-down 10.0.0.2:6379\n2026-06-02T12:03:00.456Z master-up 10.0.0.2:6379"}
	page := string(generate(t, Events))
	for i, r := range JQRecipes {
		if !strings.Contains(page, "```sh\n"+r.Command+"\n```") {
			t.Errorf("docs/events.md does not show the command of %q as it is run", r.Question)
		}
		cmd := exec.Command("sh", "-c", r.Command)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s\n%s: %v\n%s", r.Question, r.Command, err, out)
			continue
		}
		if got := strings.TrimSpace(string(out)); got != want[i] {
			t.Errorf("%s\n%s\nanswers %q; want %q", r.Question, r.Command, got, want[i])
		}
	}
}
