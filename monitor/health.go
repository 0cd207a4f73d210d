package monitor

import "fmt"

// healthState is where a master stands from one poll to the next.
type healthState uint8

// Health states. A master is unknown until its first reading; every reading then moves it (see health.next).
const (
	healthUnknown healthState = iota // no reading yet
	healthUp                         // answered the last poll
	healthMissed                     // missed the last poll, fewer than Config.DownAfter in a row: "not answering"
	healthDown                       // refused us, or missed Config.DownAfter polls in a row, one of them a failed read
)

// String names the state, for tests and debugging.
func (s healthState) String() string {
	return [...]string{healthUnknown: "unknown", healthUp: "up", healthMissed: "missed", healthDown: "down"}[s]
}

// health is a master's health: its state, the polls it missed in a row, and the earlier master it is the same
// server as. Being a duplicate is not a state of its own: it is learnt by comparing the masters' run_ids
// (markDuplicates), and an address of a server already counted is left out of the count whether it answers or
// not. MasterStatus.setHealth derives the exported Up, Down, Missed and DuplicateOf from it.
type health struct {
	state  healthState
	missed int    // polls missed in a row; 0 when up
	failed bool   // a read in this run of misses failed: an error, or no answer within Config.Timeout
	sameAs string // address of an earlier master that is the same server (same run_id); "" none
}

// next is the health that reading r leads to from h, when downAfter polls missed in a row make a master down.
// An answer makes it up. A miss counts one more poll missed: it is down at once when the master refused us
// (login, setup, refused connection), or once it has missed downAfter in a row and one of its reads in that
// run failed, and not answering until then. A late reading (Reading.Late: its read still going, within
// Config.Timeout, when the poll stopped waiting) is a miss but not a failure: a master slow to answer, on a
// loaded machine or behind a slow link, is not answering, and down only once a read of it errs or times out.
// A master that misses a poll keeps what its last answer told, the server it duplicates included; an answer
// clears that, for markDuplicates to decide again from the new run_id.
func (h health) next(r Reading, downAfter int) health {
	if r.Err == nil {
		return health{state: healthUp}
	}
	n := health{state: healthMissed, missed: h.missed + 1, failed: h.failed || !r.Late, sameAs: h.sameAs}
	if r.Refused || n.missed >= downAfter && n.failed {
		n.state = healthDown
	}
	return n
}

// eventTo is the event of the move from h to n after reading r: its kind and text, or "" when the move is not
// news (a first answer, a master still up, still down, or missing its second poll in a row).
func (h health) eventTo(n health, r Reading) (EventKind, string) {
	switch {
	case n.state == healthDown && h.state != healthDown:
		return EventMasterDown, string(MasterDown) + ": " + r.Err.Error()
	case n.state == healthMissed && n.missed == 1:
		return EventMasterNotAnswering, string(MasterSilent) + ": " + r.Err.Error()
	case n.state == healthUp && h.state == healthDown:
		return EventMasterUp, "up again"
	case n.state == healthUp && h.state == healthMissed:
		return EventMasterUp, fmt.Sprintf("answering again after %d missed polls", h.missed)
	}
	return "", ""
}

// setHealth records h as m's health, and derives from it, in this one place, the fields that readers of a
// snapshot see (the screen, the JSON and table output, the metrics): Up, Down, Missed and DuplicateOf.
func (m *MasterStatus) setHealth(h health) {
	m.health = h
	m.Up = h.state == healthUp
	m.Down = h.state == healthDown
	m.Missed = h.missed
	m.DuplicateOf = h.sameAs
}

// markDuplicates marks every master whose run_id an earlier master already has as the same server as that
// one: two addresses of one server, which must count once.
func markDuplicates(masters []MasterStatus) {
	byRunID := map[string]string{}
	for i := range masters {
		m := &masters[i]
		if m.RunID == "" {
			continue
		}
		if first, ok := byRunID[m.RunID]; ok {
			h := m.health
			h.sameAs = first
			m.setHealth(h)
			continue
		}
		byRunID[m.RunID] = m.Addr
	}
}
