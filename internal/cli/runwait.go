package cli

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// acquireWait is what run's acquisition took: how long it waited and how many rounds it ran.
type acquireWait struct {
	start  time.Time
	failed int // rounds that failed
	took   time.Duration
}

// startWait starts timing an acquisition.
func startWait() *acquireWait { return &acquireWait{start: time.Now()} }

// round counts a failed round (redlock.Client.AcquireWithProgress's progress).
func (w *acquireWait) round(int, redlock.Round) { w.failed++ }

// done ends the timing.
func (w *acquireWait) done() { w.took = time.Since(w.start) }

// text says how long the acquisition waited and in how many rounds: "after waiting 1.2s, in 7 rounds" when
// it acquired (its last round won), "gave up after waiting 3.0s, 12 rounds failed" when it did not.
func (w *acquireWait) text(acquired bool) string {
	if acquired {
		return fmt.Sprintf("after waiting %s, in %s", monitor.ShortDuration(w.took), textfmt.Plural(w.failed+1, "round"))
	}
	return fmt.Sprintf("gave up after waiting %s, %s failed", monitor.ShortDuration(w.took), textfmt.Plural(w.failed, "round"))
}
