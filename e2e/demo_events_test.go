package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The test in this file runs the dashboard in demo mode with --events and --metrics, and checks that the
// screen, the event file and the metrics each get every event of the demo (issue 23: one event stream, many
// readers).

// demoKindCounts counts the demo's records in the event file, by kind.
func demoKindCounts(events []eventLine) map[string]int {
	out := map[string]int{}
	for _, e := range events {
		if e.Source == "demo" {
			out[e.Kind]++
		}
	}
	return out
}

// scenarioSteps counts the steps of scenario name in the event file ("crash-restart 3: ...").
func scenarioSteps(events []eventLine, name string) int {
	n := 0
	for _, e := range events {
		if e.Source == "demo" && e.Kind == "scenario" && strings.HasPrefix(e.Text, name+" ") {
			n++
		}
	}
	return n
}

// over reports whether the event file has the last step of scenario name.
func over(events []eventLine, name string) bool {
	for _, e := range events {
		if e.Kind == "scenario" && strings.HasPrefix(e.Text, name+" ") && strings.Contains(e.Text, ": over:") {
			return true
		}
	}
	return false
}

// stepsOnScreen returns the step numbers of scenario name that the screen shows ("crash-restart 3:").
func stepsOnScreen(screen, name string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:^|[ │])`+regexp.QuoteMeta(name)+` (\d+):`).FindAllStringSubmatch(screen, -1) {
		out[m[1]] = true
	}
	return out
}

// runScenarioFromMenu opens the scenario menu, moves down to the scenario at index i and runs it.
func runScenarioFromMenu(s *tmuxSession, i int) {
	s.keys("m")
	s.waitFor("the scenario menu", func(screen string) bool { return strings.Contains(screen, "Scenarios · ") })
	for range i {
		s.keys("Down")
	}
	s.keys("Enter")
}

// fileAgreesWithMetrics waits until the metrics at port count every demo event of the file at stream, kind by
// kind, and the violations alike (the paused workload goes quiet), and returns the file's counts.
func fileAgreesWithMetrics(t *testing.T, stream string, port int) map[string]int {
	t.Helper()
	h := &headless{t: t, metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", port)}
	var file map[string]int
	eventually(t, "the metrics counting every demo event of the file, kind by kind", func() (bool, string) {
		m, err := h.scrape()
		if err != nil {
			return false, err.Error()
		}
		file = demoKindCounts(readEvents(t, stream))
		for kind, n := range file {
			if m[fmt.Sprintf(`redlock_demo_events_total{kind=%q}`, kind)] != float64(n) {
				return false, fmt.Sprintf("file %v, metrics %v", file, m.series("redlock_demo_events_total"))
			}
		}
		viol := m["redlock_violations_total"]
		return len(m.series("redlock_demo_events_total")) == len(file) && viol == float64(file["violation"]),
			fmt.Sprintf("file %v, metrics %v, violations_total %v", file, m.series("redlock_demo_events_total"), viol)
	})
	return file
}

func TestDemoEventsReachTheScreenTheFileAndTheMetricsAlike(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	s.tmux("resize-window", "-t", pane, "-x", "200", "-y", "50")
	bin := buildBinary(t)
	port := freeLoopbackPort(t)
	stream := filepath.Join(t.TempDir(), "events.jsonl")
	s.typeText(fmt.Sprintf("%s --demo --metrics 127.0.0.1:%d --events %s; echo \"exit=$?\"", bin, port, stream))
	s.keys("Enter")
	s.waitFor("the five demo masters up", func(screen string) bool { return strings.Contains(screen, "5/5 up") })
	s.keys("w") // the workload pauses, so that the counts settle
	s.waitFor("the workload paused", func(screen string) bool { return strings.Contains(screen, "PAUSED") })

	stories := []struct {
		index int
		name  string
	}{{2, "crash-restart"}, {3, "crash-delayed-restart"}}
	for _, st := range stories {
		runScenarioFromMenu(s, st.index)
		eventually(t, st.name+"'s last step in the event file", func() (bool, string) {
			return over(readEvents(t, stream), st.name), st.name + " not over"
		})
	}

	file := fileAgreesWithMetrics(t, stream, port)
	if file["violation"] == 0 || file["scenario"] == 0 || file["fault"] == 0 {
		t.Fatalf("the scenarios logged no violation, step or fault: %v", file)
	}

	// The screen: the violations on the demo bar, and every step of each story in the enlarged, searched log.
	s.waitFor("the violations on the demo bar", func(screen string) bool {
		return strings.Contains(screen, fmt.Sprintf("%d violation", file["violation"]))
	})
	s.keys("E")
	all := readEvents(t, stream)
	total := 0
	for _, st := range stories {
		want := scenarioSteps(all, st.name)
		total += want
		s.keys("/")
		s.typeText(st.name + " ")
		s.keys("Enter")
		screen := s.waitFor(fmt.Sprintf("the %d steps of %s in the log", want, st.name), func(screen string) bool {
			return len(stepsOnScreen(screen, st.name)) == want
		})
		for i := 1; i <= want; i++ {
			if !stepsOnScreen(screen, st.name)[fmt.Sprint(i)] {
				t.Errorf("step %d of %s is not on the screen:\n%s", i, st.name, screen)
			}
		}
		s.keys("Escape") // clears the search
		// The next key waits for it: sent at once after Escape, a key can reach the program as alt+key.
		s.waitFor("the search for "+st.name+" cleared", func(screen string) bool {
			return !strings.Contains(screen, "/"+st.name)
		})
	}
	if total != file["scenario"] {
		t.Errorf("the stories' steps number %d, the file has %d scenario events", total, file["scenario"])
	}
	checkEveryDemoEventOnScreen(t, s, stream)
	s.keys("q", "q") // the first closes the enlarged log, as q closes every view; the second quits
	if _, status := waitForExit(s); status != "0" {
		t.Errorf("exit status %s, want 0", status)
	}
}
