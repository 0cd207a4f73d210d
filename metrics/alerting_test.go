package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// key is one lock key as a master holds it, for polls.
type key struct {
	resource, token string
	pttl            time.Duration
}

// poll aggregates one poll at now of masters, each holding its keys, after prev: every master answers, has
// swept its keyspace, and is read as having no key of the resources (of this poll or of prev) it does not hold.
func poll(prev *monitor.Snapshot, now time.Time, masters ...[]key) monitor.Snapshot {
	var resources []string
	if prev != nil {
		for _, l := range prev.Locks {
			resources = append(resources, l.Resource)
		}
	}
	for _, keys := range masters {
		for _, k := range keys {
			resources = append(resources, k.resource)
		}
	}
	readings := make([]monitor.Reading, len(masters))
	for i, keys := range masters {
		r := monitor.Reading{Addr: fmt.Sprintf("m%d:6379", i), Sent: now, Received: now, ServerTime: now,
			Uptime: time.Hour, Replicas: -1, Sweep: monitor.Sweep{Completed: 1, Total: -1}}
		held := map[string]bool{}
		for _, k := range keys {
			held[k.resource] = true
			r.Keys = append(r.Keys, monitor.KeyReading{Key: k.resource, Value: k.token, PTTL: k.pttl, ReadAt: now})
		}
		for _, res := range resources {
			if !held[res] {
				held[res] = true
				r.Keys = append(r.Keys, monitor.KeyReading{Key: res, Absent: true})
			}
		}
		readings[i] = r
	}
	return monitor.Aggregate(prev, readings, nil, now, monitor.Config{})
}

// TestAConfirmedLostQuorumIsExportedAsAWarningNamingTheLock: a held lock whose key is deleted on two of three
// masters while it lives on the third has lost its quorum; the monitor raises it on the second poll that sees
// it, and only then does redlock_warning name the lock (what the shipped quorum-lost alert reads).
func TestAConfirmedLostQuorumIsExportedAsAWarningNamingTheLock(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	lock := key{"billing", "token-0123456789abcdef", time.Minute}
	name := `redlock_warning{kind="quorum-lost",level="error",master="",resource="billing"}`
	e := New(Options{})
	s := poll(nil, now, []key{lock}, []key{lock}, []key{lock})
	steps := []struct {
		what string
		want bool
	}{{"held on every master", false}, {"first poll without the majority's keys", false}, {"second such poll", true}}
	for i, step := range steps {
		if i > 0 {
			now = now.Add(500 * time.Millisecond)
			lock.pttl -= 500 * time.Millisecond
			s = poll(&s, now, []key{lock}, nil, nil)
		}
		e.Observe(s, nil)
		if _, got := scrape(t, e)[name]; got != step.want {
			t.Errorf("%s: %s exported %v, want %v; warnings %v", step.what, name, got, step.want, s.Warnings)
		}
	}
}

// TestEveryWarningIsOneSeriesWithoutItsText exports the monitor's warnings as they are: one series each,
// labelled by level, kind, master and lock, never by the text (which carries figures that change every poll),
// and one series for two warnings of one identity, which would otherwise fail the whole scrape.
func TestEveryWarningIsOneSeriesWithoutItsText(t *testing.T) {
	e := New(Options{})
	e.Observe(monitor.Snapshot{Warnings: []monitor.Warning{
		{Severity: monitor.SeverityWarning, Kind: "eviction-policy", Master: "a:1", Text: "maxmemory-policy allkeys-lru evicts any key"},
		{Severity: monitor.SeverityError, Kind: monitor.WarnStuck, Resource: "cron", Text: "no TTL on 3 masters"},
		{Severity: monitor.SeverityError, Kind: monitor.WarnRestart, Master: "b:1", Text: "started 2s ago"},
		{Severity: monitor.SeverityError, Kind: monitor.WarnRestart, Master: "b:1", Text: "started 3s ago"},
	}}, nil)
	text := scrapeText(t, e)
	got := scrape(t, e)
	for _, name := range []string{
		`redlock_warning{kind="eviction-policy",level="warning",master="a:1",resource=""}`,
		`redlock_warning{kind="stuck",level="error",master="",resource="cron"}`,
		`redlock_warning{kind="restart",level="error",master="b:1",resource=""}`,
	} {
		if got[name] != "1" {
			t.Errorf("%s = %q, want 1", name, got[name])
		}
	}
	if n := strings.Count(text, "\nredlock_warning{"); n != 3 {
		t.Errorf("%d warning series, want 3 (two restart warnings of one master are one series)", n)
	}
	if strings.Contains(text, "started 2s ago") || strings.Contains(text, "allkeys-lru evicts") {
		t.Errorf("a warning's text is in the scrape; it must not be a label:\n%s", text)
	}
}

// TestSplitLocksAreNamedUpToTen: a split lock is named whether or not --metrics-locks lists it, so that an
// alert can say which; beyond ten only the count says how many more.
func TestSplitLocksAreNamedUpToTen(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var a, b []key
	for i := range 12 {
		r := fmt.Sprintf("split:%02d", i)
		a = append(a, key{r, "token-a-0123456789abcdef", time.Minute})
		b = append(b, key{r, "token-b-0123456789abcdef", time.Minute})
	}
	s := poll(nil, now, a, b, nil)
	s = poll(&s, now.Add(500*time.Millisecond), a, b, nil)
	e := New(Options{})
	e.Observe(s, nil)
	got := scrape(t, e)
	if got[`redlock_locks{state="split"}`] != "12" {
		t.Fatalf(`redlock_locks{state="split"} = %q, want the 12 split locks of the test`, got[`redlock_locks{state="split"}`])
	}
	for i := range 12 {
		name := fmt.Sprintf(`redlock_lock_split{resource="split:%02d"}`, i)
		if want := i < maxSplitLocks; (got[name] == "1") != want {
			t.Errorf("%s = %q; want it named: %v (the first %d by name)", name, got[name], want, maxSplitLocks)
		}
	}
}

// TestLongestTTLAndTheClockAllowanceItGives: the longest TTL is the longest read in the last poll, so it falls
// when the long lock goes and shorter locks follow, and the allowance is the drift factor's share of it plus
// 2ms; neither is written while no TTL is read.
func TestLongestTTLAndTheClockAllowanceItGives(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	e := New(Options{DriftFactor: 0.05})
	noTTL := func(when string) {
		t.Helper()
		for name := range scrape(t, e) {
			if strings.HasPrefix(name, "redlock_longest_ttl_seconds") || strings.HasPrefix(name, "redlock_clock_allowance_seconds") {
				t.Errorf("%s is written %s", name, when)
			}
		}
	}
	e.Observe(poll(nil, now, nil, nil, nil), nil)
	noTTL("before any lock was seen")
	long := key{"long", "token-0123456789abcdef", 30 * time.Second}
	s := poll(nil, now, []key{long}, []key{long}, nil)
	e.Observe(s, nil)
	got := scrape(t, e)
	if got["redlock_longest_ttl_seconds"] != "30" || got["redlock_clock_allowance_seconds"] != "1.502" {
		t.Errorf("longest TTL %q, allowance %q; want 30 and 1.502 (0.05 x 30s + 2ms) while the 30s lock is read",
			got["redlock_longest_ttl_seconds"], got["redlock_clock_allowance_seconds"])
	}
	short := key{"short", "token-0123456789abcdef", 2 * time.Second}
	s = poll(&s, now.Add(time.Second), []key{short}, []key{short}, nil)
	e.Observe(s, nil)
	got = scrape(t, e)
	if got["redlock_longest_ttl_seconds"] != "2" || got["redlock_clock_allowance_seconds"] != "0.102" {
		t.Errorf("longest TTL %q, allowance %q; want 2 and 0.102 once the 30s lock went and a 2s one is read",
			got["redlock_longest_ttl_seconds"], got["redlock_clock_allowance_seconds"])
	}
	e.Observe(poll(&s, now.Add(2*time.Second), nil, nil, nil), nil)
	noTTL("after every lock went")
}

// TestAHolderAgeCountsFromWhenItsTokenWasFirstSeen: a listed lock held by one token for 90 seconds of polls
// has a holder 90 seconds old; a new holder starts again from 0.
func TestAHolderAgeCountsFromWhenItsTokenWasFirstSeen(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	first := key{"report", "token-one-0123456789ab", time.Minute}
	e := New(Options{Resources: []string{"report"}})
	s := poll(nil, now, []key{first}, []key{first}, []key{first})
	for range 3 {
		now = now.Add(30 * time.Second)
		s = poll(&s, now, []key{first}, []key{first}, []key{first})
	}
	age := func(token string) (float64, error) {
		e.Observe(s, nil)
		name := fmt.Sprintf(`redlock_lock_holder_age_seconds{holder=%q,mode="exclusive",resource="report"}`, fingerprint(token))
		v, ok := scrape(t, e)[name]
		if !ok {
			return 0, fmt.Errorf("no series %s", name)
		}
		return strconv.ParseFloat(v, 64)
	}
	if got, err := age(first.token); err != nil || got != 90 {
		t.Errorf("after 90s held by one token: age %v (%v), want 90", got, err)
	}
	second := key{"report", "token-two-0123456789ab", time.Minute}
	now = now.Add(500 * time.Millisecond)
	s = poll(&s, now, []key{second}, []key{second}, []key{second})
	if got, err := age(second.token); err != nil || got != 0 {
		t.Errorf("just taken over: the new holder's age %v (%v), want 0", got, err)
	}
}
