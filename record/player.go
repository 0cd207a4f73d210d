package record

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Player rebuilds the snapshots of a recording: the one of any poll, and the one in force at any time. It
// replays every poll once when made, keeping a keyframe (the snapshot, and what the polls so far said of the
// polled masters' keys) every so many polls; a later snapshot is remade from the last keyframe before it.
// Snapshots share the locks' histories, so a keyframe of tracked masters costs the lock views that changed;
// one of a polled master costs its keys, whose readings change at every poll, and a quiet polled master of
// many keys writes a few hundred bytes a poll. So the keyframes are kept within a budget that grows with the
// recording's bytes (keyframeBudget): past it, every other keyframe goes and the rest stand twice as far
// apart. Memory stays a small multiple of the file's size, and a seek costs the same across the file.
type Player struct {
	rec    *Recording
	cfg    monitor.Config
	kept   []keyframe      // in order of their polls, every `every` polls
	every  int             // polls between two keyframes: keyEvery, doubled each time the budget was passed
	budget int             // what the keyframes may hold (keyframeBudget)
	held   int             // what the keyframes kept are counted to hold: their costs' sum
	events []monitor.Event // the monitor's events of every poll, in order
	alarms []Alarm         // the monitor's alarms of every poll, in order (alarmsOf)
}

// keyframe is where a seek starts: poll at's snapshot, and what was read of the polled masters' keys up to it.
type keyframe struct {
	at    int
	snap  monitor.Snapshot
	state polledState
	cost  int // what it is counted to hold beyond the keyframe before it (keyframeCost)
}

// keyEvery is how many polls apart the player keeps keyframes while the budget allows: a seek remakes at most
// keyEvery-1 polls then.
const keyEvery = 16

// keyframeBudget is what the keyframes may hold, by keyframeCost, for a recording whose polls take written
// bytes: a floor for short recordings, and 16 times the bytes. An hour of three tracked masters with 1,000
// locks changing 10 times a second (40 MB of lines) keeps a keyframe every 16 polls within it.
func keyframeBudget(written int) int { return 32<<20 + 16*written }

// What a keyframe is counted to hold, measured with a heap profile of the replay of a polled master's 2,000
// keys: a lock view not shared with the keyframe before, with its cells, and a polled key's reading in the
// state.
const (
	viewCost = 640
	keyCost  = 256
)

// keyframeCost is what a keyframe of s and state holds beyond before, the keyframe before it.
func keyframeCost(before keyframe, s monitor.Snapshot, state polledState) int {
	old := make(map[*monitor.LockView]bool, len(before.snap.Locks))
	for _, v := range before.snap.Locks {
		old[v] = true
	}
	n := 0
	for _, v := range s.Locks {
		if !old[v] {
			n += viewCost
		}
	}
	for addr, l := range state {
		if before.state[addr] != l {
			n += (len(l.inOrder) + len(l.outOfOrder)) * keyCost
		}
	}
	return n
}

// NewPlayer replays rec's polls with its configuration; advise, when not nil, is the live program's advice for
// a master's error (monitor.Config.Advise), which a recording does not keep.
func NewPlayer(rec *Recording, advise func(addr string, err error) string) *Player {
	written := 0
	for _, w := range rec.polls {
		written += w.size
	}
	return newPlayer(rec, advise, keyframeBudget(written))
}

// newPlayer is NewPlayer with the keyframes' budget.
func newPlayer(rec *Recording, advise func(addr string, err error) string, budget int) *Player {
	p := &Player{rec: rec, cfg: rec.Header.Config.Config(), every: keyEvery, budget: budget}
	p.cfg.Advise = advise
	var prev *monitor.Snapshot
	state := polledState{}
	rec.replay(state, 0, func(i int, poll monitor.Poll) bool {
		s := monitor.Aggregate(prev, poll.Readings, poll.Own, poll.Time, p.cfg)
		if i%p.every == 0 {
			p.keep(i, s, state)
		}
		evs := s.EventsSince(prev)
		p.events = append(p.events, evs...)
		p.alarms = append(p.alarms, alarmsOf(prev, &s, evs)...)
		prev = &s
		return true
	})
	return p
}

// keep keeps a keyframe of poll i, and thins the keyframes out while they hold more than the budget.
func (p *Player) keep(i int, s monitor.Snapshot, state polledState) {
	var before keyframe
	if n := len(p.kept); n > 0 {
		before = p.kept[n-1]
	}
	kept := state.clone(before.state)
	cost := keyframeCost(before, s, kept)
	p.kept, p.held = append(p.kept, keyframe{at: i, snap: s, state: kept, cost: cost}), p.held+cost
	for p.held > p.budget && len(p.kept) > 1 {
		p.every *= 2
		thinned, held := p.kept[:0:0], 0
		for _, k := range p.kept {
			if k.at%p.every == 0 {
				thinned, held = append(thinned, k), held+k.cost
			}
		}
		p.kept, p.held = thinned, held
	}
}

// Len is the number of polls.
func (p *Player) Len() int { return p.rec.Len() }

// Time is when poll i was taken.
func (p *Player) Time(i int) time.Time { return p.rec.Time(i) }

// Snapshot is the snapshot of poll i (0 <= i < Len).
func (p *Player) Snapshot(i int) monitor.Snapshot {
	k := p.kept[sort.Search(len(p.kept), func(j int) bool { return p.kept[j].at > i })-1]
	s := k.snap
	if k.at == i {
		return s
	}
	p.rec.replay(k.state.clone(nil), k.at+1, func(j int, poll monitor.Poll) bool {
		s = monitor.Aggregate(&s, poll.Readings, poll.Own, poll.Time, p.cfg)
		return j < i
	})
	return s
}

// IndexAt is the last poll taken at or before t, or -1 when t is before the first.
func (p *Player) IndexAt(t time.Time) int {
	return sort.Search(p.rec.Len(), func(i int) bool { return p.rec.Time(i).After(t) }) - 1
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

// clone is a copy of s that replaying polls into does not change s. A master's state that no reading changed
// since before (a clone made earlier) was cloned is shared with before rather than copied.
func (s polledState) clone(before polledState) polledState {
	c := make(polledState, len(s))
	for addr, l := range s {
		if b := before[addr]; b != nil && b.origin == l && b.decoded == l.decoded {
			c[addr] = b
			continue
		}
		c[addr] = &lastKeys{names: slices.Clone(l.names), scan: slices.Clone(l.scan),
			inOrder: maps.Clone(l.inOrder), outOfOrder: maps.Clone(l.outOfOrder), decoded: l.decoded, origin: l}
	}
	return c
}
