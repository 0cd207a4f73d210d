package monitor

import (
	"strings"
	"testing"
	"time"
)

// A master's clock that jumps 2.5s ahead and stays there is an offset from then on, not a clock running fast:
// the drift is measured afresh after the step, and reads about zero.
func TestAClockJumpIsNotReadAsDrift(t *testing.T) {
	s := clockPolls(t, 9, func(i, j int) time.Duration {
		if j == 1 && i >= 6 {
			return 2500 * time.Millisecond
		}
		return 0
	})
	b := s.Masters[1]
	if !b.DriftKnown || b.DriftPPM > 1000 || b.DriftPPM < -1000 {
		t.Errorf("after the jump b's drift is known=%v at %.0f ppm, want known and about 0", b.DriftKnown, b.DriftPPM)
	}
	for _, text := range clockWarnings(s)["b"] {
		if strings.Contains(text, "faster") || strings.Contains(text, "slower") {
			t.Errorf("the jump is reported as drift: %q", text)
		}
	}
}

// A clock set back (the demo's reset, after a jump) is not read as a clock running slow.
func TestAClockSetBackIsNotReadAsDrift(t *testing.T) {
	s := clockPolls(t, 9, func(i, j int) time.Duration {
		if j == 1 && i < 6 {
			return 2500 * time.Millisecond
		}
		return 0
	})
	if b := s.Masters[1]; b.DriftPPM > 1000 || b.DriftPPM < -1000 {
		t.Errorf("after the clock was set back b's drift reads %.0f ppm, want about 0", b.DriftPPM)
	}
}

// A clock that runs fast all along is still drift: each move is what the drift measured explains.
func TestAFastClockIsStillDrift(t *testing.T) {
	t.Parallel()
	s := clockPolls(t, 8, func(i, j int) time.Duration {
		if j == 1 {
			return time.Duration(i) * 500 * time.Millisecond // 50% fast
		}
		return 0
	})
	if b := s.Masters[1]; !b.DriftKnown || b.DriftPPM < 450000 || b.DriftPPM > 550000 {
		t.Errorf("a clock 50%% fast reads known=%v at %.0f ppm, want about 500000", b.DriftKnown, b.DriftPPM)
	}
}

// A clock that starts to run fast (the demo's fast-clock fault) is taken for a step once, then measured as
// drift within the window's minimum.
func TestAClockTurnedFastIsDriftSoonAfter(t *testing.T) {
	s := clockPolls(t, 11, func(i, j int) time.Duration {
		if j == 1 && i > 6 {
			return time.Duration(i-6) * 500 * time.Millisecond // 50% fast from poll 6 on
		}
		return 0
	})
	if b := s.Masters[1]; !b.DriftKnown || b.DriftPPM < 450000 || b.DriftPPM > 550000 {
		t.Errorf("a clock turned 50%% fast reads known=%v at %.0f ppm, want about 500000", b.DriftKnown, b.DriftPPM)
	}
}

// Offsets that jitter by tens of milliseconds (a loaded machine's scheduling) around a steady clock are noise, not
// steps: the drift window stays open and the drift reads about zero, instead of restarting at every jitter and
// reading thousands of ppm over a window of seconds.
func TestJitterIsNotAStep(t *testing.T) {
	t.Parallel()
	jitter := []time.Duration{40, -30, 0, 25, -40, 10, -20} // ms, in turn
	for polls := 50; polls < 57; polls++ {                  // whichever poll the figure is read at
		s := clockPolls(t, polls, func(i, j int) time.Duration {
			if j == 1 {
				return jitter[i%len(jitter)] * time.Millisecond
			}
			return 0
		})
		if b := s.Masters[1]; !b.DriftKnown || b.DriftPPM > 5000 || b.DriftPPM < -5000 {
			t.Errorf("after %d polls of a steady clock read with up to 40ms of jitter: drift known=%v at %.0f ppm, want known and about 0",
				polls, b.DriftKnown, b.DriftPPM)
		}
	}
}
