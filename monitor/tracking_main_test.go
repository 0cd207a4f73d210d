package monitor

import (
	"flag"
	"os"
	"testing"
)

// polling runs this package's tests with every master polled, as with --no-tracking: `go test ./monitor
// -args -polling`. Without it masters that allow tracking are tracked, so the tests run in both modes.
var polling = flag.Bool("polling", false, "poll every master: do not track keys (CLIENT TRACKING)")

func TestMain(m *testing.M) {
	flag.Parse()
	trackingByDefault = !*polling
	os.Exit(m.Run())
}
