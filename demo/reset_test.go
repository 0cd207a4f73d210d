package demo

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestResetFaultsBringsEveryMasterBackToNormal(t *testing.T) {
	d := startDemo(t, Options{Paused: true})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.StopMaster(0))
	must(d.RestartMaster(1, true)) // down, with a delayed restart pending
	must(d.SetMasterPaused(2, true))
	must(d.SetMasterLatency(3, 200*time.Millisecond))
	must(d.SetMasterPartitioned(3, true))
	must(d.JumpMasterClock(4, 3*time.Second))
	must(d.SetMasterClockRate(4, 2))
	must(d.ResetFaults())
	for i, m := range d.Masters() {
		if m.Down || !m.RestartAt.IsZero() || m.Paused || m.Partitioned || m.Latency != 0 || m.ClockRate != 1 ||
			m.ClockOffset > clockSlack || m.ClockOffset < -clockSlack {
			t.Errorf("master %d after the reset: %+v", i+1, m)
		}
	}
	// The masters answer again, the thawed and the restarted alike.
	conns := d.NewClients()
	defer closeAll(conns)
	for i, c := range conns {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err != nil {
			t.Errorf("master %d does not answer after the reset: %v", i+1, err)
		}
	}
	var said bool
	for _, e := range collect(d, 5*time.Second, func(e Event) bool { return strings.HasPrefix(e.Text, "reset:") }) {
		said = said || strings.Contains(e.Text, "(5 of 5 had a fault)")
	}
	if !said {
		t.Error("no reset event saying that five masters had a fault")
	}
}
