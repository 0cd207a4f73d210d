package redlocktest

import (
	"context"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// sentinelStartLimit bounds how long StartSentinels waits for a group to be ready: its Sentinels find each
// other through the primary every 2 seconds, and a loaded machine is slower.
const sentinelStartLimit = time.Minute

// StartSentinels starts a SentinelGroup with opts (one primary, its replicas and three Sentinels by default,
// real processes: see testbed.StartSentinelGroup) for a test. Without redis-server on PATH it skips tb, or
// fails it when REDLOCK_TEST_REDIS=required. tb.Cleanup closes it.
func StartSentinels(tb testing.TB, opts SentinelOptions) *SentinelGroup {
	tb.Helper()
	RealServers(tb, 0, ServerOptions{}) // skips, or fails, without redis-server
	ctx, cancel := context.WithTimeout(context.Background(), sentinelStartLimit)
	defer cancel()
	g, err := testbed.StartSentinelGroup(ctx, opts)
	if err != nil {
		tb.Fatalf("redlocktest: %v", err)
	}
	tb.Cleanup(func() { g.Close() })
	return g
}
