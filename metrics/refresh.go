package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// descRefresh describes how each master's lock keys are refreshed.
var descRefresh = desc("master_refresh_tracking", "1 when the master's lock keys were refreshed by tracking in the last poll "+
	"(only what it said changed re-read), 0 when it was polled (every key re-read); absent while the master does not answer.", "master")

// collectRefresh writes the refresh mode of each master of s.
func collectRefresh(ch chan<- prometheus.Metric, s monitor.Snapshot) {
	for _, m := range s.Masters {
		if !m.Up { // a master that did not answer serves only its up and error series
			continue
		}
		ch <- prometheus.MustNewConstMetric(descRefresh, prometheus.GaugeValue, boolValue(m.Refresh == monitor.RefreshTracking), m.Addr)
	}
}
