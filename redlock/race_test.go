//go:build race

package redlock

// raceDetector reports whether the tests run with -race, which multiplies the CPU time they need (see
// TestTimingBounds).
const raceDetector = true
