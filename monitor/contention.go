package monitor

import (
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/holds"
)

// Window is how long the snapshot keeps each lock's holders (Config.History).
func (s *Snapshot) Window() time.Duration { return s.window }

// HoldLog returns the hold log of resource, shown or gone from the masters within the window; nil when the
// window has none.
func (s *Snapshot) HoldLog(resource string) *HoldLog {
	i, ok := slices.BinarySearchFunc(s.holdLogs, resource, func(h *HoldLog, r string) int { return strings.Compare(h.Resource, r) })
	if !ok {
		return nil
	}
	return s.holdLogs[i]
}

// Contention returns the contention figures of h (a LockView's History, or HoldLog's answer; nil: none) over
// the period ending at s's time, cut to the time s has watched.
func (s *Snapshot) Contention(h *HoldLog, period time.Duration) Contention {
	from := s.Time.Add(-period)
	if from.Before(s.watchedFrom) {
		from = s.watchedFrom
	}
	return holds.ContentionOf(h.Intervals(from), from, s.Time)
}
