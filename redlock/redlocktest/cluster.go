package redlocktest

import (
	"os"
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

type (
	// Cluster is a Redis Cluster of real redis-server processes, every node a primary.
	Cluster = testbed.Cluster
	// Migration is a slot being moved between two nodes of a Cluster, step by step.
	Migration = testbed.Migration
)

// StartCluster starts a Redis Cluster of n real redis-server nodes with opts (see testbed.StartCluster) and
// waits until it is ok. Without redis-server on PATH it skips tb, or fails it when REDLOCK_TEST_REDIS=required.
// tb.Cleanup closes it.
func StartCluster(tb testing.TB, n int, opts ServerOptions) *Cluster {
	tb.Helper()
	if !HaveRedisServer() {
		if os.Getenv(envBackend) == "required" {
			tb.Fatalf("redlocktest: %s=required but redis-server is not on PATH", envBackend)
		}
		tb.Skip("redis-server is not on PATH")
	}
	c, err := testbed.StartCluster(n, opts)
	if err != nil {
		tb.Fatalf("redlocktest: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
