package monitor

import "github.com/redlock-tui/redlock-tui/monitor/internal/reading"

// TrackingFellBack reports whether m is polled although it was to be tracked: the master refused tracking
// (no permission, Redis before 6), an invalidation storm turned it off, or its tracking connection failed this
// poll. A master polled because tracking is off (--no-tracking), named through Sentinels or a Redis Cluster
// is polled by design: false.
func (m MasterStatus) TrackingFellBack() bool {
	return m.Refresh == reading.RefreshPolling && m.RefreshWhy != "" && m.RefreshWhy != reading.WhyTrackingOff && m.RefreshWhy != reading.WhySentinel
}
