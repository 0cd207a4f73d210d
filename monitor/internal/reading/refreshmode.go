package reading

// Why a master is polled by design, rather than because tracking was refused or failed (MasterStatus.RefreshWhy).
const (
	WhyTrackingOff = "tracking turned off"
	WhySentinel    = "named through Sentinels: not tracked"
)
