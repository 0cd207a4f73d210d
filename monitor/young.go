package monitor

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// restartWarning is the warning about master m, started less than the longest TTL (longest) ago. A restart the
// monitor saw (its run_id changed, or its uptime went back, between two polls) is an error: without persistence
// it came back without the keys of locks others still hold, and may grant them again. A master first seen young
// and never seen restarting is a warning: its uptime alone says it started then (a deployment, a first start),
// not that it lost a key anyone held.
func restartWarning(m MasterStatus, longest time.Duration, now time.Time) Warning {
	ago, ttl := vocab.ShortDuration(now.Sub(m.LastRestart)), vocab.ShortDuration(longest)
	if m.hist.restartSeen {
		return warn(SeverityError, WarnRestart, m.Addr, fmt.Sprintf("restarted %s ago (seen restarting), less than the longest TTL (%s): "+
			"it may grant a lock others still hold", ago, ttl))
	}
	return warn(SeverityWarning, WarnRestart, m.Addr, fmt.Sprintf("started %s ago, less than the longest TTL (%s), and never seen "+
		"restarting: if it restarted without persistence, it may grant a lock others still hold", ago, ttl))
}
