package redlock

import "testing"

// TestTimingBounds runs the tests that bound how long calls take against node timeouts and proxies' latency.
// It is not parallel, so the testing package runs it before any parallel test starts and apart from the
// contention runs, whose CPU would eat into the bounds. Its cases only wait (on proxies, paused masters and
// deadlines), so without -race they run side by side; with it, one at a time.
func TestTimingBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"CallsDoNotQueueBehindAPipelineInFlight", callsDoNotQueueBehindAPipelineInFlight},
		{"ConnectionSetupHasItsOwnBudget", connectionSetupHasItsOwnBudget},
		{"TryAcquireReturnsByItsDeadline", tryAcquireReturnsByItsDeadline},
		{"PausedMasterDoesNotDelayAcquire", pausedMasterDoesNotDelayAcquire},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !raceDetector {
				t.Parallel()
			}
			c.test(t)
		})
	}
}
