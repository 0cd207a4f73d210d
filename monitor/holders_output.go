package monitor

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/untrusted"
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

type jsonHolder struct {
	Token      string             `json:"token"`
	Mode       string             `json:"mode"`    // "exclusive", "write", "read" or "permit"
	Permits    int                `json:"permits"` // members it holds (a MultiSemaphore's holder takes several)
	State      LockState          `json:"state"`   // "held", "partial", "unknown" or "expired"
	Count      int                `json:"count"`   // masters where it is live
	ValidityMS int64              `json:"validity_ms"`
	FirstSeen  *time.Time         `json:"first_seen"`
	Masters    []jsonHolderMaster `json:"masters"` // aligned with the top-level masters
}

type jsonHolderMaster struct {
	State       string     `json:"state"`         // "live", "expired", "no-ttl", "absent" or "unknown" (then as last seen)
	ExpiresAt   *time.Time `json:"expires_at"`    // on this monitor's clock; null when absent or without a TTL
	ExpiresInMS *int64     `json:"expires_in_ms"` // from the snapshot's time; negative when expired
}

// jsonHolders is the JSON of v's holders at now.
func jsonHolders(v *LockView, now time.Time) []jsonHolder {
	hs := v.HolderList(now)
	out := make([]jsonHolder, len(hs))
	for i, h := range hs {
		jh := jsonHolder{Token: h.Token, Mode: h.Mode, Permits: h.Permits, State: h.State, Count: h.Count,
			ValidityMS: h.Validity.Milliseconds(), FirstSeen: timePtr(h.FirstSeen), Masters: make([]jsonHolderMaster, len(h.Masters))}
		for j, c := range h.Masters {
			jm := jsonHolderMaster{State: holderCellState(c, now)}
			if !c.Expires.IsZero() && c.Expires != never {
				in := c.Expires.Sub(now).Milliseconds()
				jm.ExpiresAt, jm.ExpiresInMS = timePtr(c.Expires), &in
			}
			jh.Masters[j] = jm
		}
		out[i] = jh
	}
	return out
}

// holderCellState names a holder's state on one master: live, expired, no-ttl, absent or unknown.
func holderCellState(c HolderCell, now time.Time) string {
	switch {
	case c.State == CellUnknown:
		return "unknown"
	case c.State == CellAbsent:
		return "absent"
	case c.Expires.IsZero() || c.Expires == never:
		return "no-ttl"
	case c.Live(now):
		return "live"
	}
	return "expired"
}

// tableHolders writes a sorted-set lock's holders under its row with p: state, mode, masters and validity,
// then each master's expiry.
func tableHolders(p func(string, ...any), l *LockView, servers int, now time.Time) {
	for _, h := range l.Holders {
		cells := make([]string, len(h.Masters))
		for j, c := range h.Masters {
			switch st := holderCellState(c, now); st {
			case "live", "expired":
				cells[j] = st + ":" + ShortDuration(c.Expires.Sub(now))
			case "absent":
				cells[j] = "-"
			case "unknown":
				cells[j] = "?"
			default:
				cells[j] = st
			}
		}
		mode := h.Mode
		if h.Permits > 1 {
			mode = fmt.Sprintf("%s×%d", mode, h.Permits)
		}
		p("  holder\t%s\t%s\t%d/%d\t%s\t\t%s\t%s\n", h.State, untrusted.Escape(short(h.Token)), h.Count, servers,
			h.Validity.Round(time.Millisecond), mode, strings.Join(cells, " "))
	}
}
