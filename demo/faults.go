package demo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// RestartDelay is how long a delayed restart keeps a crashed master down: a
// bit more than MaxTTL, so that every lock it took part in has expired on the
// other masters before it rejoins empty (the page's delayed-restart rule).
const RestartDelay = MaxTTL + 500*time.Millisecond

// masterFaults is the faults injected into one master.
type masterFaults struct {
	down        bool
	restartAt   time.Time // a delayed restart is pending until then
	restartGen  int       // bumped by every start, so a pending delayed restart knows it was overtaken
	paused      bool
	partitioned bool
	latency     time.Duration
	clockRate   float64
}

// MasterState is one master as the presenter left it: its faults and its
// clock.
type MasterState struct {
	Addr        string
	Down        bool          // crashed (stopped); the port refuses connections
	RestartAt   time.Time     // when a pending delayed restart brings it back; zero if none
	Paused      bool          // frozen: connections stay open, nothing is answered
	Partitioned bool          // cut off from the simulated clients
	Latency     time.Duration // added to each direction between the simulated clients and it
	ClockRate   float64       // 1 is real time
	ClockOffset time.Duration // how far its clock is ahead of real time
}

// Masters returns the state of every master, in master order.
func (d *Demo) Masters() []MasterState {
	now := time.Now()
	out := make([]MasterState, len(d.masters))
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, m := range d.masters {
		f := d.faults[i]
		out[i] = MasterState{
			Addr:        m.Addr(),
			Down:        f.down,
			RestartAt:   f.restartAt,
			Paused:      f.paused,
			Partitioned: f.partitioned,
			Latency:     f.latency,
			ClockRate:   f.clockRate,
			ClockOffset: m.Now().Sub(now).Round(time.Millisecond),
		}
	}
	return out
}

// master returns the master at index i (0-based, in Addrs order).
func (d *Demo) master(i int) (*testbed.Embedded, error) {
	if i < 0 || i >= len(d.masters) {
		return nil, fmt.Errorf("demo: no master %d: want 0 to %d", i, len(d.masters)-1)
	}
	return d.masters[i], nil
}

// fault logs a fault event about master i.
func (d *Demo) fault(i int, format string, args ...any) {
	d.emit(Event{Kind: EventFault, Master: i, Text: fmt.Sprintf(format, args...)})
}

// StopMaster crashes master i (0-based): the port refuses connections until
// StartMaster. The masters run without persistence, so the crash loses its
// keys.
func (d *Demo) StopMaster(i int) error {
	m, err := d.master(i)
	if err != nil {
		return err
	}
	if err := m.Stop(); err != nil {
		return fmt.Errorf("demo: stop master %d: %w", i+1, err)
	}
	d.mu.Lock()
	d.faults[i].down, d.faults[i].paused = true, false
	d.mu.Unlock()
	d.fault(i, "master %d crashed; without persistence its keys are lost", i+1)
	return nil
}

// StartMaster brings master i back at once, empty. It cancels a pending
// delayed restart. Starting a running master does nothing.
func (d *Demo) StartMaster(i int) error {
	return d.start(i, fmt.Sprintf("master %d restarted at once, empty: locks it held are gone from it", i+1))
}

func (d *Demo) start(i int, text string) error {
	m, err := d.master(i)
	if err != nil {
		return err
	}
	d.mu.Lock()
	wasDown := d.faults[i].down
	d.faults[i].restartGen++
	d.faults[i].restartAt = time.Time{}
	d.mu.Unlock()
	if !wasDown {
		return nil
	}
	if err := m.Start(); err != nil {
		return fmt.Errorf("demo: start master %d: %w", i+1, err)
	}
	d.mu.Lock()
	d.faults[i].down = false
	d.mu.Unlock()
	d.fault(i, "%s", text)
	return nil
}

// RestartMaster crashes master i and brings it back empty: at once, or, if
// delayed, after RestartDelay, which keeps exclusion safe without persistence.
// A delayed restart happens in the background; Masters shows when.
func (d *Demo) RestartMaster(i int, delayed bool) error {
	if err := d.StopMaster(i); err != nil {
		return err
	}
	if !delayed {
		return d.StartMaster(i)
	}
	d.mu.Lock()
	if d.ctx.Err() != nil {
		d.mu.Unlock()
		return errClosed
	}
	d.faults[i].restartGen++
	gen := d.faults[i].restartGen
	d.faults[i].restartAt = time.Now().Add(RestartDelay)
	d.wg.Add(1)
	d.mu.Unlock()
	d.fault(i, "master %d stays down for %v, longer than the longest TTL (%v), before it restarts",
		i+1, RestartDelay, MaxTTL)
	go func() {
		defer d.wg.Done()
		if !sleep(d.ctx, RestartDelay) {
			return
		}
		d.mu.Lock()
		current := d.faults[i].restartGen == gen
		d.mu.Unlock()
		if current {
			_ = d.start(i, restartedText(i, RestartDelay))
		}
	}()
	return nil
}

// SetMasterPaused freezes master i (as SIGSTOP or a long GC pause would) or
// lets it run again; commands queued meanwhile are then answered.
func (d *Demo) SetMasterPaused(i int, paused bool) error {
	m, err := d.master(i)
	if err != nil {
		return err
	}
	op, text := m.Resume, "master %d resumed; commands queued while it was frozen are answered now"
	if paused {
		op, text = m.Pause, "master %d frozen: connections stay open, nothing is answered"
	}
	if err := op(); err != nil {
		return fmt.Errorf("demo: master %d: %w", i+1, err)
	}
	d.mu.Lock()
	d.faults[i].paused = paused
	d.mu.Unlock()
	d.fault(i, text, i+1)
	return nil
}

// SetMasterLatency adds latency to each direction between the simulated
// clients and master i; 0 removes it. A round trip slower than a client's
// node timeout (Options.NodeTimeout, 150ms by default) makes the master
// count as failed in every round.
func (d *Demo) SetMasterLatency(i int, latency time.Duration) error {
	if _, err := d.master(i); err != nil {
		return err
	}
	if latency < 0 {
		return fmt.Errorf("demo: negative latency %v", latency)
	}
	d.net[i].SetLatency(latency)
	d.mu.Lock()
	d.faults[i].latency = latency
	d.mu.Unlock()
	if latency == 0 {
		d.fault(i, "master %d: latency removed", i+1)
	} else {
		d.fault(i, "master %d: %v latency each way between the clients and it", i+1, latency)
	}
	return nil
}

// SetMasterPartitioned cuts master i off from the simulated clients, or
// heals the partition. The dashboard still reaches it through Addrs.
func (d *Demo) SetMasterPartitioned(i int, partitioned bool) error {
	if _, err := d.master(i); err != nil {
		return err
	}
	d.net[i].SetPartitioned(partitioned)
	d.mu.Lock()
	d.faults[i].partitioned = partitioned
	d.mu.Unlock()
	if partitioned {
		d.fault(i, "master %d partitioned from the clients", i+1)
	} else {
		d.fault(i, "master %d: partition healed", i+1)
	}
	return nil
}

// JumpMasterClock moves master i's clock forward by jump at once: every key
// on it loses that much TTL, and keys whose TTL runs out expire.
func (d *Demo) JumpMasterClock(i int, jump time.Duration) error {
	m, err := d.master(i)
	if err != nil {
		return err
	}
	if jump < 0 {
		return fmt.Errorf("demo: clocks only jump forward, not by %v", jump)
	}
	m.JumpClock(jump)
	d.fault(i, "master %d: clock jumped %v forward; its keys lose that much TTL", i+1, jump)
	return nil
}

// SetMasterClockRate makes master i's clock run at rate times real speed
// (1 is real time, 2 twice as fast: its keys expire twice as soon).
func (d *Demo) SetMasterClockRate(i int, rate float64) error {
	m, err := d.master(i)
	if err != nil {
		return err
	}
	if !(rate >= 0) || rate > 1000 {
		return fmt.Errorf("demo: clock rate %v: want 0 to 1000", rate)
	}
	m.SetClockRate(rate)
	d.mu.Lock()
	d.faults[i].clockRate = rate
	d.mu.Unlock()
	d.fault(i, "master %d: clock runs at %g× real time", i+1, rate)
	return nil
}

// PauseClient freezes simulated client i (0-based) as a stop-the-world GC
// pause would, while it holds a lock: nothing it runs (not even its lock's
// auto-extension) moves for longer than the lock's TTL, and then it resumes
// and writes, believing it still holds the lock. A client holding nothing
// freezes at its next lock. With i < 0 a client holding a lock is chosen, or
// any if none does. It returns the client's name.
func (d *Demo) PauseClient(i int) (string, error) {
	if i >= len(d.clients) {
		return "", fmt.Errorf("demo: no client %d: want 0 to %d", i, len(d.clients)-1)
	}
	if i < 0 {
		i = d.pickHolder()
	}
	c := d.clients[i]
	select {
	case c.gc <- struct{}{}:
		d.emit(Event{Kind: EventFault, Client: c.name, Master: -1,
			Text: fmt.Sprintf("%s will freeze (stop-the-world GC) while holding its lock", c.name)})
	default: // a pause is already pending
	}
	return c.name, nil
}

// pickHolder returns the index of a workload client that holds a lock and is
// not frozen, or of any client if none does.
func (d *Demo) pickHolder() int {
	holding := map[string]bool{}
	for _, b := range d.Beliefs() {
		if !b.Paused {
			holding[b.Client] = true
		}
	}
	var idx []int
	for i, c := range d.clients {
		if holding[c.name] {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return rand.N(len(d.clients))
	}
	return idx[rand.N(len(idx))]
}
