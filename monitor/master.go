package monitor

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// rttWeight is the EWMA weight of the newest RTT sample (1/8, as TCP's smoothed RTT).
const rttWeight = 8

// masterHistory is what Aggregate carries from one snapshot to the next for a master, beyond its visible fields.
type masterHistory struct {
	infoUptime   time.Duration // last uptime read from INFO, UnknownUptime when unknown
	driftRef     time.Duration // clock offset at the start of the drift window
	driftRefUnc  time.Duration // its uncertainty
	driftRefAt   time.Time     // local time of that sample; zero when no window is open
	clockAt      time.Time     // local time of the last clock sample; zero before the first
	clockWarned  bool          // a clock warning was raised in the previous snapshot
	replID       string        // INFO master_replid of the last answer: a replica promoted from it continues it
	counters     KeyCounters   // its key counters as of the last answer that had them (removals.go)
	countersSent time.Time     // when the poll of that answer began (Reading.Sent)
	restartSeen  bool          // a restart was seen (run_id changed, or uptime went back), not only a young process
}

// masterStatus derives one master's status from its reading and its previous status (nil when first seen),
// with the events of the transition: its health moves by health.next; a master that misses a poll keeps its
// last values; one that answers is read afresh, carrying its RTT average and clock measurement, which start
// again when it restarted.
func masterStatus(p *MasterStatus, r Reading, now time.Time, cfg Config) (MasterStatus, []Event) {
	var was health
	if p != nil {
		was = p.health
	}
	is := was.next(r, cfg.DownAfter)
	var events []Event
	if kind, text := was.eventTo(is, r); kind != "" {
		events = append(events, Event{Time: now, Kind: kind, Master: r.Addr, Text: text})
	}
	var ms MasterStatus
	if r.Err != nil {
		ms = unanswered(p, r)
	} else {
		ms = answered(p, r, now)
		if ev, ok := ms.noteRemovals(p, r); ok {
			ev.Time = now
			events = append(events, ev)
		}
		switch {
		case p != nil && failedOver(p, r):
			events = append(events, ms.noteFailover(p, r, now))
		case p != nil && restarted(p, r):
			ms.forgetDrift() // a new process: measure its clock afresh
			ms.hist.restartSeen = true
			events = append(events, Event{Time: now, Kind: EventMasterRestarted, Master: r.Addr, Text: restartText(p, r)})
		}
		if r.Uptime >= 0 {
			// The process start, from its uptime: known from the first poll, whether or not we saw it restart.
			ms.LastRestart = now.Add(-r.Uptime)
			ms.hist.infoUptime = r.Uptime
		}
		ms.measureClock(r, cfg.DriftFactor)
	}
	ms.setHealth(is)
	ms.readSeq = r.Seq
	if r.Err != nil && p != nil {
		ms.readSeq = p.readSeq // its cells carry, unknown, what that read saw: a delta of it still applies
	}
	return ms, events
}

// unanswered is the status of a master that did not answer r: what it was (p; nil: nothing is known of it),
// with the error, no warnings of its own and its uptime unknown.
func unanswered(p *MasterStatus, r Reading) MasterStatus {
	ms := MasterStatus{Addr: r.Addr, Role: "unknown", Replicas: -1, Uptime: UnknownUptime, EvictedKeys: -1,
		hist: masterHistory{infoUptime: UnknownUptime}}
	if p != nil {
		ms = *p
	}
	ms.Err, ms.Warnings, ms.Uptime, ms.removed = r.Err.Error(), nil, UnknownUptime, removals{}
	return ms
}

// answered is the status of a master from its answer r, carrying from p (nil: first seen) the smoothed RTT,
// the clock measurement, the last restart and the history.
func answered(p *MasterStatus, r Reading, now time.Time) MasterStatus {
	ms := MasterStatus{
		Addr:       r.Addr,
		LastAnswer: now,
		Role:       r.Role,
		Version:    r.Version,
		RunID:      r.RunID,
		Uptime:     r.Uptime,
		Replicas:   r.Replicas,
		Sweep:      r.Sweep,
		Primary:    r.Primary,
		ReplicaOf:  r.ReplicaOf,
		hist:       masterHistory{infoUptime: UnknownUptime},

		Denied: r.Denied, DeniedOnKeys: r.DeniedOnKeys, AccessCheck: r.AccessCheck, MissingCommands: r.MissingCommands,
		PlainReads: r.PlainReads, EvictionPolicy: r.EvictionPolicy, MaxMemory: r.MaxMemory, EvictedKeys: -1,
		Refresh: r.Refresh, RefreshWhy: r.RefreshWhy,
		Notified: r.Notified, NotifiedWhy: r.NotifiedWhy,
	}
	if ms.Refresh == "" {
		ms.Refresh = RefreshPolling
	}
	if ms.Role == "" {
		ms.Role = "unknown"
	}
	if p != nil {
		ms.RTTSmoothed = p.RTTSmoothed
		ms.ClockKnown, ms.ClockOffset, ms.ClockUncertainty = p.ClockKnown, p.ClockOffset, p.ClockUncertainty
		ms.DriftPPM, ms.DriftUncertPPM, ms.DriftKnown = p.DriftPPM, p.DriftUncertPPM, p.DriftKnown
		ms.LastRestart = p.LastRestart
		ms.LastFailover, ms.FormerPrimary = p.LastFailover, p.FormerPrimary
		ms.hist = p.hist
	}
	ms.hist.replID = r.ReplID
	if r.Counters.Known {
		ms.EvictedKeys = r.Counters.Evicted
	}
	if !r.Sent.IsZero() && !r.Received.IsZero() {
		// On the wall clock, as a recording keeps the times (it has no monotonic reading), so that a replay
		// measures the round trip, and the clock beside it, exactly as the live monitor did.
		ms.RTT = max(r.Received.Round(0).Sub(r.Sent.Round(0)), 0)
		if ms.RTTSmoothed == 0 {
			ms.RTTSmoothed = ms.RTT
		} else {
			ms.RTTSmoothed += (ms.RTT - ms.RTTSmoothed) / rttWeight
		}
	}
	return ms
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
	return fmt.Sprintf("restarted: uptime went back from %s to %s", vocab.ShortDuration(p.hist.infoUptime), vocab.ShortDuration(r.Uptime))
}
