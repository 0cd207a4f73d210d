package monitor

// PollNow asks Run for a poll at once, ahead of the interval, so that a change just made (a demo's scenario
// step) shows without waiting for the next one. The interval then counts from that poll. While paused it
// does nothing; a request made while a poll runs is served by the next poll, as soon as that one ends.
func (m *Monitor) PollNow() {
	m.mu.Lock()
	m.soon = !m.paused
	m.mu.Unlock()
	m.poke()
}
