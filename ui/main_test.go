package ui_test

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestMain silences go-redis's log of failed dials once, before any test runs: the demo's faults and the idle
// locker's absent masters cause them on purpose, and setting the logger while parallel tests dial would race.
func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{})
	os.Exit(m.Run())
}

// quietLogger discards go-redis's log lines.
type quietLogger struct{}

// Printf discards the line.
func (quietLogger) Printf(context.Context, string, ...any) {}
