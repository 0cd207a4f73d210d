// Package metrics exports what the monitor sees as Prometheus metrics, in the style of redis_exporter: names
// under the redlock_ namespace in base units (seconds, ratios), one series per master, lock counts by state,
// per-lock series only for resources named in advance (to bound cardinality), and counters of the events
// that call for an alert.
//
// An Exporter is fed snapshots (Observe) by whoever polls, and is read by Prometheus through Handler; a
// scrape reads the latest snapshot, it never polls the masters itself.
package metrics

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redlock-tui/redlock-tui/monitor"
)

const namespace = "redlock"

// Options configures an Exporter.
type Options struct {
	// Resources are the locks that get series of their own (redlock_lock_*); others are only counted.
	Resources []string
	// Version is the program's version, for redlock_build_info.
	Version string
	// DriftFactor is the monitor's drift factor, for redlock_clock_allowance_seconds; 0 means
	// monitor.DefaultDriftFactor, as for the monitor.
	DriftFactor float64
}

// Exporter is a prometheus.Collector of the latest snapshot plus counters kept across snapshots. It is safe
// for concurrent use.
type Exporter struct {
	resources   []string
	build       []string // redlock_build_info's labels
	driftFactor float64

	now     func() time.Time // the clock of the health endpoints
	started time.Time        // when New made the exporter

	mu         sync.Mutex
	snap       *monitor.Snapshot
	observed   time.Time                     // when the latest snapshot was observed, by now; zero before the first
	events     map[monitor.EventKind]float64 // monitor events seen, by kind
	restarts   map[string]float64            // master-restarted events, by master
	violations float64                       // demo violations seen
	demoEvents map[string]float64            // demo events seen, by kind
	tallies    map[string]*tally             // the holders counted of each resource named in advance (contention.go)
	outputs    map[string]output             // the files written, by flag (outputs.go)
}

// New returns an Exporter with no snapshot yet: until the first Observe only the counters, build info and
// scrape duration are exported.
func New(opts Options) *Exporter {
	factor := opts.DriftFactor
	if factor == 0 {
		factor = monitor.DefaultDriftFactor
	}
	return &Exporter{
		resources:   slices.Clone(opts.Resources),
		build:       buildLabels(opts.Version),
		now:         time.Now,
		started:     time.Now(),
		driftFactor: factor,
		events:      map[monitor.EventKind]float64{},
		restarts:    map[string]float64{},
		demoEvents:  map[string]float64{},
		outputs:     map[string]output{},
	}
}

// Observe makes s the snapshot scrapes read and counts fresh, the events that are new in s (see
// monitor.Snapshot.EventsSince).
func (e *Exporter) Observe(s monitor.Snapshot, fresh []monitor.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.snap = &s
	e.observed = e.now()
	e.tallyContention(&s)
	for _, ev := range fresh {
		e.events[ev.Kind]++
		if ev.Kind == monitor.EventMasterRestarted {
			e.restarts[ev.Master]++
		}
	}
}

// AddViolations counts n breaches of mutual exclusion (the demo's detector sees them).
func (e *Exporter) AddViolations(n int) {
	e.mu.Lock()
	e.violations += float64(n)
	e.mu.Unlock()
}

// Handler serves the exporter's metrics, with the Go runtime's and the process's, in the Prometheus text
// format.
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.registry(), promhttp.HandlerOpts{})
}

// registry is what Handler serves: the exporter, the Go runtime's and the process's collectors.
func (e *Exporter) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// The descriptions of every metric the exporter writes.
var (
	descMasterUp  = desc("master_up", "1 when the master answered the last poll, 0 when it did not.", "master")
	descDown      = desc("master_down", "1 when the master is declared down: it refused us, or missed several polls in a row, a read failing or timing out.", "master")
	descMissed    = desc("master_missed_polls", "Polls the master has missed in a row.", "master")
	descRTT       = desc("master_rtt_seconds", "Round trip of the last poll's TIME command.", "master")
	descOffset    = desc("master_clock_offset_seconds", "The master's clock minus ours (TIME against the round trip's midpoint); absent until measured.", "master")
	descOffUnc    = desc("master_clock_uncertainty_seconds", "Uncertainty of the clock offset: half the round trip.", "master")
	descDrift     = desc("master_clock_drift_ratio", "Rate at which the clock offset changes (1e-6 is 1 ppm); absent until measured.", "master")
	descUptime    = desc("master_uptime_seconds", "Uptime of the master's server process; absent when unknown.", "master")
	descRestarts  = desc("master_restarts_total", "Restarts of the master seen by this process (its uptime went back).", "master")
	descLockKeys  = desc("master_lock_keys", "Lock keys seen on the master in the last poll.", "master")
	descScanned   = desc("master_sweep_scanned_keys", "Keys scanned so far in the master's current discovery sweep.", "master")
	descDBSize    = desc("master_sweep_keyspace_keys", "Keys in the master's database (DBSIZE) at the last poll; absent when unknown.", "master")
	descSweeps    = desc("master_sweeps_completed_total", "Full discovery sweeps of the master's keyspace finished.", "master")
	descQuorum    = desc("quorum", "Masters that must agree for a lock to be held: N/2+1.")
	descUpCount   = desc("masters_up", "Distinct servers that answered the last poll (two addresses of one server count once).")
	descServers   = desc("servers", "Distinct servers among the masters, as far as their run_id tells.")
	descLocks     = desc("locks", "Locks by state in the last poll: "+statesHelp()+". Free: no key, listed while its holders are in the window; neither held nor an alarm.", "state")
	descHealth    = desc("health", "The overall state, as the dashboard's header shows it and --once's exit status judges it: "+healthHelp()+".")
	descTrunc     = desc("locks_truncated", "1 when there are more lock keys than --max-keys and some are not tracked.")
	descSnapTime  = desc("last_poll_timestamp_seconds", "When the last poll finished, as a Unix time.")
	descPolls     = desc("polls_total", "Polls of the masters since the start.")
	descLockMs    = desc("lock_masters", "Masters holding the lock's leading token (the holder's when held).", "resource")
	descLockHeld  = desc("lock_held", "1 when the lock is held by a quorum with validity left.", "resource")
	descLockVal   = desc("lock_validity_seconds", "How long the lock stays held on a quorum, less the drift allowance; 0 when not held.", "resource")
	descLockFence = desc("lock_fence", "The highest fencing token counter of the lock on the masters; 0 for unfenced locks.", "resource")
	descHolders   = desc("lock_holders", "Holders that hold the lock, each on a quorum with validity left: the readers of a "+
		"shared lock, the holders of a semaphore's permits; 1 for a held lock of one token.", "resource")
	descHolderVal = desc("lock_holder_validity_seconds", "Each holder that holds the lock (its token's fingerprint, "+
		"sha256: and the first 8 hex digits of the token's SHA-256, never the token; and its mode: exclusive, write, "+
		"read or permit): how long it stays held, less the drift allowance.", "resource", "holder", "mode")
	descEvents     = desc("events_total", "Events the monitor reported, by kind; every kind the monitor has is served from the start, at 0 until its first event.", "kind")
	descLost       = desc("lock_lost_total", "Held locks that lost their quorum while their key lived on (quorum-lost), and locks of ours found without a quorum (lock-lost).")
	descViol       = desc("violations_total", "Breaches of mutual exclusion the demo's detector saw (demo mode only).")
	descDemoEvents = desc("demo_events_total", "Events the demo reported, by kind (demo mode only).", "kind")
	descScrape     = desc("scrape_duration_seconds", "Time this scrape took to render the metrics (the masters are polled independently).")
)

// statesHelp lists the lock states, as the state label writes them, with the word the screen shows where it
// differs: "lost, stuck, split, unconfirmed (checking on screen), ...".
func statesHelp() string {
	words := make([]string, len(monitor.LockStates))
	for i, st := range monitor.LockStates {
		words[i] = string(st)
		if st.Label() != string(st) {
			words[i] += " (" + st.Label() + " on screen)"
		}
	}
	return strings.Join(words, ", ")
}

// healthHelp lists the values of the health gauge: "0 OK, 1 DEGRADED, ...".
func healthHelp() string {
	var words []string
	for h := monitor.HealthOK; h <= monitor.HealthNoQuorum; h++ {
		words = append(words, fmt.Sprintf("%d %s", h, h))
	}
	return strings.Join(words, ", ")
}

// desc describes a metric of the redlock namespace.
func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, labels, nil)
}

// Describe sends the descriptions of every metric the exporter may write.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descMasterUp, descDown, descMissed, descRTT, descOffset, descOffUnc,
		descDrift, descUptime, descRestarts, descLockKeys, descScanned, descDBSize, descSweeps, descHealth, descQuorum,
		descUpCount, descServers, descLocks, descTrunc, descSnapTime, descPolls, descLockMs, descLockHeld, descLockVal, descLockFence,
		descHolders, descHolderVal, descEvents, descLost, descViol, descDemoEvents, descScrape, descBuild,
		descHandovers, descHold, descGap, descWaiters, descRefresh, descWarning, descSplit, descHolderAge,
		descLongest, descAllowance, descPolicy, descMaxMemory, descEvicted, descOutputUp, descOutputFailures} {
		ch <- d
	}
}

// Collect writes the metrics of the latest snapshot and the counters.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	start := time.Now()
	e.mu.Lock()
	snap := e.snap
	events := make(map[monitor.EventKind]float64, len(e.events))
	for k, v := range e.events {
		events[k] = v
	}
	restarts := make(map[string]float64, len(e.restarts))
	for k, v := range e.restarts {
		restarts[k] = v
	}
	violations := e.violations
	demoEvents := maps.Clone(e.demoEvents)
	outputs := maps.Clone(e.outputs)
	tallies := make(map[string]tally, len(e.tallies))
	for r, t := range e.tallies {
		tallies[r] = tally{handovers: t.handovers, holds: t.holds.copy(), gaps: t.gaps.copy()}
	}
	e.mu.Unlock()

	if snap != nil {
		collectSnapshot(ch, *snap, restarts)
		collectRefresh(ch, *snap)
		collectEviction(ch, *snap)
		collectLocks(ch, *snap, e.resources)
		collectWarnings(ch, *snap)
		collectSplit(ch, *snap)
		collectTTL(ch, longestTTL(*snap), e.driftFactor)
	}
	var polls uint64 // 0 from the start, so that an alert on its rate sees a watcher that never polls
	if snap != nil {
		polls = snap.Seq
	}
	ch <- prometheus.MustNewConstMetric(descPolls, prometheus.CounterValue, float64(polls))
	collectContention(ch, snap, e.resources, tallies)
	for _, kind := range monitorKinds { // every kind from the start: an alert sees the first one as an increase
		ch <- prometheus.MustNewConstMetric(descEvents, prometheus.CounterValue, events[kind], string(kind))
	}
	for kind, n := range events { // a kind the list does not know yet (none, while the list is current)
		if !slices.Contains(monitorKinds, kind) {
			ch <- prometheus.MustNewConstMetric(descEvents, prometheus.CounterValue, n, string(kind))
		}
	}
	ch <- prometheus.MustNewConstMetric(descLost, prometheus.CounterValue,
		events[monitor.EventQuorumLost]+events[monitor.EventLockLost])
	ch <- prometheus.MustNewConstMetric(descViol, prometheus.CounterValue, violations)
	for kind, n := range demoEvents {
		ch <- prometheus.MustNewConstMetric(descDemoEvents, prometheus.CounterValue, n, kind)
	}
	collectOutputs(ch, outputs)
	collectBuild(ch, e.build)
	ch <- prometheus.MustNewConstMetric(descScrape, prometheus.GaugeValue, time.Since(start).Seconds())
}

// collectSnapshot writes the per-master and whole-set metrics of s.
func collectSnapshot(ch chan<- prometheus.Metric, s monitor.Snapshot, restarts map[string]float64) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, m := range s.Masters {
		a := m.Addr
		gauge(descMasterUp, boolValue(m.Up), a)
		gauge(descDown, boolValue(m.Down), a)
		gauge(descMissed, float64(m.Missed), a)
		ch <- prometheus.MustNewConstMetric(descRestarts, prometheus.CounterValue, restarts[a], a)
		if !m.Up { // what it said before is not what it says now: only its up and error series, as redis_exporter
			continue
		}
		gauge(descRTT, m.RTT.Seconds(), a)
		if m.ClockKnown {
			gauge(descOffset, m.ClockOffset.Seconds(), a)
			gauge(descOffUnc, m.ClockUncertainty.Seconds(), a)
		}
		if m.DriftKnown {
			gauge(descDrift, m.DriftPPM/1e6, a)
		}
		if m.Uptime >= 0 {
			gauge(descUptime, m.Uptime.Seconds(), a)
		}
		gauge(descLockKeys, float64(m.Keys), a)
		gauge(descScanned, float64(m.Sweep.Scanned), a)
		if m.Sweep.Total >= 0 {
			gauge(descDBSize, float64(m.Sweep.Total), a)
		}
		ch <- prometheus.MustNewConstMetric(descSweeps, prometheus.CounterValue, float64(m.Sweep.Completed), a)
	}
	gauge(descHealth, float64(s.Health()))
	gauge(descQuorum, float64(s.Quorum))
	gauge(descUpCount, float64(s.UpCount))
	gauge(descServers, float64(s.Servers))
	gauge(descTrunc, boolValue(s.Truncated))
	gauge(descSnapTime, float64(s.Time.UnixNano())/1e9)
	counts := make(map[monitor.LockState]int, len(monitor.LockStates))
	for _, l := range s.Locks {
		counts[l.State]++
	}
	for _, st := range monitor.LockStates { // always all of them, so that an absent state reads 0 rather than no data
		gauge(descLocks, float64(counts[st]), string(st))
	}
}

// collectLocks writes the per-lock series of the listed resources, zeros for those s does not show.
func collectLocks(ch chan<- prometheus.Metric, s monitor.Snapshot, resources []string) {
	for _, r := range resources {
		var l monitor.LockView // no key on any master: not held, on no master
		if found := s.Lock(r); found != nil {
			l = *found
		}
		ch <- prometheus.MustNewConstMetric(descLockMs, prometheus.GaugeValue, float64(l.Count), r)
		ch <- prometheus.MustNewConstMetric(descLockHeld, prometheus.GaugeValue, boolValue(l.State == monitor.StateHeld), r)
		ch <- prometheus.MustNewConstMetric(descLockVal, prometheus.GaugeValue, l.ValidityAt(s.Time).Seconds(), r)
		ch <- prometheus.MustNewConstMetric(descLockFence, prometheus.GaugeValue, float64(l.Fence), r)
		held, labels := 0, map[string]int{}
		for _, h := range l.HolderList(s.Time) {
			if h.State == monitor.StateHeld {
				held++
				label := holderLabel(h.Token)
				if labels[label]++; labels[label] > 1 { // two tokens of one digest: still two series, or the scrape fails
					label += fmt.Sprintf("#%d", labels[label])
				}
				ch <- prometheus.MustNewConstMetric(descHolderVal, prometheus.GaugeValue, h.Validity.Seconds(), r, label, h.Mode)
				if since := holderSince(l, h); !since.IsZero() {
					ch <- prometheus.MustNewConstMetric(descHolderAge, prometheus.GaugeValue, max(s.Time.Sub(since), 0).Seconds(), r, label, h.Mode)
				}
			}
		}
		ch <- prometheus.MustNewConstMetric(descHolders, prometheus.GaugeValue, float64(held), r)
	}
}

// holderLabel names the holder of token in the metrics: "sha256:" and the first 8 hex digits of the token's
// SHA-256. A token is a capability (whoever knows it can release the lock) and the metrics are served without
// authentication, so the token itself is never exported; its digest tells the holders of a lock apart, and is
// the same at every poll, so a holder's series stays one series. An operator finds a holder's label with
// printf %s "$TOKEN" | sha256sum | cut -c1-8.
func holderLabel(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

// boolValue is 1 for true, 0 for false.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
