package record

import (
	"sort"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Player rebuilds the snapshots of a recording: the one of any poll, and the one in force at any time. It
// replays every poll once when made, keeping one snapshot in keyEvery; a later one is remade from the last kept
// before it. Snapshots are immutable and share what did not change, so keeping them costs little.
type Player struct {
	rec    *Recording
	cfg    monitor.Config
	kept   []monitor.Snapshot // the snapshot of every keyEvery-th poll
	events []monitor.Event    // the monitor's events of every poll, in order
	alarms []Alarm            // the monitor's alarms of every poll, in order (alarmsOf)
}

// keyEvery is how many polls apart the player keeps a snapshot: seeking remakes at most keyEvery-1 polls.
const keyEvery = 16

// NewPlayer replays rec's polls with its configuration; advise, when not nil, is the live program's advice for
// a master's error (monitor.Config.Advise), which a recording does not keep.
func NewPlayer(rec *Recording, advise func(addr string, err error) string) *Player {
	p := &Player{rec: rec, cfg: rec.Header.Config.Config()}
	p.cfg.Advise = advise
	var prev *monitor.Snapshot
	for i, poll := range rec.Polls {
		s := monitor.Aggregate(prev, poll.Readings, poll.Own, poll.Time, p.cfg)
		if i%keyEvery == 0 {
			p.kept = append(p.kept, s)
		}
		evs := s.EventsSince(prev)
		p.events = append(p.events, evs...)
		p.alarms = append(p.alarms, alarmsOf(prev, &s, evs)...)
		prev = &s
	}
	return p
}

// Len is the number of polls.
func (p *Player) Len() int { return len(p.rec.Polls) }

// Time is when poll i was taken.
func (p *Player) Time(i int) time.Time { return p.rec.Polls[i].Time }

// Snapshot is the snapshot of poll i (0 <= i < Len).
func (p *Player) Snapshot(i int) monitor.Snapshot {
	k := i / keyEvery
	s := p.kept[k]
	for j := k*keyEvery + 1; j <= i; j++ {
		poll := p.rec.Polls[j]
		s = monitor.Aggregate(&s, poll.Readings, poll.Own, poll.Time, p.cfg)
	}
	return s
}

// IndexAt is the last poll taken at or before t, or -1 when t is before the first.
func (p *Player) IndexAt(t time.Time) int {
	return sort.Search(len(p.rec.Polls), func(i int) bool { return p.rec.Polls[i].Time.After(t) }) - 1
}

// Events are the recording's other events (the dashboard's, the demo's) at or before t, oldest first.
func (p *Player) Events(t time.Time) []events.Record {
	n := sort.Search(len(p.rec.Events), func(i int) bool { return p.rec.Events[i].Time.After(t) })
	return p.rec.Events[:n]
}

// MonitorEvents are the events the monitor told over the whole recording, oldest first: the moments worth
// seeking to.
func (p *Player) MonitorEvents() []monitor.Event { return p.events }

// Recording is the recording the player replays.
func (p *Player) Recording() *Recording { return p.rec }
