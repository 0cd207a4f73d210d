package monitor

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
	c := contentionOf(ivs, t0, sec(60))
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
	c = contentionOf(ivs[2:], sec(20), sec(60))
	if c.Acquisitions != 2 || c.Holds != 1 || c.HoldMax != 10*time.Second || c.Gaps != 2 || c.GapP50 != 6*time.Second ||
		c.Holders != 3 || c.Busiest != "D" || c.BusiestShare != 0.25 {
		t.Errorf("over [20s, 60s]: %+v; want C and D begun, C's hold of 1s, gaps of 6s and 19s, D holding a quarter", c)
	}
}

// TestSnapshotContentionCoversOnlyTheTimeWatched: a period longer than the monitor has watched is cut to it, so
// the heat is not diluted by time nobody saw.
func TestSnapshotContentionCoversOnlyTheTimeWatched(t *testing.T) {
	snaps := story(t, Config{}, handovers(31)...)
	s := snaps[30]
	l := lockOf(t, s, "r")
	c := s.Contention(l.History, 15*time.Minute)
	if c.Period != 30*time.Second || c.Acquisitions != 30 || c.PerMinute != 60 || c.HoldP50 != time.Second || c.GapMax != 0 || c.Holders != 31 {
		t.Errorf("30 handovers in 30s watched: %+v; want 30 acquisitions over 30s, 60 a minute, holds of 1s, no gap", c)
	}
	if s.HoldLog("r") != l.History || s.HoldLog("q") != nil {
		t.Errorf("HoldLog(\"r\") = %p, want the lock's History %p; HoldLog of an unknown resource not nil", s.HoldLog("r"), l.History)
	}
	if s.Window() != DefaultHistory {
		t.Errorf("Window = %v, want the default %v", s.Window(), DefaultHistory)
	}
}

// TestAcquiredSinceCountsWhatTheFiguresCount: the heat the locks panel sorts by is the figures' acquisitions
// over the last minute, across chunks.
func TestAcquiredSinceCountsWhatTheFiguresCount(t *testing.T) {
	snaps := story(t, Config{}, handovers(100)...)
	s := snaps[99]
	l := lockOf(t, s, "r")
	for _, back := range []time.Duration{0, time.Second, 20 * time.Second, time.Minute, 99 * time.Second, time.Hour} {
		since := s.Time.Add(-back)
		if got, want := l.History.AcquiredSince(since), contentionOf(l.History.Intervals(since), since, s.Time).Acquisitions; got != want {
			t.Errorf("AcquiredSince(now-%v) = %d, want %d (the figures' count)", back, got, want)
		}
	}
	if n := l.History.AcquiredSince(s.Time.Add(-time.Minute)); n != 60 {
		t.Errorf("one handover a second: %d in the last minute, want 60", n)
	}
}
