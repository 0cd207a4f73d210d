package monitor

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// ValueTimeText says what a lock's value read as a time (LockView.ValueTime) is, at now: "expires at
// 15:04:05, in 12s" when it is to come, "timestamp 15:04:05, 3s ago" when it has passed; with the date when
// it is more than a day away. t is written in its own location.
func ValueTimeText(t, now time.Time) string {
	layout := "15:04:05"
	if d := t.Sub(now); d > 24*time.Hour || d < -24*time.Hour {
		layout = "2006-01-02 15:04:05"
	}
	if t.After(now) {
		return "expires at " + t.Format(layout) + ", in " + vocab.ShortDuration(t.Sub(now))
	}
	return "timestamp " + t.Format(layout) + ", " + vocab.ShortDuration(now.Sub(t)) + " ago"
}

// UnknownHolderText is the holder of a lock whose value is a time (LockView.ValueTime), at now, as the
// table and the report write it: "unknown (its value: expires at 15:04:05, in 12s)".
func UnknownHolderText(t, now time.Time) string {
	return "unknown (its value: " + ValueTimeText(t, now) + ")"
}
