package monitor

import "time"

// A clock that jumps (an NTP step, an operator, the demo's clock-jump fault) or is set back moves its offset at
// once; taken for drift, the step would read as a clock running fast or slow for the whole drift window (a
// 2.5s jump as "16% faster" for a minute). A step is an offset that moved further from one sample to the next
// than the drift measured, the two samples' uncertainties and the allowance explain; the drift window then
// starts again at the new offset. Before a drift is known there is nothing to tell a step from a fast clock
// by, and the window takes the change in.

// clockStepSlack is the least unexplained move of the offset taken for a step: 128ms, the offset from which ntpd
// steps a clock rather than slewing it. Less is noise on a loaded machine: with 20ms, offsets read on a busy
// 2-core machine "stepped" every few polls, and each restart left the drift measured over a window of seconds
// (thousands of ppm, and a false "runs faster" note on the demo's masters).
const clockStepSlack = 128 * time.Millisecond

// clockSample is one clock measurement of a master: its offset, the offset's uncertainty, and when it was
// taken (local time; zero when none was).
type clockSample struct {
	offset, unc time.Duration
	at          time.Time
}

// stepped reports whether the offset just measured at at moved from the previous sample prev by more than the
// master's known drift, the samples' uncertainties and the drift factor's allowance over the gap explain.
func (ms *MasterStatus) stepped(prev clockSample, at time.Time, factor float64) bool {
	if !ms.DriftKnown || prev.at.IsZero() {
		return false
	}
	gap := at.Sub(prev.at)
	expected := prev.offset + time.Duration(ms.DriftPPM/1e6*float64(gap))
	moved := ms.ClockOffset - expected
	if moved < 0 {
		moved = -moved
	}
	return moved > prev.unc+ms.ClockUncertainty+time.Duration(factor*float64(gap))+clockStepSlack
}
