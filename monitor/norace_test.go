//go:build !race

package monitor

// raceDetector reports whether the tests run with -race, which multiplies the CPU time they need (see TestMain).
const raceDetector = false
