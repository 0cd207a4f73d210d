package monitor

// Why a master is polled by design, rather than because tracking was refused or failed (MasterStatus.RefreshWhy).
const (
	whyTrackingOff = "tracking turned off"
	whySentinel    = "named through Sentinels: not tracked"
)

// TrackingFellBack reports whether m is polled although it was to be tracked: the master refused tracking
// (no permission, Redis before 6), an invalidation storm turned it off, or its tracking connection failed this
// poll. A master polled because tracking is off (--no-tracking), named through Sentinels or a Redis Cluster
// is polled by design: false.
func (m MasterStatus) TrackingFellBack() bool {
	return m.Refresh == RefreshPolling && m.RefreshWhy != "" && m.RefreshWhy != whyTrackingOff && m.RefreshWhy != whySentinel
}
