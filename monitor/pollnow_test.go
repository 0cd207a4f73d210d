package monitor

import (
	"context"
	"testing"
	"time"
)

// PollNow polls at once, with an interval of an hour, and the poll sees a lock set after the previous one.
func TestPollNowPollsAheadOfTheInterval(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, Config{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := c.mon.Run(ctx)
	first := <-ch
	c.set(t, "orders:now", "token-now", time.Minute, 0, 1, 2)
	c.mon.PollNow()
	select {
	case s := <-ch:
		if s.Seq <= first.Seq || len(s.Locks) != 1 || s.Locks[0].Resource != "orders:now" {
			t.Errorf("the poll asked for shows seq %d (first %d) and locks %+v, want orders:now", s.Seq, first.Seq, s.Locks)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no poll after PollNow with an hour-long interval")
	}

	c.mon.SetPaused(true)
	c.mon.PollNow()
	c.mon.SetPaused(false) // the next poll is due an hour after the last: PollNow while paused asked for none
	select {
	case s := <-ch:
		t.Errorf("snapshot %d polled at once: PollNow while paused was kept", s.Seq)
	case <-time.After(200 * time.Millisecond):
	}
}
