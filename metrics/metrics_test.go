package metrics

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// scrapeText returns the whole text of one scrape of e, comments and the Go runtime's metrics included.
func scrapeText(t *testing.T, e *Exporter) string {
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
	return string(body)
}

// scrape returns the redlock_ lines of one scrape of e.
func scrape(t *testing.T, e *Exporter) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(scrapeText(t, e), "\n") {
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
	if before[`redlock_violations_total`] != "0" || before[`redlock_lock_lost_total`] != "0" || before[`redlock_polls_total`] != "0" ||
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
			{Resource: "zz:gone", State: monitor.StateFree}, // no key: listed for its holders in the window
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
		`redlock_locks{state="free"}`:                       "1",
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
		name := fmt.Sprintf(`redlock_lock_holder_validity_seconds{holder=%q,mode="read",resource="report"}`, fingerprint(token))
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

// fingerprint is the holder label the metrics must give token, worked out here independently of the code
// under test: "sha256:" and the first 8 hex digits of the token's SHA-256.
func fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])[:8]
}

// TestHolderLabelNamesAFingerprintNeverTheToken: a token is a capability (whoever knows it can release the
// lock) and the metrics are served without authentication, so no scrape may carry one. The holder label is a
// short digest of the token instead, the same at every poll so that a holder's series stays one series.
func TestHolderLabelNamesAFingerprintNeverTheToken(t *testing.T) {
	const token = "3f9c2b7e-secret-capability-token-0123456789abcdef"
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	reading := func(at time.Time) []monitor.Reading {
		readings := make([]monitor.Reading, 3)
		for i := range readings {
			readings[i] = monitor.Reading{Addr: fmt.Sprintf("m%d:6379", i), Sent: at, Received: at, ServerTime: at,
				Uptime: time.Hour, Keys: []monitor.KeyReading{{Key: "billing", ReadAt: at, PTTL: 30 * time.Second,
					Value: token}}}
		}
		return readings
	}
	e := New(Options{Resources: []string{"billing"}})
	first := monitor.Aggregate(nil, reading(now), nil, now, monitor.Config{})
	if l := first.Lock("billing"); l == nil || l.State != monitor.StateHeld {
		t.Fatalf("the test's lock is not held: %+v", first.Lock("billing"))
	}
	want := fmt.Sprintf(`redlock_lock_holder_validity_seconds{holder=%q,mode="exclusive",resource="billing"}`, fingerprint(token))
	for i, s := range []monitor.Snapshot{first, monitor.Aggregate(&first, reading(now.Add(time.Second)), nil, now.Add(time.Second), monitor.Config{})} {
		e.Observe(s, nil)
		text := scrapeText(t, e)
		if strings.Contains(text, token[:16]) {
			t.Errorf("poll %d: the scrape carries the holder's token (or its start), a capability served to anyone:\n%s",
				i+1, holderLines(text))
		}
		if _, ok := scrape(t, e)[want]; !ok {
			t.Errorf("poll %d: no series %s; the holder must be named by its fingerprint, the same at every poll:\n%s",
				i+1, want, holderLines(text))
		}
	}
}

// holderLines are the lines of a scrape's text that name holders, for failure messages.
func holderLines(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "holder=") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestHoldersWhoseTokensShareAFingerprintKeepTheirSeries: 8 hex digits can be made to collide (a client may
// even choose its tokens so). Two holders of one lock with the same fingerprint must not make two series of
// the same labels, which would fail every scrape: the second gets its own label.
func TestHoldersWhoseTokensShareAFingerprintKeepTheirSeries(t *testing.T) {
	seen := map[string]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		token := fmt.Sprintf("reader-%d", i)
		if other, ok := seen[fingerprint(token)]; ok {
			a, b = other, token
		}
		seen[fingerprint(token)] = token
	}
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) float64 { return float64(now.Add(d).UnixMilli()) }
	readings := make([]monitor.Reading, 3)
	for i := range readings {
		readings[i] = monitor.Reading{Addr: fmt.Sprintf("m%d:6379", i), Sent: now, Received: now, ServerTime: now,
			Uptime: time.Hour, Keys: []monitor.KeyReading{{Key: "report", ReadAt: now, PTTL: 20 * time.Second,
				Set: []monitor.SetMember{{Member: a, Score: ms(10 * time.Second)}, {Member: b, Score: ms(20 * time.Second)}}}}}
	}
	e := New(Options{Resources: []string{"report"}})
	e.Observe(monitor.Aggregate(nil, readings, nil, now, monitor.Config{}), nil)
	got := scrape(t, e)
	if got[`redlock_lock_holders{resource="report"}`] != "2" {
		t.Fatalf("holders = %q, want 2 (%q and %q share the fingerprint %s); the scrape:\n%v", got[`redlock_lock_holders{resource="report"}`],
			a, b, fingerprint(a), got)
	}
	n := 0
	for name := range got {
		if strings.HasPrefix(name, "redlock_lock_holder_validity_seconds{") && strings.Contains(name, fingerprint(a)) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d series for the two holders of fingerprint %s, want one each:\n%s", n, fingerprint(a), holderLines(scrapeText(t, e)))
	}
}
