package monitor

// EventsSince returns the events of s that prev did not have, oldest first: all of them when prev is nil. A
// snapshot keeps only its most recent events (Config.MaxEvents), so the newest of prev's is looked up in s.
// It is the one rule for what happened between two snapshots, for every reader: the dashboard's log, the event
// stream, the metrics.
func (s Snapshot) EventsSince(prev *Snapshot) []Event {
	if prev == nil || len(prev.Events) == 0 {
		return s.Events
	}
	last := prev.Events[len(prev.Events)-1]
	for j := len(s.Events) - 1; j >= 0; j-- {
		if s.Events[j] == last {
			return s.Events[j+1:]
		}
	}
	start := len(s.Events) // prev's newest fell out of the window: keep what is newer than it
	for start > 0 && s.Events[start-1].Time.After(last.Time) {
		start--
	}
	return s.Events[start:]
}

// WarningsSince returns the warnings of s that prev did not have (raised) and those of prev that s no longer
// has (cleared), told apart by Warning.ID, each in its snapshot's order: every warning of s is raised when
// prev is nil.
func (s Snapshot) WarningsSince(prev *Snapshot) (raised, cleared []Warning) {
	var before []Warning
	if prev != nil {
		before = prev.Warnings
	}
	had := make(map[WarningID]bool, len(before))
	for _, w := range before {
		had[w.ID()] = true
	}
	has := make(map[WarningID]bool, len(s.Warnings))
	for _, w := range s.Warnings {
		has[w.ID()] = true
		if !had[w.ID()] {
			raised = append(raised, w)
		}
	}
	for _, w := range before {
		if !has[w.ID()] {
			cleared = append(cleared, w)
		}
	}
	return raised, cleared
}
