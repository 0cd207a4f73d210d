package panels

import (
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// refreshText says how a master's lock keys are refreshed: what changed (tracking), or every key on every
// poll, and why; "" when the snapshot does not say (a master never answered).
func refreshText(s monitor.MasterStatus) string {
	switch s.Refresh {
	case monitor.RefreshTracking:
		text := "tracking: only the keys the master says changed are read again"
		if s.RefreshWhy != "" {
			text += " (this poll: " + kit.Sanitize(s.RefreshWhy, kit.TextCap) + ")"
		}
		return text
	case monitor.RefreshPolling:
		text := "polling: every lock key read on every poll"
		if s.RefreshWhy != "" {
			text += " (" + kit.Sanitize(s.RefreshWhy, kit.TextCap) + ")"
		}
		return text
	}
	return ""
}

// refreshCell is a master's refresh mode in the masters table, w cells wide: "tracked"; "polled" by design
// (--no-tracking, a master named through Sentinels, a Redis Cluster); "polled!", in the warning style, when
// tracking was refused, an invalidation storm turned it off or its connection failed (the master's view says
// why); "-" before the master said. val styles the master's other values (greyed when it did not answer).
func (p *MastersPanel) refreshCell(s *monitor.MasterStatus, w int, val kit.Paint) string {
	text, style := "-", val
	switch {
	case s.Refresh == monitor.RefreshTracking:
		text = "tracked"
	case s.TrackingFellBack():
		text = "polled!"
		if s.Up {
			style = p.Sh.St.Level[monitor.SeverityWarning]
		}
	case s.Refresh == monitor.RefreshPolling:
		text = "polled"
	}
	return style.Render(kit.Fit(text, w))
}

// newKeysText says how a master's new lock keys are found: within a poll through its keyspace notifications as
// well as by the scan, or by the scan only, and why; "" when the snapshot does not say.
func newKeysText(s monitor.MasterStatus) string {
	return kit.Sanitize(s.NotifiedWhy, kit.TextCap)
}
