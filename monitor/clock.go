package monitor

import (
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// Drift measurement: the rate is reported once the offset has been followed for driftMinWindow, and only when
// the two samples' uncertainties bound its error to a quarter of the rate the drift factor allows (a slow round
// trip is not taken for drift); the window restarts after driftMaxWindow so the figure follows the current rate.
const (
	driftMinWindow = 2 * time.Second
	driftMaxWindow = time.Minute
)

// measureClock takes the clock offset from r's TIME reply (none: the last measurement stands), and the drift
// from how the offset moved over the window: the window starts at the first sample, or again at a much better
// one before it is long enough (the first includes a dial); the rate is reported when the window is long
// enough and its samples precise enough for factor (see driftMinWindow), and the window moves on after
// driftMaxWindow.
func (ms *MasterStatus) measureClock(r Reading, factor float64) {
	if r.ServerTime.IsZero() {
		return
	}
	mid := r.Sent.Round(0).Add(ms.RTT / 2) // the wall clock's, as a replay has it (see RTT)
	h := &ms.hist
	prev := clockSample{ms.ClockOffset, ms.ClockUncertainty, h.clockAt}
	ms.ClockKnown = true
	ms.ClockOffset = r.ServerTime.Sub(mid)
	ms.ClockUncertainty = ms.RTT / 2
	h.clockAt = mid
	if ms.stepped(prev, mid, factor) { // a jump, or a clock set back: the rate is measured afresh from here
		h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
		ms.DriftPPM, ms.DriftUncertPPM, ms.DriftKnown = 0, 0, false
		return
	}
	elapsed := mid.Sub(h.driftRefAt)
	if h.driftRefAt.IsZero() || elapsed < driftMinWindow && ms.ClockUncertainty < h.driftRefUnc/2 {
		h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
		return
	}
	if elapsed < driftMinWindow || float64(h.driftRefUnc+ms.ClockUncertainty)/float64(elapsed) > factor/4 {
		return
	}
	ms.DriftPPM = float64(ms.ClockOffset-h.driftRef) / float64(elapsed) * 1e6
	ms.DriftUncertPPM = float64(h.driftRefUnc+ms.ClockUncertainty) / float64(elapsed) * 1e6
	ms.DriftKnown = true
	if elapsed >= driftMaxWindow {
		h.driftRef, h.driftRefUnc, h.driftRefAt = ms.ClockOffset, ms.ClockUncertainty, mid
	}
}

// forgetDrift drops the drift measured so far and closes its window: the master is a new process.
func (ms *MasterStatus) forgetDrift() {
	ms.hist.driftRefAt, ms.hist.clockAt = time.Time{}, time.Time{}
	ms.DriftKnown, ms.DriftPPM, ms.DriftUncertPPM = false, 0, 0
}

// clockJudgement is how the masters' clocks compare with ours in one snapshot. Redlock needs the masters'
// clocks to tick at the same rate as the clients' (drift), not to agree (offset): an offset alone is harmless,
// and is only told because a clock set by hand may also jump. When every master is off, or drifts, the same
// way, the clock at fault is ours, and that is told once instead of once per master.
type clockJudgement struct {
	offset, drift         []bool  // per master: offset beyond the drift allowance, drift faster than it allows
	offsetOurs, driftOurs bool    // every master that answers is off, or drifts, the same way: ours is at fault
	offsetSign, driftSign float64 // that way, as the masters' offsets and drifts have it
}

// judgeClocks judges the masters' clocks against the drift allowance of the longest TTL seen (maxTTL), with
// the drift factor given.
func judgeClocks(masters []MasterStatus, maxTTL time.Duration, factor float64) clockJudgement {
	allowance := redlock.DriftAllowance(maxTTL, factor)
	offset := func(m *MasterStatus) bool {
		return m.health.state == healthUp && m.ClockKnown && maxTTL > 0 && abs(m.ClockOffset)-m.ClockUncertainty > allowance
	}
	drifting := func(m *MasterStatus) bool {
		return m.health.state == healthUp && m.DriftKnown && driftTooFast(m.DriftPPM, maxTTL, factor)
	}
	c := clockJudgement{offset: make([]bool, len(masters)), drift: make([]bool, len(masters))}
	c.offsetOurs, c.offsetSign = sameWay(masters, offset, func(m *MasterStatus) float64 { return float64(m.ClockOffset) })
	c.driftOurs, c.driftSign = sameWay(masters, drifting, func(m *MasterStatus) float64 { return m.DriftPPM })
	for i := range masters {
		c.offset[i], c.drift[i] = offset(&masters[i]), drifting(&masters[i])
	}
	return c
}

// offsetOf reports whether master i's own clock offset is to be warned about: beyond the allowance, and not
// ours.
func (c clockJudgement) offsetOf(i int) bool { return c.offset[i] && !c.offsetOurs }

// driftOf reports whether master i's own clock drift is to be warned about: beyond the allowance, and not ours.
func (c clockJudgement) driftOf(i int) bool { return c.drift[i] && !c.driftOurs }

// clockEvents returns an event for each master whose clock is now warned about and was not in the previous
// snapshot (as its history says), and records in each master's history whether it is warned about now.
func clockEvents(masters []MasterStatus, c clockJudgement, now time.Time) []Event {
	var events []Event
	for i := range masters {
		m := &masters[i]
		var why []string
		if c.offsetOf(i) {
			why = append(why, "offset")
		}
		if c.driftOf(i) {
			why = append(why, "drift")
		}
		warned := len(why) > 0
		if warned && !m.hist.clockWarned {
			events = append(events, Event{Time: now, Kind: EventClockWarning, Master: m.Addr,
				Text: "clock " + strings.Join(why, " and ") + " beyond the allowance"})
		}
		m.hist.clockWarned = warned
	}
	return events
}

// sameWay reports whether every master that answers with a known value (two at least) is flagged by bad, in
// the same direction of value; it returns that direction's sign.
func sameWay(ms []MasterStatus, bad func(*MasterStatus) bool, value func(*MasterStatus) float64) (bool, float64) {
	n, dir := 0, 0.0
	for i := range ms {
		m := &ms[i]
		if m.health.state != healthUp || !m.ClockKnown {
			continue
		}
		if !bad(m) {
			return false, 0
		}
		sg := sign(value(m))
		if n > 0 && sg != dir {
			return false, 0
		}
		n, dir = n+1, sg
	}
	return n >= 2, dir
}

// sign is -1, 0 or 1.
func sign(x float64) float64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// driftTooFast reports whether a clock drifting ppm would, over ttl, drift more than the allowance for ttl
// (with no TTL seen: whether it is faster than the drift factor).
func driftTooFast(ppm float64, ttl time.Duration, factor float64) bool {
	rate := ppm / 1e6
	if rate < 0 {
		rate = -rate
	}
	if ttl <= 0 {
		return rate > factor
	}
	return time.Duration(rate*float64(ttl)) > redlock.DriftAllowance(ttl, factor)
}

// abs returns |d|.
func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
