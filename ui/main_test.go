package ui_test

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestMain silences go-redis's log of failed dials once, before any test runs: the demo's faults and the idle
// locker's absent masters cause them on purpose, and setting the logger while parallel tests dial would race.
// Without -race two parallel tests run per CPU: they own their masters or demos and mostly wait on them.
func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{})
	if !raceDetector {
		redlocktest.WaitBoundParallelism(2)
	}
	os.Exit(m.Run())
}

// quietLogger discards go-redis's log lines.
type quietLogger struct{}

// Printf discards the line.
func (quietLogger) Printf(context.Context, string, ...any) {}

// parallelUnlessRace runs t beside the other parallel tests, except under -race: there the demos' CPU time
// would starve each other's clients, which wait for a master only a node timeout, so they run one at a time.
func parallelUnlessRace(t *testing.T) {
	if !raceDetector {
		t.Parallel()
	}
}

// patient returns o for a demo whose clients wait longer for a master (MaxTTL/4): beside other tests' demos,
// or under -race on a loaded machine, a starved client must not take a master for failed, so that a story's
// outcome does not hang on the machine's speed.
func patient(o demo.Options) demo.Options {
	o.NodeTimeout = demo.MaxTTL / 4
	return o
}
