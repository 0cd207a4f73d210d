package monitor

import (
	"flag"
	"os"
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// polling runs this package's tests with every master polled, as with --no-tracking: `go test ./monitor
// -args -polling`. Without it masters that allow tracking are tracked, so the tests run in both modes.
var polling = flag.Bool("polling", false, "poll every master: do not track keys (CLIENT TRACKING)")

// waitBoundParallel is how many tests per core run at once unless -parallel says otherwise: the tests that
// run in parallel each own their servers and spend most of their time waiting for polls and expiries, not
// computing, so a core serves several. Not with -race, whose CPU time would make a loaded core late for
// polls: go test's default of one per core then.
const waitBoundParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	trackingByDefault = !*polling
	if !raceDetector {
		redlocktest.WaitBoundParallelism(waitBoundParallel)
	}
	os.Exit(m.Run())
}
