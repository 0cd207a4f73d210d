package monitor

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// ClusterStatus is a Redis Cluster watched as one master, as of the snapshot: its primaries.
type ClusterStatus struct {
	Primaries []ClusterPrimary // in slot order
}

// ClusterPrimary is one primary of a cluster: its own status, derived from its own reading by the same rules
// as a master's (health, round trip, clock, uptime, restarts, scan), with Keys the locks shown whose key it
// owns and Warnings the warnings about it; its node id and the slots it owns.
type ClusterPrimary struct {
	MasterStatus
	ID    string
	Slots []SlotRange
}

// Event kinds of a cluster's changes.
const (
	// EventClusterResharded: slots moved to another primary that was one already (a resharding); the monitor
	// follows the keys there.
	EventClusterResharded EventKind = "cluster-resharded"
	// EventClusterFailover: slots moved to a new primary (a replica promoted, or a node replaced): a lock its
	// former primary had not yet replicated is lost, and another client can take it.
	EventClusterFailover EventKind = "cluster-failover"
)

// observeCluster sets m.Cluster from the cluster's reading r and its previous status p (nil: first seen), and
// returns the events: each primary's status from its own reading by masterStatus, carried from the primary
// that had its address before, with its transitions as events of its own; and the slots that changed owner.
// When the cluster was not read at all (no primary in r.Cluster, or no r.Cluster: a poll that gave up on it),
// each primary known before misses the poll silently: the master's own event tells it. A status is built afresh every time: p's is part of an earlier snapshot.
func (m *MasterStatus) observeCluster(p *MasterStatus, r Reading, now time.Time, cfg Config) []Event {
	m.Cluster = nil
	var was *ClusterStatus
	if p != nil {
		was = p.Cluster
	}
	if r.Cluster == nil || len(r.Cluster.Primaries) == 0 {
		if was == nil && r.Cluster == nil {
			return nil
		}
		st := &ClusterStatus{}
		if was == nil {
			m.Cluster = st // a cluster whose primaries are not known yet
			return nil
		}
		for _, pp := range was.Primaries {
			ms, _ := masterStatus(&pp.MasterStatus, Reading{Addr: pp.Addr, Err: r.Err, Refused: r.Refused}, now, cfg)
			st.Primaries = append(st.Primaries, ClusterPrimary{MasterStatus: ms, ID: pp.ID, Slots: pp.Slots})
		}
		m.Cluster = st
		return nil
	}
	var events []Event
	st := &ClusterStatus{}
	for _, pr := range r.Cluster.Primaries {
		var pp *MasterStatus
		if was != nil {
			for k := range was.Primaries {
				if was.Primaries[k].Addr == pr.Addr {
					pp = &was.Primaries[k].MasterStatus
				}
			}
		}
		ms, ev := masterStatus(pp, pr.Reading, now, cfg)
		ms.Keys, ms.Warnings = 0, nil
		for _, e := range ev {
			e.Text = primaryLabel(pr.Slots) + ": " + e.Text
			events = append(events, e)
		}
		st.Primaries = append(st.Primaries, ClusterPrimary{MasterStatus: ms, ID: pr.ID, Slots: pr.Slots})
	}
	m.Cluster = st
	if was != nil {
		events = append(events, ownerChanges(m.Addr, was, st, now)...)
	}
	return events
}

// primaryLabel names a primary by its slots in warnings and events.
func primaryLabel(rs []SlotRange) string {
	return "cluster primary of slots " + reading.SlotsText(rs)
}

// maxRangesTold caps the ranges of slots one event names.
const maxRangesTold = 3

// ownerChanges returns an event for each pair of primaries between which slots moved from was to is: a
// failover when the former owner is no longer a primary, a resharding otherwise.
func ownerChanges(cluster string, was, is *ClusterStatus, now time.Time) []Event {
	before, after := ownersOf(was), ownersOf(is)
	type move struct{ from, to string }
	moved := map[move][]SlotRange{}
	var order []move
	for s := 0; s < slots.Count; s++ {
		mv := move{before[s], after[s]}
		if mv.from == "" || mv.to == "" || mv.from == mv.to {
			continue
		}
		rs := moved[mv]
		if n := len(rs); n > 0 && rs[n-1].End == s-1 {
			rs[n-1].End = s
		} else {
			if rs == nil {
				order = append(order, mv)
			}
			rs = append(rs, SlotRange{Start: s, End: s})
		}
		moved[mv] = rs
	}
	var events []Event
	for _, mv := range order {
		rs := moved[mv]
		told := reading.SlotsText(rs[:min(len(rs), maxRangesTold)])
		if len(rs) > maxRangesTold {
			told += fmt.Sprintf(" and %d more ranges", len(rs)-maxRangesTold)
		}
		e := Event{Time: now, Kind: EventClusterResharded, Master: cluster,
			Text: fmt.Sprintf("slots %s moved from %s to %s (resharding): their locks are read there", told, mv.from, mv.to)}
		if !isPrimaryOf(is, mv.from) {
			e.Kind = EventClusterFailover
			e.Text = fmt.Sprintf("slots %s moved from %s to %s, which was not a primary (failover): a lock %s had not "+
				"replicated is lost, and another client can take it", told, mv.from, mv.to, mv.from)
		}
		events = append(events, e)
	}
	return events
}

// ownersOf is the primary of every slot in st ("" none).
func ownersOf(st *ClusterStatus) []string {
	owners := make([]string, slots.Count)
	for _, p := range st.Primaries {
		for _, r := range p.Slots {
			for s := max(r.Start, 0); s <= min(r.End, slots.Count-1); s++ {
				owners[s] = p.Addr
			}
		}
	}
	return owners
}

// isPrimaryOf reports whether addr is a primary of st.
func isPrimaryOf(st *ClusterStatus, addr string) bool {
	for _, p := range st.Primaries {
		if p.Addr == addr {
			return true
		}
	}
	return false
}

// countClusterKeys counts on each cluster primary the lock keys of s it answered for in this poll.
func (s *Snapshot) countClusterKeys() {
	for j, m := range s.Masters {
		if m.Cluster == nil {
			continue
		}
		byAddr := make(map[string]*ClusterPrimary, len(m.Cluster.Primaries))
		for k := range m.Cluster.Primaries {
			byAddr[m.Cluster.Primaries[k].Addr] = &m.Cluster.Primaries[k]
		}
		for _, l := range s.Locks {
			if c := l.Masters[j]; c.Present() && byAddr[c.Node()] != nil {
				byAddr[c.Node()].Keys++
			}
		}
	}
}

// warnClusters appends to ws what is wrong with each cluster's primaries, by the rules of a master's
// warnings (not answering, down, a replica, replicas that a failover would promote, a recent restart, their
// clocks, the commands their ACL refuses), each about the primary, its text saying which slots it owns. A primary's scan in progress is told
// once for the cluster, as the cluster's.
func warnClusters(ws []Warning, s *Snapshot, now time.Time, cfg Config) []Warning {
	for _, m := range s.Masters {
		if m.Cluster == nil {
			continue
		}
		prims := make([]MasterStatus, len(m.Cluster.Primaries))
		labels := map[string]string{}
		for k, p := range m.Cluster.Primaries {
			prims[k] = p.MasterStatus
			labels[p.Addr] = primaryLabel(p.Slots)
		}
		start := len(ws)
		for _, w := range warnMasters(nil, prims, s.maxTTL, now) {
			if w.Kind != WarnSweeping {
				ws = append(ws, w)
			}
		}
		ws = warnClocks(ws, prims, judgeClocks(prims, s.maxTTL, cfg.DriftFactor), cfg)
		for k := range prims {
			if prims[k].Up {
				ws = append(ws, accessWarnings(&prims[k], cfg.Writes)...)
			}
		}
		for k := start; k < len(ws); k++ {
			if label := labels[ws[k].Master]; label != "" {
				ws[k].Text = label + ": " + ws[k].Text
			}
		}
	}
	return ws
}

// noteClusterWarnings gives each cluster primary the texts of the warnings about it, and the cluster's master
// those texts too, each after the primary's address.
func (s *Snapshot) noteClusterWarnings() {
	for i := range s.Masters {
		m := &s.Masters[i]
		if m.Cluster == nil {
			continue
		}
		for k := range m.Cluster.Primaries {
			p := &m.Cluster.Primaries[k]
			p.Warnings = textsAbout(s.Warnings, p.Addr)
			for _, t := range p.Warnings {
				m.Warnings = append(m.Warnings, p.Addr+": "+t)
			}
		}
	}
}

// IsCluster reports whether m is a Redis Cluster watched as one master.
func (m MasterStatus) IsCluster() bool { return m.Cluster != nil }

// clusterOnly reports whether the masters of s are one Redis Cluster: one lock service, for which the number
// of masters says nothing.
func (s *Snapshot) clusterOnly() bool {
	return len(s.Masters) == 1 && s.Masters[0].Cluster != nil
}

// unreadWhy says why a lock of s may not have been read by a master that answered: its poll ran out of time,
// on a cluster, the primary that owns its key did not answer, or a master read with plain commands, which do
// not read hash and sorted-set locks.
func unreadWhy(s *Snapshot) string {
	if s.clusterOnly() {
		return "out of time, or on a cluster primary that did not answer"
	}
	for _, m := range s.Masters {
		if m.Up && m.PlainReads {
			return "out of time, or a hash or sorted-set lock on " + m.Addr + ", read with plain commands"
		}
	}
	return "out of time"
}
