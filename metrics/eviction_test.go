package metrics

import (
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestEachMastersEvictionFiguresAreExportedWhenKnown: the policy, the memory limit and the keys evicted, for a
// master that told them; nothing for one that did not (a policy of "" and -1 evicted keys are unknown, not a
// policy or a count of 0).
func TestEachMastersEvictionFiguresAreExportedWhenKnown(t *testing.T) {
	e := New(Options{})
	e.Observe(monitor.Snapshot{Masters: []monitor.MasterStatus{
		{Addr: "a:1", Up: true, EvictionPolicy: "allkeys-lru", MaxMemory: 100 << 20, EvictedKeys: 7},
		{Addr: "b:1", Up: true, EvictionPolicy: "noeviction", MaxMemory: 0, EvictedKeys: 0},
		{Addr: "c:1", Down: true, EvictedKeys: -1},
	}}, nil)
	got := scrape(t, e)
	for name, want := range map[string]string{
		`redlock_master_maxmemory_policy{master="a:1",policy="allkeys-lru"}`: "1",
		`redlock_master_maxmemory_bytes{master="a:1"}`:                       "1.048576e+08",
		`redlock_master_evicted_keys_total{master="a:1"}`:                    "7",
		`redlock_master_maxmemory_policy{master="b:1",policy="noeviction"}`:  "1",
		`redlock_master_maxmemory_bytes{master="b:1"}`:                       "0",
		`redlock_master_evicted_keys_total{master="b:1"}`:                    "0",
	} {
		if got[name] != want {
			t.Errorf("%s = %q, want %s", name, got[name], want)
		}
	}
	for name := range got {
		if strings.Contains(name, `master="c:1"`) && (strings.Contains(name, "maxmemory") || strings.Contains(name, "evicted")) {
			t.Errorf("%s is written for a master that did not tell it", name)
		}
	}
}
