package metrics

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestEveryEventKindIsServedAtZeroFromTheStart: before any poll, redlock_events_total has a series at 0 for
// each kind of the monitor's events (so that Prometheus sees the first eviction as an increase), and an event
// moves its own kind's series alone.
func TestEveryEventKindIsServedAtZeroFromTheStart(t *testing.T) {
	e := New(Options{})
	before := scrape(t, e)
	for _, kind := range []monitor.EventKind{monitor.EventLockEvicted, monitor.EventLockFlushed, monitor.EventTakenOver,
		monitor.EventMasterDown, monitor.EventFenceBackwards, monitor.EventClusterFailover} {
		if got := before[`redlock_events_total{kind="`+string(kind)+`"}`]; got != "0" {
			t.Errorf("redlock_events_total{kind=%q} = %q before any poll; want 0", kind, got)
		}
	}
	served := 0
	for name := range before {
		if strings.HasPrefix(name, "redlock_events_total{") {
			served++
		}
	}
	if served != len(monitorKinds) {
		t.Errorf("%d kinds served before any poll; want the %d the monitor declares", served, len(monitorKinds))
	}
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	e.Observe(poll(nil, now, nil, nil, nil), []monitor.Event{{Kind: monitor.EventLockEvicted, Resource: "billing"}})
	after := scrape(t, e)
	for name, v := range after {
		if !strings.HasPrefix(name, "redlock_events_total{") {
			continue
		}
		want := "0"
		if name == `redlock_events_total{kind="evicted"}` {
			want = "1"
		}
		if v != want {
			t.Errorf("%s = %s after one eviction; want %s", name, v, want)
		}
	}
}

// TestAMasterThatDoesNotAnswerServesOnlyItsUpAndErrorSeries: a master that answered (its round trip, clock,
// drift, uptime, policy, keys all read) and then stops answering keeps no figure it told before: only
// redlock_master_up (0), master_down, master_missed_polls and this process's count of its restarts.
func TestAMasterThatDoesNotAnswerServesOnlyItsUpAndErrorSeries(t *testing.T) {
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	reading := func(now time.Time, addr string) monitor.Reading {
		return monitor.Reading{Addr: addr, Sent: now.Add(-time.Millisecond), Received: now, ServerTime: now,
			Role: "master", Uptime: time.Hour, Replicas: 0, Sweep: monitor.Sweep{Scanned: 10, Total: 10, Completed: 1},
			EvictionPolicy: "allkeys-lru", MaxMemory: 1 << 20, Counters: monitor.KeyCounters{Known: true, Evicted: 3},
			Keys: []monitor.KeyReading{{Key: "billing", Value: "token-0123456789abcdef", PTTL: time.Minute, ReadAt: now}}}
	}
	e := New(Options{})
	var prev *monitor.Snapshot
	for i := range 4 { // enough polls a second apart for the clock's drift to be known
		now := start.Add(time.Duration(i) * time.Second)
		s := monitor.Aggregate(prev, []monitor.Reading{reading(now, "a:1"), reading(now, "b:1"), reading(now, "c:1")}, nil, now, monitor.Config{})
		e.Observe(s, nil)
		prev = &s
	}
	series := func(master string) map[string]string {
		out := map[string]string{}
		for name, v := range scrape(t, e) {
			if strings.Contains(name, `master="`+master+`"`) && !strings.HasPrefix(name, "redlock_warning{") {
				out[regexp.MustCompile(`\{.*`).ReplaceAllString(name, "")] = v
			}
		}
		return out
	}
	answered := series("c:1")
	for _, name := range []string{"redlock_master_rtt_seconds", "redlock_master_clock_offset_seconds",
		"redlock_master_clock_drift_ratio", "redlock_master_uptime_seconds", "redlock_master_lock_keys",
		"redlock_master_maxmemory_policy", "redlock_master_evicted_keys_total"} {
		if _, ok := answered[name]; !ok {
			t.Fatalf("while c:1 answers its series lack %s: %v", name, answered)
		}
	}
	now := start.Add(4 * time.Second)
	stopped := reading(now, "c:1")
	stopped.Err = errStopped{}
	s := monitor.Aggregate(prev, []monitor.Reading{reading(now, "a:1"), reading(now, "b:1"), stopped}, nil, now, monitor.Config{})
	e.Observe(s, nil)
	got := series("c:1")
	allowed := map[string]bool{"redlock_master_up": true, "redlock_master_down": true, "redlock_master_missed_polls": true,
		"redlock_master_restarts_total": true}
	for name := range got {
		if !allowed[name] {
			t.Errorf("c:1 does not answer, yet %s is served: %v", name, got)
		}
	}
	if got["redlock_master_up"] != "0" || got["redlock_master_missed_polls"] != "1" {
		t.Errorf("c:1 does not answer: up %q, missed polls %q; want 0 and 1", got["redlock_master_up"], got["redlock_master_missed_polls"])
	}
	if len(series("a:1")) <= len(allowed) {
		t.Errorf("a:1 answers, yet serves only %v", series("a:1"))
	}
}

// errStopped is the error of a master that does not answer.
type errStopped struct{}

func (errStopped) Error() string { return "dial tcp: connection refused" }

// TestHoldBucketsCoverHours: a 50-minute hold counts below the hour's bound and not below half an hour's, not
// only in +Inf.
func TestHoldBucketsCoverHours(t *testing.T) {
	var h histogram
	h.observe(3000, holdBuckets)
	var m dto.Metric
	if err := h.metric(descHold, holdBuckets, "billing").Write(&m); err != nil {
		t.Fatal(err)
	}
	cum := map[float64]uint64{}
	for _, b := range m.GetHistogram().GetBucket() {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if cum[1800] != 0 || cum[3600] != 1 {
		t.Errorf("a 3000s hold: le=1800 counts %d, le=3600 counts %d; want 0 and 1 (buckets %v)", cum[1800], cum[3600], holdBuckets)
	}
}

// TestBuildInfoNamesVersionRevisionAndDate: redlock_build_info carries the release, and a revision and a
// build date that are never empty (the VCS stamp, or "unknown" in a test binary that has none).
func TestBuildInfoNamesVersionRevisionAndDate(t *testing.T) {
	got := scrape(t, New(Options{Version: "v1.2.3"}))
	var line string
	for name := range got {
		if strings.HasPrefix(name, "redlock_build_info{") {
			line = name
		}
	}
	for _, label := range []string{`version="v1.2.3"`, `revision="`, `builddate="`, `goversion="go`, `goos="`, `goarch="`, `branch="`} {
		if !strings.Contains(line, label) {
			t.Errorf("redlock_build_info %q lacks %s", line, label)
		}
	}
	if strings.Contains(line, `=""`) {
		t.Errorf("redlock_build_info %q has an empty label", line)
	}
	if _, err := strconv.ParseFloat(got[line], 64); err != nil || got[line] != "1" {
		t.Errorf("redlock_build_info = %q; want 1", got[line])
	}
}
