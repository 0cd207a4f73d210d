package metrics

import "github.com/prometheus/client_golang/prometheus"

// The descriptions of the outputs' metrics: the files the program writes besides the metrics.
var (
	descOutputUp = desc("output_up", "1 while the file a flag names (--record, --events) is written, 0 once a "+
		"write to it failed (the program goes on without it; SIGHUP reopens it).", "output")
	descOutputFailures = desc("output_failures_total", "Times writing the file a flag names (--record, --events) "+
		"failed and stopped it.", "output")
)

// output is what the exporter knows of one output.
type output struct {
	up       bool
	failures float64
}

// SetOutput says whether the output named by its flag (--record, --events) is written; it is exported from
// the first call on, and a change from up to down counts a failure.
func (e *Exporter) SetOutput(flag string, up bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, seen := e.outputs[flag]
	if seen && o.up && !up {
		o.failures++
	}
	o.up = up
	e.outputs[flag] = o
}

// collectOutputs writes the outputs' metrics.
func collectOutputs(ch chan<- prometheus.Metric, outputs map[string]output) {
	for flag, o := range outputs {
		ch <- prometheus.MustNewConstMetric(descOutputUp, prometheus.GaugeValue, boolValue(o.up), flag)
		ch <- prometheus.MustNewConstMetric(descOutputFailures, prometheus.CounterValue, o.failures, flag)
	}
}
