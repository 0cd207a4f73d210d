package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The helpers in this file read the whole event log off a tmux screen, page by page, and reconcile it with the
// demo's records in the event file.

// olderInTitle matches the event log's title count of the entries above the screen ("12 older ↑").
var olderInTitle = regexp.MustCompile(`Events[^┓┐]*? ([\d,]+) older ↑`)

// entryStart matches the first line of a log entry: its time and its level glyph.
var entryStart = regexp.MustCompile(`^\d\d:\d\d:\d\d \S `)

// logPage parses the event log filling the screen: the index of its first entry and the entries' texts, each
// wrapped entry joined again.
func logPage(screen string) (top int, texts []string) {
	if m := olderInTitle.FindStringSubmatch(screen); m != nil {
		top, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	}
	for _, line := range strings.Split(screen, "\n") {
		if !strings.HasPrefix(line, "┃") || !strings.HasSuffix(line, "┃") {
			continue
		}
		body := strings.TrimSuffix(strings.TrimPrefix(line, "┃"), "┃")
		switch {
		case entryStart.MatchString(body):
			_, text, _ := strings.Cut(body[len("00:00:00 "):], " ")
			texts = append(texts, strings.TrimRight(text, " "))
		case strings.TrimSpace(body) != "" && len(texts) > 0:
			texts[len(texts)-1] += " " + strings.TrimSpace(body)
		}
	}
	return top, texts
}

// wholeLog pages through the event log, which fills the screen and has the focus, from the top, twenty
// entries at a time, and returns every entry's text in order.
func wholeLog(s *tmuxSession) []string {
	s.t.Helper()
	s.keys("g")
	byIndex := map[int]string{}
	last := -1
	for range 200 {
		screen := steadyScreen(s)
		top, texts := logPage(screen)
		more := strings.Contains(screen, "newer ↓")
		if more && len(texts) > 0 {
			texts = texts[:len(texts)-1] // the bottom entry may be cut short: a later page shows it whole
		}
		for i, t := range texts {
			byIndex[top+i] = t
			last = max(last, top+i)
		}
		if !more {
			break
		}
		s.keys(strings.Split(strings.Repeat("Down ", 20), " ")[:20]...)
		s.waitFor("the log scrolled", func(screen string) bool { t, _ := logPage(screen); return t != top })
	}
	out := make([]string, 0, last+1)
	for i := 0; i <= last; i++ {
		out = append(out, byIndex[i])
	}
	return out
}

// steadyScreen returns the screen once two captures a moment apart agree: a capture taken while the terminal
// redraws may show the new title over the old entries.
func steadyScreen(s *tmuxSession) string {
	s.t.Helper()
	prev := s.screen()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		screen := s.screen()
		if screen == prev {
			return screen
		}
		prev = screen
	}
	s.t.Fatalf("the screen did not settle within 10s:\n%s", prev)
	return prev
}

// routineRecord reports whether a demo record is one of the workload's routine failures, which the screen
// counts on the demo line instead of logging.
func routineRecord(e eventLine) bool {
	return e.Resource != "ledger:settle" && (e.Kind == "acquire-failed" || e.Kind == "crashed")
}

// demoTexts counts the texts of the demo records, but the routine failures, which it counts apart, and returns
// the oldest of those.
func demoTexts(records []eventLine) (texts map[string]int, routine int, oldest time.Time) {
	texts, oldest = map[string]int{}, time.Now()
	for _, e := range records {
		switch {
		case e.Source != "demo":
		case routineRecord(e):
			routine++
			if e.Time.Before(oldest) {
				oldest = e.Time
			}
		default:
			texts[e.Text]++
		}
	}
	return texts, routine, oldest
}

// checkEveryDemoEventOnScreen checks that every demo record of the file at stream is an entry of the screen's
// log, as many times as the file has it, but the routine failures, which the demo line counts over the last
// minute. The file is read before and after the screen, so that a late event of the paused workload counts
// whichever way it falls.
func checkEveryDemoEventOnScreen(t *testing.T, s *tmuxSession, stream string) {
	t.Helper()
	before, routineBefore, oldest := demoTexts(readEvents(t, stream))
	entries := wholeLog(s)
	bar := strings.Split(s.screen(), "\n")[1]
	after, routineAfter, _ := demoTexts(readEvents(t, stream))
	onScreen := map[string]int{}
	for _, text := range entries {
		onScreen[text]++
	}
	logged := 0
	for text, n := range after {
		logged += n
		if onScreen[text] < before[text] || onScreen[text] > n {
			t.Errorf("the file has %d to %d of %q, the screen's log %d", before[text], n, text, onScreen[text])
		}
	}
	if t.Failed() {
		t.Logf("the screen's log, as read:\n%s", strings.Join(entries, "\n"))
	}
	t.Logf("%d entries in the screen's log; %d demo records found there, %d routine ones counted on the demo line",
		len(entries), logged, routineAfter)
	if routineAfter == 0 || time.Since(oldest) > 50*time.Second { // the demo line counts only the last minute's
		return
	}
	counted := 0
	for _, m := range regexp.MustCompile(`(\d+) clients? (?:gave up|crashed)|, (\d+) crashed`).FindAllStringSubmatch(bar, -1) {
		n, _ := strconv.Atoi(m[1] + m[2])
		counted += n
	}
	if counted < routineBefore || counted > routineAfter {
		t.Errorf("the file has %d to %d routine failures, the demo line counts %d: %s", routineBefore, routineAfter,
			counted, bar)
	}
}
