package kit

import (
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// ValidityAt is a held lock's validity now; 0 for a lock not held.
func ValidityAt(lv *monitor.LockView, now time.Time) time.Duration {
	if lv.State != monitor.StateHeld {
		return 0
	}
	return lv.ValidityAt(now)
}

// CellGlyph is one master's cell of a lock row: ● the row's token (the holder's; primary), ○ another token,
// · no key, ? not read this poll (the master did not answer, or has not been read for this key yet), greyed.
func CellGlyph(st *Styles, m monitor.MasterLock, primary bool, state monitor.LockState) (string, Paint) {
	switch {
	case m.State == monitor.CellUnknown:
		return "?", st.Cell.Unknown
	case m.State == monitor.CellAbsent:
		return "·", st.Cell.Absent
	case primary && state == monitor.StateHeld:
		return "●", st.Cell.Holder
	case primary:
		return "●", st.State.Partial
	default:
		return "○", st.Cell.Other
	}
}

// StateLabel names a lock's state at now; a held lock with another token on some master is marked with "*", and
// one whose validity has run out by now (no poll has read it since) is "run out".
func StateLabel(st *Styles, lv *monitor.LockView, now time.Time) (string, Paint) {
	qs := lv.Qualifiers(now) // the one rule the table's flags and the report follow too
	if slices.Contains(qs, monitor.QualifierQuorumLost) {
		return "NO QUORUM", st.State.Lost
	}
	switch lv.State {
	case monitor.StateHeld:
		switch {
		case slices.Contains(qs, monitor.QualifierRunOut):
			return monitor.QualifierRunOut.Words(), st.State.Unknown
		case slices.Contains(qs, monitor.QualifierGuess):
			return "held?", st.State.Partial
		case slices.Contains(qs, monitor.QualifierForeign):
			return "held*", st.State.Partial
		}
		return lv.State.Label(), st.State.Held
	case monitor.StatePartial:
		return lv.State.Label(), st.State.Partial
	case monitor.StateSplit:
		return lv.State.Label(), st.State.Split
	case monitor.StateLost: // shouted: ours, lost
		return strings.ToUpper(lv.State.Label()), st.State.Lost
	case monitor.StateStuck: // shouted: it never expires
		return strings.ToUpper(lv.State.Label()), st.State.Stuck
	case monitor.StateUnknown:
		return lv.State.Label(), st.State.Unknown
	case monitor.StateUnconfirmed:
		return lv.State.Label(), st.State.Unconfirmed
	case monitor.StateFree:
		return lv.State.Label(), st.State.Free
	}
	return "-", st.State.None
}

// RefreshText says how a master's lock keys are refreshed: what changed (tracking), or every key on every
// poll, and why; "" when the snapshot does not say (a master never answered).
func RefreshText(s monitor.MasterStatus) string {
	switch s.Refresh {
	case monitor.RefreshTracking:
		text := "tracking: only the keys the master says changed are read again"
		if s.RefreshWhy != "" {
			text += " (this poll: " + Sanitize(s.RefreshWhy, TextCap) + ")"
		}
		return text
	case monitor.RefreshPolling:
		text := "polling: every lock key read on every poll"
		if s.RefreshWhy != "" {
			text += " (" + Sanitize(s.RefreshWhy, TextCap) + ")"
		}
		return text
	}
	return ""
}

// NewKeysText says how a master's new lock keys are found: within a poll through its keyspace notifications as
// well as by the scan, or by the scan only, and why; "" when the snapshot does not say.
func NewKeysText(s monitor.MasterStatus) string {
	return Sanitize(s.NotifiedWhy, TextCap)
}

// FirstWith returns the first master holding token for lv.
func FirstWith(lv *monitor.LockView, token string) int {
	for j, m := range lv.Masters {
		if m.Holds(token) {
			return j
		}
	}
	return 0
}
