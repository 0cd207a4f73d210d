package monitor

import "time"

// NotWatched is a part of Handovers' answer that lies wholly before the monitor's first poll: not zero, unseen.
const NotWatched = -1

// Handovers counts the holders of h (a LockView's History; nil: none) seen beginning their tenure in each of n
// equal parts of the window that ends at s's time, oldest first: the lock's heat over the window, for a
// sparkline. A part wholly before the monitor watched is NotWatched.
func (s *Snapshot) Handovers(h *HoldLog, n int) []int {
	counts := make([]int, max(n, 0))
	if n <= 0 {
		return counts
	}
	from := s.Time.Add(-s.window)
	part := s.window / time.Duration(n)
	for k := range counts {
		if !from.Add(time.Duration(k+1) * part).After(s.watchedFrom) {
			counts[k] = NotWatched
		}
	}
	for _, iv := range h.Intervals(from) {
		if !iv.StartKnown || !iv.Start.After(from) || part <= 0 {
			continue
		}
		k := min(int(iv.Start.Sub(from)/part), n-1)
		counts[k] = max(counts[k], 0) + 1
	}
	return counts
}
