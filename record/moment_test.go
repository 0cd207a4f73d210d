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

// TestAMomentOutsideTheRecordingIsRefusedNamingItsSpan: a moment before the first poll or past the second of
// the last is an error naming the recording's span, not its first or last poll.
func TestAMomentOutsideTheRecordingIsRefusedNamingItsSpan(t *testing.T) {
	start := time.Date(2026, 11, 27, 3, 10, 0, 5e8, time.UTC)
	rec := &Recording{polls: []writtenPoll{{poll: monitor.Poll{Time: start}}, {poll: monitor.Poll{Time: start.Add(5 * time.Minute)}}}}
	p := NewPlayer(rec, nil)
	span := "it spans 2026-11-27 03:10:00.500 to 03:15:00.500 (5m00s)"
	for _, tc := range []struct{ in, want string }{
		{"03:10", "03:10:00.000 is before the recording began: " + span},
		{"03:15:01", "03:15:01.000 is after the recording ended: " + span},
		{"+6m", "03:16:00.500 is after the recording ended: " + span},
		{"2026-11-28T03:12:00Z", "2026-11-28 03:12:00.000 is after the recording ended: " + span},
	} {
		if at, err := p.Moment(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("--at %q: %v, %v; want the error %q", tc.in, at, err, tc.want)
		}
	}
	for _, in := range []string{"03:10:00.5", "03:15:00", "03:15:00.999", "end", "+0s"} { // the span, to the last's second
		if _, err := p.Moment(in); err != nil {
			t.Errorf("--at %q: %v; want it taken", in, err)
		}
	}
}
