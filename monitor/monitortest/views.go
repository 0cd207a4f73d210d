package monitortest

import "github.com/redlock-tui/redlock-tui/monitor"

// Views returns a view of each of locks, in their order, for a Snapshot's Locks.
func Views(locks []monitor.LockView) []*monitor.LockView {
	out := make([]*monitor.LockView, len(locks))
	for i := range locks {
		out[i] = &locks[i]
	}
	return out
}
