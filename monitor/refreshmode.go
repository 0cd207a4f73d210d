package monitor

import (
	"strings"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
)

// TrackingFellBack reports whether m is polled although it was to be tracked: the master refused tracking
// (no permission, Redis before 6), an invalidation storm turned it off, or its tracking connection failed this
// poll. A master polled because tracking is off (--no-tracking), named through Sentinels or a Redis Cluster
// is polled by design: false.
func (m MasterStatus) TrackingFellBack() bool {
	return m.Refresh == reading.RefreshPolling && m.RefreshWhy != "" && m.RefreshWhy != reading.WhyTrackingOff && m.RefreshWhy != reading.WhySentinel
}

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
