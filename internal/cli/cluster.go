package cli

import (
	"errors"

	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// openFailure is the exit status when the app could not be opened: bad usage when the masters given cannot be
// used together (a Redis Cluster's nodes mixed with independent masters), which the user must change; a
// failure otherwise.
func openFailure(err error) int {
	var te *app.TopologyError
	if errors.As(err, &te) {
		return ExitUsage
	}
	return ExitFailure
}

// primaryUndecided reports whether m is a Redis Cluster one of whose primaries missed a poll without being
// declared down yet: --once asks again, as for a master.
func primaryUndecided(m monitor.MasterStatus) bool {
	if m.Cluster == nil {
		return false
	}
	for _, p := range m.Cluster.Primaries {
		if !p.Up && !p.Down {
			return true
		}
	}
	return false
}
