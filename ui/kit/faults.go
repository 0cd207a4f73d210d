package kit

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// FaultText describes the faults of a master as the presenter left it, at now (the state was read at at), and
// reports whether the master is down.
func FaultText(s *demo.MasterState, at, now time.Time) (string, bool) {
	var parts []string
	if s.Down {
		if s.RestartAt.IsZero() {
			parts = append(parts, "crashed")
		} else {
			parts = append(parts, "crashed, back in "+vocab.ShortDuration(max(s.RestartAt.Sub(now), 0)))
		}
	}
	if s.Paused {
		parts = append(parts, "frozen")
	}
	if s.Partitioned {
		parts = append(parts, "partitioned")
	}
	if s.Latency > 0 {
		parts = append(parts, "+"+Latency(s.Latency)+" latency")
	}
	offset := s.ClockOffset
	var clock []string
	if s.ClockRate != 1 {
		offset += time.Duration((s.ClockRate - 1) * float64(now.Sub(at)))
		clock = append(clock, fmt.Sprintf("%g×", s.ClockRate))
	}
	if offset >= shownClockOffset || offset <= -shownClockOffset {
		sign := "+"
		if offset < 0 {
			sign = ""
		}
		clock = append(clock, sign+vocab.ShortDuration(offset))
	}
	if len(clock) > 0 {
		parts = append(parts, "clock "+strings.Join(clock, " "))
	}
	return strings.Join(parts, " · "), s.Down
}

// shownClockOffset is the smallest clock offset the masters panel names as a fault.
const shownClockOffset = 50 * time.Millisecond
