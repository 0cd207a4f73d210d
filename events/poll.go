package events

import (
	"fmt"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// FromPoll turns the monitor events of one poll (s, after prev) into records as FromMonitor does, and gives
// each lock event the token concerned and the masters it was read on: from s, or from prev for a lock that
// went (released, expired, evicted, flushed, deleted), whichever has it.
func FromPoll(prev *monitor.Snapshot, s monitor.Snapshot, evs []monitor.Event) []Record {
	out := FromMonitor(evs)
	for i, e := range evs {
		if e.Resource == "" {
			continue
		}
		views := []*monitor.Snapshot{&s, prev}
		if gone(e.Kind) {
			views = []*monitor.Snapshot{prev, &s}
		}
		for _, v := range views {
			if token, masters := tokenOf(v, e.Resource); token != "" {
				out[i].Token, out[i].Masters = token, masters
				break
			}
		}
	}
	return out
}

// gone reports whether an event of kind k says a lock's keys went: its token is the previous poll's.
func gone(k monitor.EventKind) bool {
	switch k {
	case monitor.EventLockReleased, monitor.EventLockExpired, monitor.EventLockEvicted, monitor.EventLockFlushed,
		monitor.EventLockDeleted:
		return true
	}
	return false
}

// tokenOf is the token of resource in s (nil: none) and the masters it was read on there: the holder's, else
// the token read on the most masters; "" for a lock of several holders, one with no key, or none in s.
func tokenOf(s *monitor.Snapshot, resource string) (string, []string) {
	if s == nil {
		return "", nil
	}
	l := s.Lock(resource)
	if l == nil || l.Holders != nil {
		return "", nil
	}
	token := l.Holder
	if token == "" {
		count := map[string]int{}
		for _, c := range l.Masters {
			if c.Present() && c.Token != "" {
				if count[c.Token]++; count[c.Token] > count[token] {
					token = c.Token
				}
			}
		}
	}
	if token == "" {
		return "", nil
	}
	var masters []string
	for j, c := range l.Masters {
		if c.Holds(token) && j < len(s.Masters) {
			masters = append(masters, s.Masters[j].Addr)
		}
	}
	return token, masters
}

// AlreadyHeld returns a record for each lock s shows held (KindAlreadyHeld): the first poll's, for the locks
// held before the watcher started, which no event of a change tells. A lock of several holders gets one
// record, without a token.
func AlreadyHeld(s monitor.Snapshot) []Record {
	var out []Record
	for _, l := range s.Locks {
		if l.State != monitor.StateHeld {
			continue
		}
		token, masters := tokenOf(&s, l.Resource)
		text := fmt.Sprintf("%s was already held when the watcher started", l.Resource)
		if len(masters) > 0 {
			text += fmt.Sprintf(", on %d of %d masters", len(masters), len(s.Masters))
		}
		out = append(out, Record{Time: s.Time, Source: SourceMonitor, Kind: KindAlreadyHeld,
			Severity: monitor.SeverityInfo, Resource: l.Resource, Token: token, Masters: masters, Text: text})
	}
	return out
}
