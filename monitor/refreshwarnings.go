package monitor

import (
	"strings"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
)

// WarnTrackingStorm is the kind of the warning about a master turned from tracking to polling by an
// invalidation storm.
const WarnTrackingStorm = "tracking-storm"

// warnRefresh appends to ws the warning about a master that an invalidation storm turned to polling.
func warnRefresh(ws []Warning, m MasterStatus) []Warning {
	if m.Refresh == reading.RefreshPolling && strings.HasPrefix(m.RefreshWhy, reading.StormWhy) {
		ws = append(ws, warn(SeverityWarning, WarnTrackingStorm, m.Addr, m.RefreshWhy))
	}
	return ws
}
