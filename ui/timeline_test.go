package ui

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestTimelineCellsAreTheIntervals: each cell shows the holder that held it, free time, the trouble while a key
// outlived its quorum, several holders in one cell, and nothing before the dashboard watched.
func TestTimelineCellsAreTheIntervals(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	iv := func(tok string, from, to int, ended monitor.EndKind) monitor.Interval {
		i := monitor.Interval{Token: tok, Start: at(from), StartKnown: true, Ended: ended}
		if ended != monitor.EndOpen {
			i.End = at(to)
		}
		return i
	}
	lost := iv("B", 40, 100, monitor.EndQuorumLost)
	lost.Gone = at(120)
	ivs := []monitor.Interval{iv("A", 0, 30, monitor.EndReleased), lost, iv("C", 150, 0, monitor.EndOpen)}
	tests := []struct {
		name    string
		ivs     []monitor.Interval
		watched time.Time
		trouble bool
		want    string
	}{
		{"holders, free, lost quorum until gone", ivs, t0, false, "AAA·BBBBBB!!···CCCCC"},
		{"blind before watched", ivs, at(25), false, "  A·BBBBBB!!···CCCCC"},
		{"split now: the last cell", ivs, t0, true, "AAA·BBBBBB!!···CCCC!"},
		{"three holders within a cell", []monitor.Interval{iv("A", 0, 3, monitor.EndTakenOver), iv("B", 3, 6, monitor.EndTakenOver),
			iv("C", 6, 200, monitor.EndOpen)}, t0, false, "≡CCCCCCCCCCCCCCCCCCC"},
	}
	for _, tt := range tests {
		tl := newTimeline(tt.ivs, t0, at(200), tt.watched, 20, tt.trouble)
		if got := string(tl.cells); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
