package monitor

// sameFacts pairs each warning kind with the event kinds that tell the same fact when raised in the same poll
// about the same master or lock: a master declared down, a lock without a TTL, a quorum lost, one of our locks
// lost, a fence counter gone back.
var sameFacts = map[string][]EventKind{
	WarnMasterDown:     {EventMasterDown, EventMasterNotAnswering},
	WarnStuck:          {EventLockStuck},
	WarnQuorumLost:     {EventQuorumLost},
	WarnLockLost:       {EventLockLost},
	WarnFenceBackwards: {EventFenceBackwards},
}

// SameFact reports whether a warning of kind warn and an event of kind ev, about the same master or lock and
// raised in the same poll, tell one fact: a reader that shows both as lines (the dashboard's event log) shows
// the event alone.
func SameFact(warn string, ev EventKind) bool {
	for _, k := range sameFacts[warn] {
		if k == ev {
			return true
		}
	}
	return false
}

// ToldBy reports whether warning w, raised in the poll that also raised evs, tells a fact one of those events
// already tells at no lower a severity (SameFact, about the same master and lock): a reader that lists both
// (the dashboard's event log, a replay's moments) lists the event alone, one line per fact.
func ToldBy(w Warning, evs []Event) bool {
	for _, e := range evs {
		if e.Master == w.Master && e.Resource == w.Resource && SameFact(w.Kind, e.Kind) && e.Kind.Severity().AtLeast(w.Severity) {
			return true
		}
	}
	return false
}
