package render

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// ContentionAfter is how long a snapshot must have watched before --once --json gives each lock's contention:
// less says nothing of how a lock changes hands (`--once --watch 30s` watches for longer).
const ContentionAfter = 10 * time.Second

type jsonContention struct {
	WatchedMS  int64          `json:"watched_ms"` // how long the monitor had watched: the figures cover no more
	LastMinute jsonFigures    `json:"last_minute"`
	Window     jsonFigures    `json:"window"`              // over --history, or what was watched of it
	Waiters    *int           `json:"waiters"`             // Redisson: subscribers of its channel; null unknown
	Intervals  []jsonInterval `json:"intervals,omitempty"` // the holders over the window, oldest first
}

type jsonFigures struct {
	PeriodMS     int64   `json:"period_ms"`
	Acquisitions int     `json:"acquisitions"`
	PerMinute    float64 `json:"handovers_per_minute"`
	Holds        int     `json:"holds"`
	HoldP50MS    float64 `json:"hold_p50_ms"`
	HoldP95MS    float64 `json:"hold_p95_ms"`
	HoldMaxMS    float64 `json:"hold_max_ms"`
	Gaps         int     `json:"gaps"`
	GapP50MS     float64 `json:"gap_p50_ms"`
	GapP95MS     float64 `json:"gap_p95_ms"`
	GapMaxMS     float64 `json:"gap_max_ms"`
	Holders      int     `json:"holders"`
	Busiest      string  `json:"busiest"`
	BusiestShare float64 `json:"busiest_share"`
	ResolutionMS float64 `json:"resolution_ms"` // each time above is known to within this (the polls)
}

type jsonInterval struct {
	Token        string     `json:"token"`
	Start        time.Time  `json:"start"`          // the first poll that saw it hold
	StartSlackMS float64    `json:"start_slack_ms"` // it may have begun this much earlier
	StartKnown   bool       `json:"start_known"`    // false: it already held when the monitor first saw the lock
	End          *time.Time `json:"end"`            // null while it holds
	EndSlackMS   float64    `json:"end_slack_ms"`
	Ended        string     `json:"ended"` // open, released, expired, taken-over, deleted, quorum-lost
	Masters      []int      `json:"masters"`
	Gone         *time.Time `json:"gone,omitempty"` // quorum-lost: when its key was seen on no master
}

// jsonContentionOf is l's contention for the JSON output, nil when s has watched less than ContentionAfter.
func jsonContentionOf(s *monitor.Snapshot, l *monitor.LockView) *jsonContention {
	watched := s.Time.Sub(s.WatchedFrom())
	if watched < ContentionAfter {
		return nil
	}
	c := &jsonContention{WatchedMS: watched.Milliseconds(), LastMinute: toJSONFigures(s.Contention(l.History, monitor.LastMinute)),
		Window: toJSONFigures(s.Contention(l.History, s.Window()))}
	if l.WaitersKnown {
		n := l.Waiters
		c.Waiters = &n
	}
	for _, iv := range l.History.Intervals(s.Time.Add(-s.Window())) {
		ji := jsonInterval{Token: iv.Token, Start: iv.Start, StartSlackMS: ms(iv.StartSlack), StartKnown: iv.StartKnown,
			End: timePtr(iv.End), EndSlackMS: ms(iv.EndSlack), Ended: iv.Ended.String(), Masters: []int{}, Gone: timePtr(iv.Gone)}
		for j := range 64 {
			if iv.Masters&(1<<j) != 0 {
				ji.Masters = append(ji.Masters, j)
			}
		}
		c.Intervals = append(c.Intervals, ji)
	}
	return c
}

// toJSONFigures converts contention figures.
func toJSONFigures(c monitor.Contention) jsonFigures {
	return jsonFigures{PeriodMS: c.Period.Milliseconds(), Acquisitions: c.Acquisitions, PerMinute: c.PerMinute, Holds: c.Holds,
		HoldP50MS: ms(c.HoldP50), HoldP95MS: ms(c.HoldP95), HoldMaxMS: ms(c.HoldMax), Gaps: c.Gaps, GapP50MS: ms(c.GapP50),
		GapP95MS: ms(c.GapP95), GapMaxMS: ms(c.GapMax), Holders: c.Holders, Busiest: c.Busiest, BusiestShare: c.BusiestShare,
		ResolutionMS: ms(c.Resolution)}
}
