package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// The descriptions of what each master says of evicting keys (INFO memory and stats): a master that may evict
// lets a lock vanish while its holder runs on. The monitor's judgement of it is redlock_warning's
// eviction-policy kind; these are the figures behind it, for a dashboard.
var (
	descPolicy = desc("master_maxmemory_policy", "1, labelled by the master's maxmemory-policy (INFO memory): "+
		"allkeys-* and volatile-* may evict lock keys when memory is full; absent when unknown.", "master", "policy")
	descMaxMemory = desc("master_maxmemory_bytes", "The master's maxmemory (INFO memory): its memory limit, 0 for "+
		"none (then nothing is evicted whatever the policy); absent when unknown.", "master")
	descEvicted = desc("master_evicted_keys_total", "Keys the master evicted since its server started (INFO stats "+
		"evicted_keys); absent when unknown.", "master")
)

// collectEviction writes the eviction figures each master of s told, leaving out those it did not.
func collectEviction(ch chan<- prometheus.Metric, s monitor.Snapshot) {
	for _, m := range s.Masters {
		if !m.Up { // not what it says now
			continue
		}
		if m.EvictionPolicy != "" {
			ch <- prometheus.MustNewConstMetric(descPolicy, prometheus.GaugeValue, 1, m.Addr, m.EvictionPolicy)
			ch <- prometheus.MustNewConstMetric(descMaxMemory, prometheus.GaugeValue, float64(m.MaxMemory), m.Addr)
		}
		if m.EvictedKeys >= 0 {
			ch <- prometheus.MustNewConstMetric(descEvicted, prometheus.CounterValue, float64(m.EvictedKeys), m.Addr)
		}
	}
}
