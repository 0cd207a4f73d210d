package holds

import (
	"testing"
	"time"
)

// TestContentionFiguresFromIntervals: hold times, free gaps, heat, holders and the busiest share, computed from
// known intervals over a known period.
func TestContentionFiguresFromIntervals(t *testing.T) {
	// Over [0s, 60s]: A held 0-10 (begun before the monitor saw it), B 12-14, A 14-24, C 30-31, D from 50 on.
	iv := func(tok string, start, end int, known bool, ended EndKind) Interval {
		i := Interval{Token: tok, Start: sec(start), StartKnown: known, StartSlack: 200 * time.Millisecond, Ended: ended}
		if ended != EndOpen {
			i.End, i.EndSlack = sec(end), 300*time.Millisecond
		}
		return i
	}
	ivs := []Interval{
		iv("A", 0, 10, false, EndReleased),
		iv("B", 12, 14, true, EndTakenOver),
		iv("A", 14, 24, true, EndReleased),
		iv("C", 30, 31, true, EndExpired),
		iv("D", 50, 0, true, EndOpen),
	}
	c := ContentionOf(ivs, t0, sec(60))
	want := Contention{
		Period: time.Minute, Acquisitions: 4, PerMinute: 4,
		Holds: 3, HoldP50: 2 * time.Second, HoldP95: 10 * time.Second, HoldMax: 10 * time.Second,
		Gaps: 4, GapP50: 2 * time.Second, GapP95: 19 * time.Second, GapMax: 19 * time.Second,
		Holders: 4, Busiest: "A", BusiestShare: 20.0 / 60, Resolution: 300 * time.Millisecond,
	}
	if c != want {
		t.Errorf("figures\n got %+v\nwant %+v", c, want)
	}
	// Over [20s, 60s] only C and D began; A's second tenure is cut at the period's start.
	c = ContentionOf(ivs[2:], sec(20), sec(60))
	if c.Acquisitions != 2 || c.Holds != 1 || c.HoldMax != 10*time.Second || c.Gaps != 2 || c.GapP50 != 6*time.Second ||
		c.Holders != 3 || c.Busiest != "D" || c.BusiestShare != 0.25 {
		t.Errorf("over [20s, 60s]: %+v; want C and D begun, C's hold of 1s, gaps of 6s and 19s, D holding a quarter", c)
	}
}

// t0 is the time the tests' stories start.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// sec is n seconds after t0.
func sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
