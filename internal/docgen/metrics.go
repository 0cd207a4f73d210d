package docgen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/redlock-tui/redlock-tui/metrics"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Metric is one metric the exporter serves, as a scrape gives it.
type Metric struct {
	Name, Type, Help string
	Labels           []string
}

// ExporterMetrics returns every metric the exporter describes, sorted by name, with the type, labels and
// help a scrape gives it: an exporter is fed snapshots in which every figure is known (exporterFixture), so
// that each metric it describes is written at least once. It fails naming a described metric that the
// scrape did not write, which a new metric's condition the fixture does not meet would cause.
func ExporterMetrics() ([]Metric, error) {
	e := exporterFixture()
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		return nil, err
	}
	families, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	written := map[string]Metric{}
	for _, f := range families {
		m := Metric{Name: f.GetName(), Type: strings.ToLower(f.GetType().String()), Help: f.GetHelp()}
		seen := map[string]bool{}
		for _, sample := range f.GetMetric() {
			for _, l := range sample.GetLabel() {
				if !seen[l.GetName()] {
					seen[l.GetName()] = true
					m.Labels = append(m.Labels, l.GetName())
				}
			}
		}
		written[m.Name] = m
	}
	described, err := describedNames(e)
	if err != nil {
		return nil, err
	}
	var out []Metric
	for _, name := range described {
		m, ok := written[name]
		if !ok {
			return nil, fmt.Errorf("the exporter describes %s but a scrape of the docs' fixture did not write it: "+
				"make exporterFixture meet its condition", name)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Metric) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// fqName reads a metric's name from its description (prometheus.Desc has no accessor for it).
var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// describedNames are the names of every metric e describes.
func describedNames(e prometheus.Collector) ([]string, error) {
	descs := make(chan *prometheus.Desc)
	go func() {
		e.Describe(descs)
		close(descs)
	}()
	var names []string
	var bad error
	for d := range descs {
		m := fqName.FindStringSubmatch(d.String())
		if m == nil {
			bad = fmt.Errorf("cannot read the name of %s", d)
			continue
		}
		names = append(names, m[1])
	}
	return names, bad
}

// Metrics writes docs/metrics.md: every metric the exporter serves, with its type, labels and help.
func Metrics() ([]byte, error) {
	ms, err := ExporterMetrics()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	header(&b, "Metrics", "the Prometheus exporter's metric descriptions (package metrics)")
	b.WriteString("What `--metrics ADDR` serves at `http://ADDR/metrics` (see [Headless](headless.md)), besides the Go " +
		"runtime's (`go_*`) and the process's (`process_*`) metrics. A scrape reads the latest poll; it never polls " +
		"the masters. The `redlock_lock_*` series of a lock exist only for the resources named by `--metrics-locks`.\n\n")
	b.WriteString("| Metric | Type | Labels | Help |\n|---|---|---|---|\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", code(m.Name), m.Type, codes(m.Labels), cell(m.Help))
	}
	return []byte(b.String()), nil
}

// exporterFixture is an exporter fed what makes it write every metric it describes: four masters (an even
// number, which the monitor warns about) polled a second apart until their clocks' drift is known, each
// telling its uptime, key count, maxmemory policy and evicted keys and tracked; a lock named in advance held
// by one token and then another (a handover, a hold and a gap), a split lock, a Redisson lock with waiters,
// the monitor's events (a lost quorum, a restart) and the demo's.
func exporterFixture() *metrics.Exporter {
	const held, split, hashed = "billing:nightly", "orders:split", "redisson:report"
	e := metrics.New(metrics.Options{Resources: []string{held, hashed}, Version: "docs"})
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var prev *monitor.Snapshot
	for poll := range 8 {
		now := start.Add(time.Duration(poll) * time.Second)
		token := "token-a-0123456789abcdef"
		if poll >= 5 {
			token = "token-b-0123456789abcdef"
		}
		var readings []monitor.Reading
		for i := range 4 {
			r := monitor.Reading{Addr: fmt.Sprintf("m%d:6379", i), Sent: now.Add(-time.Millisecond), Received: now,
				ServerTime: now.Add(time.Duration(poll) * time.Millisecond), Role: "master", Uptime: time.Hour,
				Replicas: 0, Sweep: monitor.Sweep{Scanned: 100, Total: 100, Completed: 1},
				Refresh: monitor.RefreshTracking, EvictionPolicy: "allkeys-lru", MaxMemory: 1 << 30,
				Counters: monitor.KeyCounters{Known: true, Evicted: 7}, Waiters: map[string]int{hashed: 2}}
			if poll != 4 { // a free moment between the two holders
				r.Keys = append(r.Keys, monitor.KeyReading{Key: held, Value: token, PTTL: time.Minute, ReadAt: now})
			} else {
				r.Keys = append(r.Keys, monitor.KeyReading{Key: held, Absent: true})
			}
			splitToken := "token-c-0123456789abcdef"
			if i >= 2 {
				splitToken = "token-d-0123456789abcdef"
			}
			r.Keys = append(r.Keys,
				monitor.KeyReading{Key: split, Value: splitToken, PTTL: time.Minute, ReadAt: now},
				monitor.KeyReading{Key: hashed, Fields: []string{"8b2c1b7e-3a4f-4b8e-9a1d-5c6e7f8a9b0c:1", "1"},
					PTTL: 30 * time.Second, ReadAt: now})
			readings = append(readings, r)
		}
		s := monitor.Aggregate(prev, readings, nil, now, monitor.Config{})
		e.Observe(s, s.EventsSince(prev))
		prev = &s
	}
	e.Observe(*prev, []monitor.Event{{Kind: monitor.EventQuorumLost, Resource: held},
		{Kind: monitor.EventMasterRestarted, Master: "m0:6379"}})
	e.AddViolations(1)
	e.AddDemoEvent("violation")
	e.SetOutput("--record", true)
	return e
}
