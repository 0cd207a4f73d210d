package monitor

import "github.com/redlock-tui/redlock-tui/monitor/holds"

// The hold logs and their contention figures live in package holds; these are their names in monitor's public
// API.

// HoldLog is the history of one lock's holders over the window (holds.HoldLog).
type HoldLog = holds.HoldLog

// Interval is one holder's tenure of a lock as the polls saw it (holds.Interval).
type Interval = holds.Interval

// EndKind says how a holder's interval ended (holds.EndKind).
type EndKind = holds.EndKind

// How an interval ends.
const (
	EndOpen       = holds.EndOpen       // still held as of the snapshot
	EndReleased   = holds.EndReleased   // the key went from every master before its TTL ran out
	EndExpired    = holds.EndExpired    // the key went from every master at its TTL
	EndTakenOver  = holds.EndTakenOver  // another token took the quorum
	EndDeleted    = holds.EndDeleted    // this process force-deleted it
	EndQuorumLost = holds.EndQuorumLost // the token lives on, on fewer than a quorum of masters
	EndEvicted    = holds.EndEvicted    // the key went from every master before its TTL, evicted
	EndFlushed    = holds.EndFlushed    // the key went from every master before its TTL, flushed
)

// Trouble is a span of time in which the polls decided a lock was split or without a quorum (holds.Trouble).
type Trouble = holds.Trouble

// Contention is what a lock's hold log says of its holders over a period (holds.Contention).
type Contention = holds.Contention

// LastMinute is the short period of contention figures, beside the window (Config.History).
const LastMinute = holds.LastMinute

// Config defaults of the hold logs.
const (
	DefaultHistory      = holds.DefaultHistory
	DefaultMaxIntervals = holds.DefaultMaxIntervals
)
