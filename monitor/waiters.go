package monitor

// countWaiters sets the waiters of every lock some master counted them for: the most subscribers any master
// that answered counts on its channel (a waiter subscribes where it waits, and may wait on several).
func (s *Snapshot) countWaiters(readings []Reading) {
	for _, r := range readings {
		for res, n := range r.Waiters {
			if i, ok := s.lockIndex(res); ok && (s.Locks[i].Waiters < n || !s.Locks[i].WaitersKnown) {
				v := s.ownView(i)
				v.Waiters, v.WaitersKnown = max(v.Waiters, n), true
			}
		}
	}
}
