package monitor

import "time"

// carried is what Aggregate carries from one snapshot to the next beside the public read model: the memos that
// let a poll with nothing new reuse the snapshot before (quiet.go), a poll with changes rebuild only the locks
// that changed (changes.go), and the hold logs, fence counters and longest TTL that outlive a poll. Snapshot
// embeds it, so the aggregator reads its fields as the snapshot's; readers of a snapshot see none of them.
type carried struct {
	maxTTL time.Duration // longest lock TTL ever seen, or of our locks, for the restart and clock warnings
	hidden []*LockView   // the keys refreshed by the next poll that are not in Locks (no TTL, on one master), with their cells

	// What a quiet poll (quiet.go) needs: the locks registered as ours when it was made, the warnings about
	// its locks, the first time a lock could change with nothing read, and whether it shares its locks with
	// the snapshot before (which makes each of its decided locks decided by this poll).
	own          map[string]OwnLock
	lockWarnings []Warning
	quietUntil   time.Time
	logsIdleAt   time.Time // the first time a hold log leaves the window (HoldLog.IdleAt)
	quiet        bool
	fenceSuffix  string        // Config.FenceSuffix: the next poll reads every lock's fence counter
	fences       fenceCounters // fence counters read, with the highest each master has shown
	holdLogs     []*HoldLog    // every resource's holders over the window, by resource, shown or gone (holdtrack.go)
	freeLocks    int           // how many of Locks are free (LockView.Free): their keys do not count against MaxKeys
	// What a poll with changes (changes.go) needs, aligned with Locks: each lock's lead token's hash
	// (leadHash) and the first time it could change with nothing read (quietEnd, as nanosOf gives it); how
	// many locks the polls with changes since the last that built every lock built (their arrays are kept
	// alive by the locks taken as they were); and whether this snapshot refreshes the keys of the one before.
	leads       []uint64
	quietEnds   []int64
	shared      int
	sameKeys    bool
	troubled    []string      // the resources of the locks in trouble (lockTroubleOf), sorted
	watchedFrom time.Time     // the first snapshot's time: figures cover no time before it
	window      time.Duration // Config.History
}
