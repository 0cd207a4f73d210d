package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestMemoryLimitGrowsWithTheLocksAndTheMasters(t *testing.T) {
	base := memoryLimit(100_000, 5)
	if more := memoryLimit(200_000, 5); more <= base {
		t.Errorf("twice the keys: limit %d, not above %d", more, base)
	}
	if more := memoryLimit(100_000, 7); more <= base {
		t.Errorf("more masters: limit %d, not above %d", more, base)
	}
	if demo := memoryLimit(100_000, 0); demo <= 0 || demo >= base {
		t.Errorf("no masters given (the demo's): limit %d, want positive and below %d", demo, base)
	}
}

func TestTuneMemoryLeavesGOGCAndGOMEMLIMITToTheUser(t *testing.T) {
	prevPercent, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) })
	env := func(vars map[string]string) Environment {
		return Environment{Getenv: func(k string) string { return vars[k] }}
	}

	tuneMemory(env(nil), 100_000, 5)
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != memoryLimit(100_000, 5) {
		t.Errorf("memory limit %d, want %d", got, memoryLimit(100_000, 5))
	}

	tuneMemory(env(map[string]string{"GOGC": "200", "GOMEMLIMIT": "1GiB"}), 100_000, 5)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: memory limit changed to %d", got)
	}
}
