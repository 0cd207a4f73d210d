package demo

import (
	"fmt"
	"time"
)

// clockSlack is how far from real time a master's clock may be and still count as normal.
const clockSlack = 50 * time.Millisecond

// ResetFaults brings every master back to normal at once, as a presenter does between two stories: a
// crashed master starts (empty, and a pending delayed restart is called off), a frozen one thaws, latency
// and partitions go, and every clock is set back to real time at real speed. Keys keep the TTL they have
// left. One event says what was reset.
func (d *Demo) ResetFaults() error {
	fixed := 0
	for i, m := range d.masters {
		d.mu.Lock()
		f := d.faults[i]
		d.mu.Unlock()
		if f.down || !f.restartAt.IsZero() {
			if err := d.start(i, fmt.Sprintf("master %d started, empty, by the reset", i+1)); err != nil {
				return err
			}
		}
		if f.paused {
			if err := m.Resume(); err != nil {
				return fmt.Errorf("demo: master %d: %w", i+1, err)
			}
		}
		d.net[i].SetLatency(0)
		d.net[i].SetPartitioned(false)
		offset := time.Until(m.Now())
		m.ResetClock()
		d.mu.Lock()
		d.faults[i].paused, d.faults[i].latency, d.faults[i].partitioned = false, 0, false
		d.faults[i].clockRate = 1
		d.mu.Unlock()
		if f.down || f.paused || f.latency > 0 || f.partitioned || f.clockRate != 1 || offset > clockSlack || offset < -clockSlack {
			fixed++
		}
	}
	d.emit(Event{Kind: EventFault, Master: -1, Text: fmt.Sprintf("reset: every master up, thawed, reachable, "+
		"without added latency, its clock at real time (%d of %d had a fault)", fixed, len(d.masters))})
	return nil
}
