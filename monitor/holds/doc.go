// Package holds keeps each lock's holders over a window, as the monitor's polls saw them, and the figures
// drawn from them. A HoldLog is immutable once in a snapshot: each change makes a new one that shares the full
// chunks of the old, so snapshots share their history. The monitor's holdtrack.go moves the logs from poll to
// poll.
//
// Files:
//   - holdlog.go: HoldLog and its Intervals: each holder's tenure, how it ended, kept in shared chunks.
//   - trouble.go: the spans in which a lock was split or without a quorum.
//   - contention.go: Contention, the figures of a period: heat, hold times, gaps, the busiest holder.
package holds
