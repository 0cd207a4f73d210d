package monitor

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/holds"
)

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
	t.Parallel()
	snaps := story(t, Config{}, handovers(100)...)
	s := snaps[99]
	l := lockOf(t, s, "r")
	for _, back := range []time.Duration{0, time.Second, 20 * time.Second, time.Minute, 99 * time.Second, time.Hour} {
		since := s.Time.Add(-back)
		if got, want := l.History.AcquiredSince(since), holds.ContentionOf(l.History.Intervals(since), since, s.Time).Acquisitions; got != want {
			t.Errorf("AcquiredSince(now-%v) = %d, want %d (the figures' count)", back, got, want)
		}
	}
	if n := l.History.AcquiredSince(s.Time.Add(-time.Minute)); n != 60 {
		t.Errorf("one handover a second: %d in the last minute, want 60", n)
	}
}
