package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// cellStateNames are the words of the cell states.
var cellStateNames = [...]string{CellUnknown: "unknown", CellAbsent: "absent", CellSeen: "seen"}

// String is the cell state's word, as the JSON writes it: "unknown", "absent" or "seen".
func (c CellState) String() string { return cellStateNames[c] }

// Severities, least first: the one order every reader sorts and filters by (Severity.Rank).
var Severities = []Severity{SeverityInfo, SeverityWarning, SeverityError}

// String is the severity's word, as every output writes it: "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityInfo:
		return "info"
	}
	return "warning"
}

// Rank orders severities by how much they matter, by their place in Severities: information 0, warnings 1,
// errors 2. Sort and compare by it, never by the Severity's value or its word.
func (s Severity) Rank() int { return slices.Index(Severities, s) }

// AtLeast reports whether s matters as much as t or more.
func (s Severity) AtLeast(t Severity) bool { return s.Rank() >= t.Rank() }

// MarshalText writes the severity as its word (String), as every output and the event stream carry it.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity from its word (String); any other word is an error that names it.
func (s *Severity) UnmarshalText(word []byte) error {
	for _, sev := range Severities {
		if sev.String() == string(word) {
			*s = sev
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q: want info, warning or error", word)
}

// Health is a snapshot's overall state, the worst of what it shows: the header's badge, --once's exit status
// and the metrics' health gauge all read it from Snapshot.Health.
type Health int

// The overall states, from the best to the worst.
const (
	HealthOK       Health = iota // every master up, every known lock read, no warning
	HealthDegraded               // a master down or unsafe, unread locks (quorum still possible), or a warning
	HealthUnsafe                 // an error among the warnings: locking may be unsafe (a restart or failover within the longest TTL, a lock that lost its quorum, ...)
	HealthNoQuorum               // fewer masters up than the quorum, or a cluster primary not answering: some locks cannot be taken
)

// String is the overall state's word, as the header shows it: "OK", "DEGRADED", "UNSAFE" or "NO QUORUM".
func (h Health) String() string {
	return [...]string{HealthOK: "OK", HealthDegraded: "DEGRADED", HealthUnsafe: "UNSAFE", HealthNoQuorum: "NO QUORUM"}[h]
}

// Health is the overall state of s: no quorum when fewer servers answered than the quorum, or when a Redis
// Cluster has a primary that did not answer (the locks in its slots are unknown and cannot be taken); else
// the worst of its masters and unread locks (degraded) and its warnings (an error unsafe, a warning degraded;
// information leaves it as it is).
func (s Snapshot) Health() Health {
	if s.UpCount < s.Quorum || s.primaryMissing() {
		return HealthNoQuorum
	}
	h := HealthOK
	if s.UpCount < s.Servers || s.Unread > 0 || s.Unsafe > 0 {
		h = HealthDegraded
	}
	for _, w := range s.Warnings {
		switch {
		case w.Severity.AtLeast(SeverityError):
			h = max(h, HealthUnsafe)
		case w.Severity.AtLeast(SeverityWarning):
			h = max(h, HealthDegraded)
		}
	}
	return h
}

// primaryMissing reports whether a Redis Cluster of s has a primary that did not answer.
func (s Snapshot) primaryMissing() bool {
	for _, m := range s.Masters {
		if m.Cluster == nil {
			continue
		}
		for _, p := range m.Cluster.Primaries {
			if !p.Up {
				return true
			}
		}
	}
	return false
}

// LockStates are every lock state, in the one order every reader lists and sorts them by: trouble first (ours
// lost, a key that never expires, two tokens, an alarm one poll saw), then the undecided, the held, the free.
var LockStates = []LockState{StateLost, StateStuck, StateSplit, StateUnconfirmed, StatePartial, StateUnknown,
	StateHeld, StateFree}

// Rank is the state's place in LockStates: 0 for the worst trouble; sort by it.
func (s LockState) Rank() int {
	for i, st := range LockStates {
		if st == s {
			return i
		}
	}
	return len(LockStates)
}

// Label is the state's word for people, on the screen and in the report: its own name, but "checking" for an
// alarm one poll saw (unconfirmed), which the next poll confirms or clears. The JSON and the metrics write the
// state's own name.
func (s LockState) Label() string {
	if s == StateUnconfirmed {
		return "checking"
	}
	return string(s)
}

// Qualifier is what qualifies a lock's state beside its label, in the one word the table's flags and the
// report write and from which the dashboard's shorter marks are made (LockView.Qualifiers).
type Qualifier string

// The qualifiers, in the order a lock's are given.
const (
	QualifierMine       Qualifier = "mine"        // its token is one of ours
	QualifierForeign    Qualifier = "foreign"     // another token is present on some master
	QualifierQuorumLost Qualifier = "quorum-lost" // its holder's token lives on below quorum
	QualifierRunOut     Qualifier = "run-out"     // held when read; its validity has run out since, no poll looked again
	QualifierGuess      Qualifier = "guess"       // held only by grouping Redisson holders on thread id
)

// Qualifiers is what qualifies v's state at now, in the order of the Qualifier constants: the one rule by
// which the dashboard marks a state (NO QUORUM, run out, held?, held*), the table lists its flags and the
// report words it.
func (v *LockView) Qualifiers(now time.Time) []Qualifier {
	var out []Qualifier
	if v.Mine {
		out = append(out, QualifierMine)
	}
	if v.Foreign {
		out = append(out, QualifierForeign)
	}
	if v.QuorumLost {
		out = append(out, QualifierQuorumLost)
	}
	if v.State == StateHeld && v.ValidityAt(now) <= 0 {
		out = append(out, QualifierRunOut)
	}
	if v.State == StateHeld && v.Heuristic {
		out = append(out, QualifierGuess)
	}
	return out
}

// Words is the qualifier as a sentence says it: "quorum lost", "run out".
func (q Qualifier) Words() string { return strings.ReplaceAll(string(q), "-", " ") }

// MasterState is where a master stands, in the one word every output gives it: the dashboard, the tables,
// the report, the events and the warnings. The words fit the dashboard's narrowest column (six cells).
type MasterState string

// Master states.
const (
	MasterUp        MasterState = "up"     // answered the last poll
	MasterSilent    MasterState = "silent" // missed the last poll, not down yet (fewer misses, or only slow): its last values are kept
	MasterDown      MasterState = "down"   // refused us, or missed Config.DownAfter polls in a row, a read failing or timing out
	MasterDuplicate MasterState = "dup"    // answers, and is the same server as a master listed earlier (same run_id): counted once
)

// State is where m stands: down, silent (not answering), a duplicate of an earlier master, or up.
func (m MasterStatus) State() MasterState {
	switch {
	case m.Down:
		return MasterDown
	case !m.Up:
		return MasterSilent
	case m.DuplicateOf != "":
		return MasterDuplicate
	}
	return MasterUp
}

// StateText is m's state with its reason, for a table or a report: "down: <error>", "silent: <error>", "dup: same
// server as <address>", or "up".
func (m MasterStatus) StateText() string {
	switch st := m.State(); st {
	case MasterDown, MasterSilent:
		return string(st) + ": " + m.Err
	case MasterDuplicate:
		return string(st) + ": " + SameServerText(m.DuplicateOf)
	}
	return string(MasterUp)
}

// SameServerText is what a duplicate master is: "same server as <address>".
func SameServerText(addr string) string { return "same server as " + addr }
