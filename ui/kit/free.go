package kit

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// LastHolder says who held a free lock last (no key: listed while its holders are in the window), and how
// and when that tenure ended: "tok… · released at 15:04:05"; "-" when its hold log has no holder.
func LastHolder(lv *monitor.LockView) string {
	ivs := lv.History.Intervals(time.Unix(0, 0))
	if len(ivs) == 0 {
		return "-"
	}
	iv := ivs[len(ivs)-1]
	if iv.Ended == monitor.EndOpen {
		return Sanitize(iv.Token, NameCap)
	}
	return Sanitize(iv.Token, NameCap) + " · " + iv.Ended.String() + " at " + iv.End.Format("15:04:05")
}

// ValueTimeHolder is the holder of a lock whose value is a time rather than a token (LockView.ValueTime), at
// now: unknown, and what that time is: "unknown · its value: expires at 15:04:05, in 12s".
func ValueTimeHolder(lv *monitor.LockView, now time.Time) string {
	return "unknown · its value: " + monitor.ValueTimeText(lv.ValueTime.In(now.Location()), now)
}
