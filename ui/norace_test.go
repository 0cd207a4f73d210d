//go:build !race

package ui_test

// raceDetector reports whether the tests run with -race, which multiplies the CPU time they need (see
// parallelUnlessRace).
const raceDetector = false
