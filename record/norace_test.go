//go:build !race

package record

// raceDetector reports whether the tests run with -race (race_test.go).
const raceDetector = false
