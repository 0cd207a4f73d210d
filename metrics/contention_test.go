package metrics

import (
	"fmt"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestContentionMetricsCountEachIntervalOnce: 40 polls a second apart of a lock whose holder changes every 4
// polls, every other time after a free poll; the exporter sees every other snapshot. Holders t1..t9 began
// after the first poll (t0 was already there): 9 handovers; holds of 3s (odd ones, released a poll early) and
// 4s (taken over); gaps of 1s before the even ones, 0 before the odd. Whether the exporter sees every snapshot
// or every other, each is counted once.
func TestContentionMetricsCountEachIntervalOnce(t *testing.T) {
	for _, every := range []int{1, 2, 3} {
		checkContentionMetrics(t, every)
	}
}

// checkContentionMetrics runs the story, the exporter observing every n-th snapshot.
func checkContentionMetrics(t *testing.T, every int) {
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	e := New(Options{Resources: []string{"jobs", "absent"}})
	var prev *monitor.Snapshot
	for p := range 41 {
		at := t0.Add(time.Duration(p) * time.Second)
		rs := make([]monitor.Reading, 3)
		for i := range rs {
			rs[i] = monitor.Reading{Addr: fmt.Sprintf("m%d", i), Sent: at, Received: at, Uptime: monitor.UnknownUptime,
				Replicas: -1, Sweep: monitor.Sweep{Completed: 1, Total: -1}}
			key := monitor.KeyReading{Key: "jobs", Value: fmt.Sprintf("t%d", p/4), PTTL: 30 * time.Second, ReadAt: at}
			if p%4 == 3 && (p/4)%2 == 1 || p == 40 {
				key = monitor.KeyReading{Key: "jobs", Absent: true}
			}
			rs[i].Keys = []monitor.KeyReading{key}
		}
		s := monitor.Aggregate(prev, rs, nil, at, monitor.Config{})
		prev = &s
		if p%every == 0 || p == 40 {
			e.Observe(s, nil)
		}
	}
	got := scrape(t, e)
	for name, want := range map[string]string{
		`redlock_lock_handovers_total{resource="jobs"}`:                    "9",
		`redlock_lock_hold_seconds_count{resource="jobs"}`:                 "9",
		`redlock_lock_hold_seconds_sum{resource="jobs"}`:                   "31",
		`redlock_lock_hold_seconds_bucket{resource="jobs",le="2.5"}`:       "0",
		`redlock_lock_hold_seconds_bucket{resource="jobs",le="5"}`:         "9",
		`redlock_lock_free_gap_seconds_count{resource="jobs"}`:             "9",
		`redlock_lock_free_gap_seconds_sum{resource="jobs"}`:               "4",
		`redlock_lock_free_gap_seconds_bucket{resource="jobs",le="0.001"}`: "5",
		`redlock_lock_handovers_total{resource="absent"}`:                  "0",
		`redlock_lock_hold_seconds_count{resource="absent"}`:               "0",
	} {
		if got[name] != want {
			t.Errorf("observing every %d: %s = %q, want %q", every, name, got[name], want)
		}
	}
	if _, ok := got[`redlock_lock_waiters{resource="jobs"}`]; ok {
		t.Errorf("waiters written for a lock whose client does not show them")
	}
}
