package monitor

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// ModeExclusive is the mode of the holder of a lock of one token (a string, or a Redisson hash without a mode).
const ModeExclusive = "exclusive"

// HolderList is every holder of v as of now, for readers that treat all locks alike (the JSON, the metrics):
// a sorted-set lock's Holders; for a lock of one token, each distinct token on some master, the holder's
// first, with its expiry on each master (zero without a TTL). A hash lock's holder takes its mode.
func (v *LockView) HolderList(now time.Time) []Holder {
	if v.Holders != nil {
		return v.Holders
	}
	var out []Holder
	lead := LeadToken(v)
	add := func(token string) {
		h := Holder{Token: token, Mode: ModeExclusive, Permits: 1, State: StatePartial, Masters: make([]HolderCell, len(v.Masters))}
		if token == v.Holder && v.State == StateHeld {
			h.State, h.Validity = StateHeld, v.ValidityAt(now)
		}
		for j, c := range v.Masters {
			switch {
			case c.State == CellUnknown && c.Token == token:
				h.Masters[j] = HolderCell{State: CellUnknown, Expires: expiresOf(c)}
			case c.State == CellUnknown:
				h.Masters[j] = HolderCell{State: CellUnknown}
			case c.Holds(token):
				h.Masters[j] = HolderCell{State: CellSeen, Expires: expiresOf(c)}
				if c.Mode() != "" {
					h.Mode = c.Mode()
				}
				if c.PTTL == NoTTL || c.ReadAt.Add(c.PTTL).After(now) {
					h.Count++
				}
			default:
				h.Masters[j] = HolderCell{State: CellAbsent}
			}
		}
		if h.State != StateHeld && v.State == StateUnknown {
			h.State = StateUnknown
		}
		out = append(out, h)
	}
	if lead != "" {
		add(lead)
	}
	for _, c := range v.Masters {
		if c.Token != "" && c.Token != lead && !containsHolder(out, c.Token) {
			add(c.Token)
		}
	}
	return out
}

// expiresOf is when a string or hash cell's key expires on our clock; zero without a TTL.
func expiresOf(c MasterLock) time.Time {
	if c.PTTL == NoTTL {
		return time.Time{}
	}
	return c.ReadAt.Add(c.PTTL)
}

// containsHolder reports whether hs has a holder of token.
func containsHolder(hs []Holder, token string) bool {
	for _, h := range hs {
		if h.Token == token {
			return true
		}
	}
	return false
}

// StateAt names a holder's state on one master at now: live, expired, no-ttl, absent or unknown.
func (c HolderCell) StateAt(now time.Time) string {
	switch {
	case c.State == CellUnknown:
		return "unknown"
	case c.State == CellAbsent:
		return "absent"
	case !c.Expiring():
		return "no-ttl"
	case c.Live(now):
		return "live"
	}
	return "expired"
}

// Text is a holder's cell on one master at now, the one rule the table and the dashboard write it by: the
// time its member has left while live ("9.8s"), "expired", "no-ttl" for a member that never expires (never a
// duration of centuries), "-" absent, "?" unknown.
func (c HolderCell) Text(now time.Time) string {
	switch st := c.StateAt(now); st {
	case "live":
		return vocab.ShortDuration(c.Expires.Sub(now))
	case "absent":
		return "-"
	case "unknown":
		return "?"
	default: // expired, no-ttl
		return st
	}
}

// Expiring reports whether the member has an expiry: it is there, in a set whose members expire.
func (c HolderCell) Expiring() bool { return !c.Expires.IsZero() && c.Expires != never }
