package drillview

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// A lock that several may hold at once (a sorted set: Symfony Lock's shared and exclusive locks,
// redis-semaphore's permits) has holders of its own: its row says who in a few words ("3 readers", "2 of 3
// permits"), marks the masters where a held holder's member is live, and its detail lists each holder.

// HolderLine is one holder of a sorted-set lock in w cells: its token, mode, state, masters and validity.
func HolderLine(st *kit.Styles, hr kit.HolderRow, masters int, quorum int, snapTime, now time.Time, w int) string {
	h := hr.H
	glyph, gs := "●", st.Cell.Holder
	switch h.State {
	case monitor.StateHeld:
	case monitor.HolderExpired:
		glyph, gs = "×", st.Cell.Absent
	case monitor.StateUnknown:
		glyph, gs = "?", st.Cell.Unknown
	default:
		glyph, gs = "●", st.State.Partial
	}
	mode := h.Mode
	if h.Permits > 1 {
		mode = fmt.Sprintf("%s×%d", mode, h.Permits)
	}
	state := string(h.State)
	if h.State == monitor.StateHeld {
		state = vocab.ShortDuration(max(h.Validity-now.Sub(snapTime), 0))
	}
	tail := fmt.Sprintf(" %-7s %d/%d %s", mode, h.Count, masters, state)
	tokenW := max(w-2-len(tail), 8)
	return gs.Render(glyph) + " " + st.Name(kit.Fit(hr.Token, tokenW), st.Text.Normal) + st.Text.Muted.Render(tail)
}

// holderCells is one holder's member on each master, for a lock's view: "M1 9.8s  M2 9.8s  M3 expired",
// counted to now, as the holder's validity beside it is, rather than to the poll that read them.
func holderCells(d *kit.Dashboard, h *monitor.Holder, now time.Time) string {
	var parts []string
	for j, c := range h.Masters[:min(len(h.Masters), len(d.Masters))] {
		parts = append(parts, d.Masters[j].Label+" "+c.Text(now))
	}
	return strings.Join(parts, "  ")
}

// SetCell describes a sorted-set lock's key on one master at now: how many members, and its own TTL, counted
// from its read, as a bar of barW cells against ref.
func SetCell(st *kit.Styles, m monitor.MasterLock, ref time.Duration, barW int, now time.Time) string {
	text := st.Text.Normal.Render(kit.Plural(len(m.Set()), "member"))
	if m.PTTL == monitor.NoTTL {
		return text + " " + st.Text.Bad.Render("no TTL: never expires")
	}
	left := m.PTTLAt(now)
	return text + " " + st.ValidityBar(left, max(ref, left), barW, false) + " " + st.Text.Normal.Render("key "+vocab.ShortDuration(left))
}

// holderLines is a sorted-set lock's view's section of its holders: each one's token, mode, state, masters
// and validity, then its member's expiry on each master.
func holderLines(sh *kit.Shared, row *kit.LockRow, w int) []string {
	if row.Holders == nil {
		return nil
	}
	st, d := sh.St, sh.Data
	out := []string{"", st.Table.Head.Render("Holders") + st.Text.Muted.Render("  ● held  ● on too few masters  × expired  ? not read")}
	for _, hr := range row.Holders {
		out = append(out, HolderLine(st, hr, len(d.Masters), d.Snap.Quorum, d.Snap.Time, sh.Now(), w))
		out = append(out, kit.WrapLines(st.Text.Muted.Render("    "+holderCells(d, hr.H, sh.Now())), w)...)
	}
	return out
}

// OrDash shows "-" for an empty text.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// HasHolder reports whether row's lock still has a holder of token in its set on some master.
func HasHolder(row *kit.LockRow, token string) bool {
	for _, hr := range row.Holders {
		if hr.H.Token == token {
			for _, m := range hr.H.Masters {
				if m.State == monitor.CellSeen {
					return true
				}
			}
		}
	}
	return false
}
