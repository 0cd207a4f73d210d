package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// In a real terminal at 100x30, space in the scenario menu runs a story step by step, and each space
// performs the step announced: the story box counts the steps up to the end, and the table shows the lock.
func TestDemoStepByStepInATerminal(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	s.tmux("resize-window", "-t", pane, "-x", "100", "-y", "30")
	bin := buildBinary(t)
	s.typeText(fmt.Sprintf("%s --demo; echo \"exit=$?\"", bin))
	s.keys("Enter")
	s.waitFor("the five demo masters up", func(screen string) bool { return strings.Contains(screen, "5/5 up") })
	s.keys("w")
	s.waitFor("the workload paused", func(screen string) bool { return strings.Contains(screen, "PAUSED") })
	s.keys("m")
	s.waitFor("the scenario menu", func(screen string) bool { return strings.Contains(screen, "Scenarios · ") })
	s.keys("Down", "Down", "Space") // crash-restart
	const steps = 8
	for k := 1; k < steps; k++ {
		screen := s.waitFor(fmt.Sprintf("step %d of %d waiting", k, steps), func(screen string) bool {
			return strings.Contains(screen, fmt.Sprintf("STEP %d of %d", k, steps)) &&
				strings.Contains(screen, "space performs it")
		})
		if !fitsWidth(screen, 100) {
			t.Errorf("a line is wider than 100 cells at step %d:\n%s", k, screen)
		}
		if k == 4 { // A acquired: its lock is held on the table before the crash
			s.waitFor("A's lock held on the table", func(screen string) bool {
				_, row := rowOf(screen, "ledger:settle")
				return strings.Contains(row, "held")
			})
		}
		s.keys("Space")
	}
	// The last step, which the run only logs, stays in the box until space closes it.
	s.waitFor("the story's last step, over, with its violation", func(screen string) bool {
		return strings.Contains(screen, "VIOLATION") && strings.Contains(screen, fmt.Sprintf("STEP %d of %d", steps, steps)) &&
			strings.Contains(screen, "the story is over") && strings.Contains(screen, "over: mutual exclusion was violated")
	})
	s.keys("Space")
	s.waitFor("the box closed", func(screen string) bool {
		return strings.Contains(screen, "VIOLATION") && !strings.Contains(screen, "STEP ")
	})
	s.keys("q")
	if _, status := waitForExit(s); status != "0" {
		t.Errorf("exit status %s, want 0", status)
	}
}
