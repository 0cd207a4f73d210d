package record

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

func TestReplayAtTakesTheMomentsPeopleQuote(t *testing.T) {
	start := time.Date(2026, 11, 27, 3, 10, 0, 0, time.UTC)
	rec := &Recording{polls: []writtenPoll{{poll: monitor.Poll{Time: start}}, {poll: monitor.Poll{Time: start.Add(5 * time.Minute)}}}}
	p := NewPlayer(rec, nil)
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
		got, err := p.Moment(tc.in)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("--at %q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"yesterday", "+soon", "25:00"} {
		if _, err := p.Moment(bad); err == nil {
			t.Errorf("--at %q was taken", bad)
		}
	}
}
