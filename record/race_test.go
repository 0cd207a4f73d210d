//go:build race

package record

// raceDetector reports whether the tests run with -race, whose shadow memory is no part of what the program
// holds: the tests that measure a process's peak memory skip then (.ci/run runs them without -race).
const raceDetector = true
