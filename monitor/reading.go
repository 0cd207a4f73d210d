package monitor

import (
	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
)

// The reads of the masters live in package reading (monitor/internal/reading); a Reading is the contract
// between them and Aggregate. These are the reading types' names in monitor's public API.

// Reading is the raw result of polling one master once (reading.Reading).
type Reading = reading.Reading

// KeyReading is one key as read from one master (reading.KeyReading).
type KeyReading = reading.KeyReading

// ClusterReading is what one poll read of a Redis Cluster's primaries (reading.ClusterReading).
type ClusterReading = reading.ClusterReading

// PrimaryReading is one primary of a cluster as one poll read it (reading.PrimaryReading).
type PrimaryReading = reading.PrimaryReading

// SlotRange is the hash slots from Start to End, both included (reading.SlotRange).
type SlotRange = reading.SlotRange

// KeyCounters are a master's counts of the keys it removed itself (reading.KeyCounters).
type KeyCounters = reading.KeyCounters

// Sweep is the progress of discovery on one master (reading.Sweep).
type Sweep = reading.Sweep

// UnknownUptime marks Reading.Uptime and MasterStatus.Uptime when INFO did not tell.
const UnknownUptime = reading.UnknownUptime

// How a master's known keys are refreshed (MasterStatus.Refresh).
const (
	RefreshTracking = reading.RefreshTracking // re-read what the master said changed, and a slow full re-read
	RefreshPolling  = reading.RefreshPolling  // every known key re-read on every poll
)

// DefaultFullReadEvery is how often a tracked master's keys are all read again, as a safety net.
const DefaultFullReadEvery = reading.DefaultFullReadEvery

// reader is what the reads of the masters need of c.
func (c Config) reader() reading.Config {
	return reading.Config{Pattern: c.Pattern, ScanCount: c.ScanCount, ScanBudget: c.ScanBudget, MaxKeys: c.MaxKeys,
		MaxValueLen: c.MaxValueLen, Interval: c.Interval, Writes: c.Writes}
}
