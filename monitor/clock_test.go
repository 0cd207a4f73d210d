package monitor

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// clockPolls runs polls one second apart in which master j's clock reads skew(i, j) ahead of the poller's, and
// returns the last snapshot.
func clockPolls(t *testing.T, polls int, skew func(i, j int) time.Duration) Snapshot {
	t.Helper()
	var prev *Snapshot
	var s Snapshot
	for i := range polls {
		sent := t0.Add(time.Duration(i) * time.Second)
		r := fixture(sent, []string{"a", "b", "c"}, map[string][]cell{"r": {{"A", 5 * time.Second, 0},
			{"A", 5 * time.Second, 0}, {"A", 5 * time.Second, 0}}})
		for j := range r {
			r[j].Sent, r[j].Received = sent, sent
			r[j].ServerTime = sent.Add(skew(i, j))
		}
		s = Aggregate(prev, r, nil, sent, Config{})
		prev = &s
	}
	return s
}

// clockWarnings returns the texts of the clock warnings, by master ("" for ours).
func clockWarnings(s Snapshot) map[string][]string {
	out := map[string][]string{}
	for _, w := range s.Warnings {
		if w.Kind == WarnClockOffset || w.Kind == WarnClockDrift {
			out[w.Master] = append(out[w.Master], w.Text)
		}
	}
	return out
}

func TestClockWarningsBlameOurClockWhenEveryMasterMovesAtOnce(t *testing.T) {
	// Every master's clock gains 2% on ours: our clock is the slow one.
	s := clockPolls(t, 6, func(i, j int) time.Duration { return time.Duration(i) * 20 * time.Millisecond })
	got := clockWarnings(s)
	if len(got) != 1 || len(got[""]) == 0 {
		t.Fatalf("clock warnings %q, want only ones about our own clock", got)
	}
	if text := strings.Join(got[""], " | "); !strings.Contains(text, "our clock") || !strings.Contains(text, "slower") {
		t.Errorf("the warning %q does not say that our clock runs slower", text)
	}
}

func TestClockOffsetIsNotCalledDrift(t *testing.T) {
	// One master 2.5s ahead, steadily: an offset, not a drift.
	s := clockPolls(t, 6, func(i, j int) time.Duration {
		if j == 1 {
			return 2500 * time.Millisecond
		}
		return 0
	})
	got := clockWarnings(s)
	if len(got["b"]) != 1 {
		t.Fatalf("clock warnings %q, want one offset warning for b", got)
	}
	text := got["b"][0]
	for _, want := range []string{"2.5s ahead of ours", "same rate, not to agree"} {
		if !strings.Contains(text, want) {
			t.Errorf("offset warning %q does not say %q", text, want)
		}
	}
	if strings.Contains(text, "drift allowance") || strings.Contains(text, "2.5s exceeds") {
		t.Errorf("offset warning %q still calls the offset a drift", text)
	}
}

func TestWarningDurationsAreRounded(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{843772597 * time.Nanosecond, "843ms"}, {9*time.Minute + 57801*time.Millisecond, "9m57s"},
		{59564 * time.Millisecond, "59s"}, {1500 * time.Millisecond, "1.5s"}} {
		if got := vocab.ShortDuration(tc.d); got != tc.want {
			t.Errorf("vocab.ShortDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := vocab.DriftSize(-277520, 0); got != "27.8%" {
		t.Errorf("vocab.DriftSize(-277520, 0) = %q, want 27.8%%", got)
	}
}

func TestWarningsCountInGoodGrammar(t *testing.T) {
	r := fixture(t0, []string{"a"}, map[string][]cell{"r": {{"A", NoTTL, 0}}})
	s := Aggregate(nil, r, nil, t0, Config{})
	var texts []string
	for _, w := range s.Warnings {
		texts = append(texts, w.Text)
	}
	all := strings.Join(texts, " | ")
	if strings.Contains(all, "1 masters") {
		t.Errorf("warnings say \"1 masters\": %s", all)
	}
	if !strings.Contains(all, "1 master: use an odd number") {
		t.Errorf("no master-count warning in the singular: %s", all)
	}
}
