package demo

import (
	"os"
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestMain lets two parallel tests per CPU run: each owns its demo, whose stories spend their time waiting on
// paces and TTLs rather than computing.
func TestMain(m *testing.M) {
	redlocktest.WaitBoundParallelism(2)
	os.Exit(m.Run())
}

// parallelUnlessRace runs t beside the other parallel tests, except under -race: there the demos' CPU time
// would starve each other's clients, which wait for a master only a node timeout, so they run one at a time.
func parallelUnlessRace(t *testing.T) {
	if !raceDetector {
		t.Parallel()
	}
}
