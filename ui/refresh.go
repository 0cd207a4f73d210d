package ui

import "github.com/redlock-tui/redlock-tui/monitor"

// refreshText says how a master's lock keys are refreshed: what changed (tracking), or every key on every
// poll, and why; "" when the snapshot does not say (a master never answered).
func refreshText(s monitor.MasterStatus) string {
	switch s.Refresh {
	case monitor.RefreshTracking:
		text := "tracking: only the keys the master says changed are read again"
		if s.RefreshWhy != "" {
			text += " (this poll: " + sanitize(s.RefreshWhy, textCap) + ")"
		}
		return text
	case monitor.RefreshPolling:
		text := "polling: every lock key read on every poll"
		if s.RefreshWhy != "" {
			text += " (" + sanitize(s.RefreshWhy, textCap) + ")"
		}
		return text
	}
	return ""
}

// newKeysText says how a master's new lock keys are found: within a poll through its keyspace notifications as
// well as by the scan, or by the scan only, and why; "" when the snapshot does not say.
func newKeysText(s monitor.MasterStatus) string {
	return sanitize(s.NotifiedWhy, textCap)
}
