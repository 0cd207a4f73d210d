package panels

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// TestTimelineCellsAreTheIntervals: each cell shows the holder that held it, free time, the trouble while a key
// outlived its quorum or the lock was split, several holders in one cell, and nothing before the dashboard
// watched.
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
		trs     []monitor.Trouble
		want    string
	}{
		{"holders, free, lost quorum until gone", ivs, t0, nil, "AAA·BBBBBB!!···CCCCC"},
		{"blind before watched", ivs, at(25), nil, "  A·BBBBBB!!···CCCCC"},
		{"split earlier, inside the window", ivs, t0, []monitor.Trouble{{Start: at(122), End: at(139)}}, "AAA·BBBBBB!!!!·CCCCC"},
		{"split now, free before", []monitor.Interval{iv("A", 0, 100, monitor.EndReleased)}, t0,
			[]monitor.Trouble{{Start: at(165)}}, "AAAAAAAAAA······!!!!"},
		{"a holder outweighs a short split", ivs, t0, []monitor.Trouble{{Start: at(60), End: at(62)}}, "AAA·BBBBBB!!···CCCCC"},
		{"three holders within a cell", []monitor.Interval{iv("A", 0, 3, monitor.EndTakenOver), iv("B", 3, 6, monitor.EndTakenOver),
			iv("C", 6, 200, monitor.EndOpen)}, t0, nil, "≡CCCCCCCCCCCCCCCCCCC"},
	}
	for _, tt := range tests {
		tl := kit.NewTimeline(tt.ivs, tt.trs, t0, at(200), tt.watched, 20)
		if got := string(tl.Cells); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
