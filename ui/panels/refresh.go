package panels

import (
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

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
			style = p.Shared.St.Level[monitor.SeverityWarning]
		}
	case s.Refresh == monitor.RefreshPolling:
		text = "polled"
	}
	return style.Render(kit.Fit(text, w))
}
