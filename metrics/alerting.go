package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// What the alert rules shipped in deploy/prometheus need beyond the figures: the monitor's own judgements
// (its warnings, confirmed the way the screen shows them), the split locks by name, how long each holder of a
// listed lock has held it, and the longest TTL with the clock allowance it gives.

// maxSplitLocks caps the split locks named in redlock_lock_split, as the monitor caps the locks named in its
// warnings of one kind: the rest are counted in redlock_locks{state="split"}.
const maxSplitLocks = 10

// The descriptions of the metrics the alert rules read.
var (
	descWarning = desc("warning", "1 for each warning the monitor raises in the last poll (what its banner shows): "+
		"its level (warning or error), kind (quorum-lost, stuck, master-down, restart, clock-drift, ...), and the "+
		"master and lock it is about (\"\" when about neither).", "level", "kind", "master", "resource")
	descSplit = desc("lock_split", "1 for each lock split in the last poll (two tokens or more, none on a quorum; "+
		"confirmed by a second poll, unless it was split when first seen), named whether listed or not, at most "+
		"10 in resource order; redlock_locks{state=\"split\"} counts them all.", "resource")
	descHolderAge = desc("lock_holder_age_seconds", "Each holder that holds the lock (labels as "+
		"redlock_lock_holder_validity_seconds): how long ago this process first saw its token, a lower bound of "+
		"how long it has held the lock.", "resource", "holder", "mode")
	descLongest = desc("longest_ttl_seconds", "The longest TTL of a lock key read on a master in the last poll "+
		"(the remaining TTL, so a lower bound of the TTL given): a master restarted less than this ago may grant a "+
		"lock others still hold. Absent while no lock with a TTL is read.")
	descAllowance = desc("clock_allowance_seconds", "The clock drift allowance of the longest TTL read in the last poll "+
		"(drift factor x TTL + 2ms): a master's clock that moves by more than this against ours within a TTL "+
		"lets a lock expire there before its holder's validity ends. Absent while no lock with a TTL is read.")
)

// collectWarnings writes the warnings of s, one series each. Two warnings of one identity (the monitor tells
// them apart by text alone) are one series: the same labels twice would fail the scrape.
func collectWarnings(ch chan<- prometheus.Metric, s monitor.Snapshot) {
	seen := make(map[monitor.WarningID]bool, len(s.Warnings))
	for _, w := range s.Warnings {
		if seen[w.ID()] {
			continue
		}
		seen[w.ID()] = true
		ch <- prometheus.MustNewConstMetric(descWarning, prometheus.GaugeValue, 1,
			w.Severity.String(), w.Kind, w.Master, w.Resource)
	}
}

// collectSplit writes the first maxSplitLocks split locks of s by resource (s.Locks is sorted by resource).
func collectSplit(ch chan<- prometheus.Metric, s monitor.Snapshot) {
	n := 0
	for _, l := range s.Locks {
		if l.State != monitor.StateSplit {
			continue
		}
		if n++; n > maxSplitLocks {
			return
		}
		ch <- prometheus.MustNewConstMetric(descSplit, prometheus.GaugeValue, 1, l.Resource)
	}
}

// longestTTL is the longest TTL on any master in s at the snapshot's time: the remaining TTL of each key seen,
// counted from its read (a tracked master does not read an unchanged key again).
func longestTTL(s monitor.Snapshot) time.Duration {
	var longest time.Duration
	for _, l := range s.Locks {
		for _, c := range l.Masters {
			if left := c.PTTLAt(s.Time); c.State == monitor.CellSeen && left > longest {
				longest = left
			}
		}
	}
	return longest
}

// collectTTL writes the longest TTL read in the last poll and the clock allowance it gives with factor, when
// a lock with a TTL was read.
func collectTTL(ch chan<- prometheus.Metric, longest time.Duration, factor float64) {
	if longest <= 0 {
		return
	}
	ch <- prometheus.MustNewConstMetric(descLongest, prometheus.GaugeValue, longest.Seconds())
	ch <- prometheus.MustNewConstMetric(descAllowance, prometheus.GaugeValue, redlock.DriftAllowance(longest, factor).Seconds())
}

// holderSince is when the monitor first saw holder h of lock l: the holder's own sighting for a lock of
// several holders, else the lock's, which is its lead token's (the holder's, when held).
func holderSince(l monitor.LockView, h monitor.Holder) time.Time {
	if l.Holders != nil {
		return h.FirstSeen
	}
	return l.FirstSeen
}
