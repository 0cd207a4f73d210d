package testbed

import "os"

// SoakEnv names the environment variable that gives soak, contention and ground-truth tests their full
// length: with SoakEnv=full (CI sets it) they run as long as they were written to; otherwise they run a
// shorter version, so that `go test ./...` stays a contributor's loop of a few minutes.
const SoakEnv = "REDLOCK_TEST_SOAK"

// FullSoak reports whether SoakEnv asks for full-length soaks.
func FullSoak() bool { return os.Getenv(SoakEnv) == "full" }

// Soak returns full when SoakEnv asks for full-length soaks, short otherwise: a run length, a round count.
func Soak[T any](short, full T) T {
	if FullSoak() {
		return full
	}
	return short
}
