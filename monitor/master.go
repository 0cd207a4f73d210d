package monitor

import (
	"fmt"
	"time"
)

// rttWeight is the EWMA weight of the newest RTT sample (1/8, as TCP's smoothed RTT).
const rttWeight = 8

// masterHistory is what Aggregate carries from one snapshot to the next for a master, beyond its visible fields.
type masterHistory struct {
	infoUptime  time.Duration // last uptime read from INFO, -1 unknown
	driftRef    time.Duration // clock offset at the start of the drift window
	driftRefUnc time.Duration // its uncertainty
	driftRefAt  time.Time     // local time of that sample; zero when no window is open
	clockWarned bool          // a clock warning was raised in the previous snapshot
}

// masterStatus derives one master's status from its reading and its previous status (nil when first seen),
// with the events of the transition. A master that misses a poll keeps its last values and is "not
// answering"; it is declared down after Config.DownAfter misses in a row, or at once when it refused us.
func masterStatus(p *MasterStatus, r Reading, now time.Time, cfg Config) (MasterStatus, []Event) {
	var events []Event
	event := func(kind EventKind, text string) {
		events = append(events, Event{Time: now, Kind: kind, Master: r.Addr, Text: text})
	}
	if r.Err != nil {
		ms := MasterStatus{Addr: r.Addr, Role: "unknown", Replicas: -1, Uptime: UnknownUptime, hist: masterHistory{infoUptime: UnknownUptime}}
		if p != nil {
			ms = *p
		}
		wasDown := p != nil && p.Down
		ms.Up, ms.Err, ms.Warnings, ms.Uptime = false, r.Err.Error(), nil, UnknownUptime
		ms.Missed++
		ms.Down = r.Refused || ms.Missed >= cfg.DownAfter
		switch {
		case ms.Down && !wasDown:
			event(EventMasterDown, "down: "+r.Err.Error())
		case !ms.Down && ms.Missed == 1:
			event(EventMasterNotAnswering, "not answering: "+r.Err.Error())
		}
		return ms, events
	}

	ms := MasterStatus{
		Addr:       r.Addr,
		Up:         true,
		LastAnswer: now,
		Role:       r.Role,
		Version:    r.Version,
		RunID:      r.RunID,
		Uptime:     r.Uptime,
		Replicas:   r.Replicas,
		Sweep:      r.Sweep,
		hist:       masterHistory{infoUptime: UnknownUptime},
	}
	if ms.Role == "" {
		ms.Role = "unknown"
	}
	if p != nil {
		ms.RTTSmoothed = p.RTTSmoothed
		ms.ClockKnown, ms.ClockOffset, ms.ClockUncertainty = p.ClockKnown, p.ClockOffset, p.ClockUncertainty
		ms.DriftPPM, ms.DriftUncertPPM, ms.DriftKnown = p.DriftPPM, p.DriftUncertPPM, p.DriftKnown
		ms.LastRestart = p.LastRestart
		ms.hist = p.hist
		switch {
		case p.Down:
			event(EventMasterUp, "up again")
		case !p.Up:
			event(EventMasterUp, fmt.Sprintf("answering again after %d missed polls", p.Missed))
		}
	}

	if !r.Sent.IsZero() && !r.Received.IsZero() {
		ms.RTT = r.Received.Sub(r.Sent)
		if ms.RTTSmoothed == 0 {
			ms.RTTSmoothed = ms.RTT
		} else {
			ms.RTTSmoothed += (ms.RTT - ms.RTTSmoothed) / rttWeight
		}
	}

	if p != nil && restarted(p, r) {
		ms.hist.driftRefAt = time.Time{} // a new process: measure its clock afresh
		ms.DriftKnown, ms.DriftPPM, ms.DriftUncertPPM = false, 0, 0
		event(EventMasterRestarted, restartText(p, r))
	}
	if r.Uptime >= 0 {
		// The process start, from its uptime: known from the first poll, whether or not we saw it restart.
		ms.LastRestart = now.Add(-r.Uptime)
		ms.hist.infoUptime = r.Uptime
	}

	if !r.ServerTime.IsZero() {
		mid := r.Sent.Add(ms.RTT / 2)
		ms.ClockKnown = true
		ms.ClockOffset = r.ServerTime.Sub(mid)
		ms.ClockUncertainty = ms.RTT / 2
		h := &ms.hist
		elapsed := mid.Sub(h.driftRefAt)
		if h.driftRefAt.IsZero() || elapsed < driftMinWindow && ms.ClockUncertainty < h.driftRefUnc/2 {
			// Start the window, or restart it from a much better sample (the first one includes a dial).
			h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
		} else if elapsed >= driftMinWindow &&
			float64(h.driftRefUnc+ms.ClockUncertainty)/float64(elapsed) <= cfg.DriftFactor/4 {
			ms.DriftPPM = float64(ms.ClockOffset-h.driftRef) / float64(elapsed) * 1e6
			ms.DriftUncertPPM = float64(h.driftRefUnc+ms.ClockUncertainty) / float64(elapsed) * 1e6
			ms.DriftKnown = true
			if elapsed >= driftMaxWindow {
				h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
			}
		}
	}
	return ms, events
}

// restarted reports whether the master behind r is a new process since p: its run_id changed or, when run_id
// is unknown, its uptime went back.
func restarted(p *MasterStatus, r Reading) bool {
	if p.RunID != "" && r.RunID != "" {
		return p.RunID != r.RunID
	}
	return p.hist.infoUptime >= 0 && r.Uptime >= 0 && r.Uptime < p.hist.infoUptime
}

// restartText describes a restart for its event.
func restartText(p *MasterStatus, r Reading) string {
	if p.RunID != "" && r.RunID != "" {
		return fmt.Sprintf("restarted: run_id %s -> %s", p.RunID, r.RunID)
	}
	return fmt.Sprintf("restarted: uptime went back from %s to %s", ShortDuration(p.hist.infoUptime), ShortDuration(r.Uptime))
}
