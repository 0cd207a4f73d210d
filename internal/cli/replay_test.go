package cli

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
)

func TestRecordMaxTakesSizesWithUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"256M", 256 << 20, true}, {"256MiB", 256 << 20, true}, {"1G", 1 << 30, true}, {"2048K", 2 << 20, true},
		{"1048576", 1 << 20, true}, {"500K", 0, false}, {"lots", 0, false}, {"-5M", 0, false}, {"", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestReplayAtTakesTheMomentsPeopleQuote(t *testing.T) {
	start := time.Date(2026, 11, 27, 3, 10, 0, 0, time.UTC)
	rec := &record.Recording{Polls: []monitor.Poll{{Time: start}, {Time: start.Add(5 * time.Minute)}}}
	p := record.NewPlayer(rec, nil)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"03:12:07", time.Date(2026, 11, 27, 3, 12, 7, 0, time.UTC)},
		{"03:12", time.Date(2026, 11, 27, 3, 12, 0, 0, time.UTC)},
		{"2026-11-27T03:12:07.5Z", time.Date(2026, 11, 27, 3, 12, 7, 5e8, time.UTC)},
		{"+90s", start.Add(90 * time.Second)},
		{"end", start.Add(5 * time.Minute)},
	} {
		got, err := parseMoment(tc.in, p)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("--at %q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"yesterday", "+soon", "25:00"} {
		if _, err := parseMoment(bad, p); err == nil {
			t.Errorf("--at %q was taken", bad)
		}
	}
}
