package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// scrape returns the redlock_ lines of one scrape of e.
func scrape(t *testing.T, e *Exporter) map[string]string {
	t.Helper()
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(body), "\n") {
		if name, value, ok := strings.Cut(line, " "); ok && strings.HasPrefix(name, "redlock_") {
			out[name] = value
		}
	}
	return out
}

func TestExporterWritesTheSnapshotAndCountsEvents(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	e := New(Options{Resources: []string{"billing", "absent"}, Version: "v1.2.3"})
	before := scrape(t, e)
	if before[`redlock_violations_total`] != "0" || before[`redlock_lock_lost_total`] != "0" ||
		before["redlock_scrape_duration_seconds"] == "" {
		t.Fatalf("before any snapshot: %v; want the counters at 0 and the scrape's duration", before)
	}
	for name := range before {
		if strings.HasPrefix(name, "redlock_master_") || strings.HasPrefix(name, "redlock_locks{") {
			t.Errorf("before any snapshot the exporter writes %s; want no master or lock figures", name)
		}
	}
	billing := monitor.LockView{Resource: "billing", State: monitor.StateHeld, Count: 2, Fence: 33}
	billing.SetValidity(now, 1500*time.Millisecond)
	s := monitor.Snapshot{Seq: 7, Time: now, Quorum: 2, UpCount: 2, Servers: 3,
		Masters: []monitor.MasterStatus{
			{Addr: "a:1", Up: true, RTT: 2 * time.Millisecond, ClockKnown: true, ClockOffset: -3 * time.Millisecond,
				DriftKnown: true, DriftPPM: 250, Uptime: time.Hour, Keys: 2, Sweep: monitor.Sweep{Scanned: 10, Total: 40, Completed: 1}},
			{Addr: "b:1", Up: true, Uptime: monitor.UnknownUptime, Sweep: monitor.Sweep{Total: -1}},
			{Addr: "c:1", Down: true, Missed: 3, Uptime: monitor.UnknownUptime, Sweep: monitor.Sweep{Total: -1}},
		},
		Locks: []*monitor.LockView{
			&billing,
			{Resource: "other", State: monitor.StateHeld, Count: 3},
			{Resource: "stuck", State: monitor.StateStuck},
			{Resource: "zz", State: monitor.StateSplit},
		},
	}
	e.Observe(s, []monitor.Event{
		{Kind: monitor.EventQuorumLost, Resource: "billing"},
		{Kind: monitor.EventMasterRestarted, Master: "b:1"},
		{Kind: monitor.EventMasterRestarted, Master: "b:1"},
	})
	e.AddViolations(2)
	got := scrape(t, e)
	want := map[string]string{
		`redlock_master_up{master="a:1"}`:                     "1",
		`redlock_master_up{master="c:1"}`:                     "0",
		`redlock_master_down{master="c:1"}`:                   "1",
		`redlock_master_missed_polls{master="c:1"}`:           "3",
		`redlock_master_rtt_seconds{master="a:1"}`:            "0.002",
		`redlock_master_clock_offset_seconds{master="a:1"}`:   "-0.003",
		`redlock_master_clock_drift_ratio{master="a:1"}`:      "0.00025",
		`redlock_master_uptime_seconds{master="a:1"}`:         "3600",
		`redlock_master_restarts_total{master="b:1"}`:         "2",
		`redlock_master_restarts_total{master="a:1"}`:         "0",
		`redlock_master_lock_keys{master="a:1"}`:              "2",
		`redlock_master_sweep_scanned_keys{master="a:1"}`:     "10",
		`redlock_master_sweep_keyspace_keys{master="a:1"}`:    "40",
		`redlock_master_sweeps_completed_total{master="a:1"}`: "1",
		`redlock_quorum`:                                    "2",
		`redlock_masters_up`:                                "2",
		`redlock_servers`:                                   "3",
		`redlock_polls_total`:                               "7",
		`redlock_locks{state="held"}`:                       "2",
		`redlock_locks{state="stuck"}`:                      "1",
		`redlock_locks{state="split"}`:                      "1",
		`redlock_locks{state="partial"}`:                    "0",
		`redlock_locks{state="unknown"}`:                    "0",
		`redlock_lock_held{resource="billing"}`:             "1",
		`redlock_lock_masters{resource="billing"}`:          "2",
		`redlock_lock_fence{resource="billing"}`:            "33",
		`redlock_lock_validity_seconds{resource="billing"}`: "1.5",
		`redlock_lock_held{resource="absent"}`:              "0",
		`redlock_events_total{kind="quorum-lost"}`:          "1",
		`redlock_lock_lost_total`:                           "1",
		`redlock_violations_total`:                          "2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for name := range got {
		for _, absent := range []string{`{master="b:1"}`, `{master="c:1"}`} {
			if strings.HasSuffix(name, absent) && (strings.Contains(name, "clock_") || strings.Contains(name, "uptime") ||
				strings.Contains(name, "keyspace")) {
				t.Errorf("%s is written for a master where it is unknown", name)
			}
		}
		if strings.Contains(name, `resource="other"`) {
			t.Errorf("%s: a lock not listed in Resources got a series of its own", name)
		}
		if strings.HasPrefix(name, "redlock_build_info") && !strings.Contains(name, `version="v1.2.3"`) {
			t.Errorf("%s: want the version given", name)
		}
	}
}

func TestEachHolderOfAListedLockHasItsSeries(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	// A Symfony shared lock on three masters, as the monitor reads it: two readers live, one expired but still
	// in the set (Symfony cleans up at the next acquisition); scores are expiries in ms, the key PEXPIREAT the latest.
	ms := func(d time.Duration) float64 { return float64(now.Add(d).UnixMilli()) }
	readings := make([]monitor.Reading, 3)
	for i := range readings {
		readings[i] = monitor.Reading{Addr: fmt.Sprintf("m%d:6379", i), Sent: now, Received: now, ServerTime: now,
			Uptime: time.Hour, Replicas: 0, Keys: []monitor.KeyReading{{Key: "report", ReadAt: now, PTTL: 20 * time.Second,
				Set: []monitor.SetMember{{Member: "reader-one-0123456789", Score: ms(10 * time.Second)},
					{Member: "reader-two-0123456789", Score: ms(20 * time.Second)},
					{Member: "reader-gone-012345678", Score: ms(-time.Second)}}}}}
	}
	s := monitor.Aggregate(nil, readings, nil, now, monitor.Config{})
	e := New(Options{Resources: []string{"report"}})
	e.Observe(s, nil)
	got := scrape(t, e)
	if got[`redlock_lock_holders{resource="report"}`] != "2" {
		t.Errorf("holders = %q, want the 2 live readers", got[`redlock_lock_holders{resource="report"}`])
	}
	for token, want := range map[string]float64{"reader-one-0123456789": 10, "reader-two-0123456789": 20} {
		name := fmt.Sprintf(`redlock_lock_holder_validity_seconds{holder=%q,mode="read",resource="report"}`, token)
		v, err := strconv.ParseFloat(got[name], 64)
		if err != nil || v > want || v < want-1 {
			t.Errorf("%s = %q, want just under %vs", name, got[name], want)
		}
	}
	for name := range got {
		if strings.Contains(name, "reader-gone") {
			t.Errorf("%s: an expired member is written as a holder", name)
		}
	}
}
