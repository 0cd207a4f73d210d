package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

type jsonHolder struct {
	Token      string             `json:"token"`
	Mode       string             `json:"mode"`    // "exclusive", "write", "read" or "permit"
	Permits    int                `json:"permits"` // members it holds (a MultiSemaphore's holder takes several)
	State      monitor.LockState  `json:"state"`   // "held", "partial", "unknown" or "expired"
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
func jsonHolders(v *monitor.LockView, now time.Time) []jsonHolder {
	hs := v.HolderList(now)
	out := make([]jsonHolder, len(hs))
	for i, h := range hs {
		jh := jsonHolder{Token: h.Token, Mode: h.Mode, Permits: h.Permits, State: h.State, Count: h.Count,
			ValidityMS: h.Validity.Milliseconds(), FirstSeen: timePtr(h.FirstSeen), Masters: make([]jsonHolderMaster, len(h.Masters))}
		for j, c := range h.Masters {
			jm := jsonHolderMaster{State: c.StateAt(now)}
			if c.Expiring() {
				in := c.Expires.Sub(now).Milliseconds()
				jm.ExpiresAt, jm.ExpiresInMS = timePtr(c.Expires), &in
			}
			jh.Masters[j] = jm
		}
		out[i] = jh
	}
	return out
}

// tableHolders writes a sorted-set lock's holders under its row with p: state, mode, masters and validity,
// then each master's expiry.
func tableHolders(p func(string, ...any), l *monitor.LockView, servers int, now time.Time) {
	for _, h := range l.Holders {
		cells := make([]string, len(h.Masters))
		for j, c := range h.Masters {
			cells[j] = c.Text(now)
		}
		mode := h.Mode
		if h.Permits > 1 {
			mode = fmt.Sprintf("%s×%d", mode, h.Permits)
		}
		p("  holder\t%s\t%s\t%d/%d\t%s\t\t%s\t%s\n", h.State, untrusted.Escape(short(h.Token)), h.Count, servers,
			vocab.ShortDuration(h.Validity), mode, strings.Join(cells, " "))
	}
}
