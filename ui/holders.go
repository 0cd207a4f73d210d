package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// A lock that several may hold at once (a sorted set: Symfony Lock's shared and exclusive locks,
// redis-semaphore's permits) has holders of its own: its row says who in a few words ("3 readers", "2 of 3
// permits"), marks the masters where a held holder's member is live, and its detail lists each holder.

// holderRow is one holder of a sorted-set lock as the dashboard shows it.
type holderRow struct {
	h     *monitor.Holder
	token string // sanitized
}

// takeHolders makes a sorted-set lock's row ready at the snapshot's time: its holder column, its holders
// sanitized, and the masters its cells mark.
func (r *lockRow) takeHolders(snapTime time.Time) {
	lv := r.lv
	r.holder = lv.HoldersText()
	r.holders = make([]holderRow, len(lv.Holders))
	r.setOn = make([]bool, len(lv.Masters))
	for k := range lv.Holders {
		h := &lv.Holders[k]
		r.holders[k] = holderRow{h: h, token: kit.Sanitize(h.Token, kit.NameCap)}
		for j, c := range h.Masters {
			if j < len(r.setOn) && (h.State == monitor.StateHeld || lv.State != monitor.StateHeld) && c.Live(snapTime) {
				r.setOn[j] = true
			}
		}
	}
}

// primaryOn reports whether master j holds what the row is about: its lead token, or for a sorted-set lock a
// live member of a held holder (of any holder, when none is held).
func (r *lockRow) primaryOn(j int) bool {
	if r.setOn != nil {
		return j < len(r.setOn) && r.setOn[j]
	}
	return j < len(r.lv.Masters) && r.lv.Masters[j].Token == r.primary && r.primary != ""
}

// names are the names a filter matches a row by: its key and, when a client's convention names it, its
// resource.
func (r *lockRow) names() []string {
	if r.lv.Logical == "" {
		return []string{r.name}
	}
	return []string{r.name, kit.Sanitize(r.lv.Logical, kit.NameCap)}
}

// holderLine is one holder of a sorted-set lock in w cells: its token, mode, state, masters and validity.
func holderLine(st *kit.Styles, hr holderRow, masters int, quorum int, snapTime, now time.Time, w int) string {
	h := hr.h
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
		state = kit.Dur(max(h.Validity-now.Sub(snapTime), 0))
	}
	tail := fmt.Sprintf(" %-7s %d/%d %s", mode, h.Count, masters, state)
	tokenW := max(w-2-len(tail), 8)
	return gs.Render(glyph) + " " + st.Name(kit.Fit(hr.token, tokenW), st.Text.Normal) + st.Text.Muted.Render(tail)
}

// holderCells is one holder's member on each master, for a lock's view: "M1 9.8s  M2 9.8s  M3 expired",
// counted to now, as the holder's validity beside it is, rather than to the poll that read them.
func holderCells(d *dashboard, h *monitor.Holder, now time.Time) string {
	var parts []string
	for j, c := range h.Masters[:min(len(h.Masters), len(d.masters))] {
		parts = append(parts, d.masters[j].label+" "+c.Text(now))
	}
	return strings.Join(parts, "  ")
}

// setCell describes a sorted-set lock's key on one master at now: how many members, and its own TTL, counted
// from its read, as a bar of barW cells against ref.
func setCell(st *kit.Styles, m monitor.MasterLock, ref time.Duration, barW int, now time.Time) string {
	text := st.Text.Normal.Render(kit.Plural(len(m.Set()), "member"))
	if m.PTTL == monitor.NoTTL {
		return text + " " + st.Text.Bad.Render("no TTL: never expires")
	}
	left := m.PTTLAt(now)
	return text + " " + st.ValidityBar(left, max(ref, left), barW, false) + " " + st.Text.Normal.Render("key "+kit.Dur(left))
}

// holderLines is a sorted-set lock's view's section of its holders: each one's token, mode, state, masters
// and validity, then its member's expiry on each master.
func holderLines(sh *shared, row *lockRow, w int) []string {
	if row.holders == nil {
		return nil
	}
	st, d := sh.st, sh.data
	out := []string{"", st.Table.Head.Render("Holders") + st.Text.Muted.Render("  ● held  ● on too few masters  × expired  ? not read")}
	for _, hr := range row.holders {
		out = append(out, holderLine(st, hr, len(d.masters), d.snap.Quorum, d.snap.Time, sh.now(), w))
		out = append(out, wrapLines(st.Text.Muted.Render("    "+holderCells(d, hr.h, sh.now())), w)...)
	}
	return out
}

// orDash shows "-" for an empty text.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// choose makes the confirmation remove holder i of the sorted-set lock it opened on, alone.
func (c *deleteConfirm) choose(i int) {
	c.pick = i
	hr := c.holders[i]
	on := 0
	for _, m := range hr.h.Masters {
		if m.State == monitor.CellSeen {
			on++
		}
	}
	what := fmt.Sprintf(" (%s, %s) on %s", hr.h.Mode, hr.h.State, kit.Plural(on, "master"))
	c.tokens = []string{hr.h.Token}
	c.shown = []string{strings.TrimRight(kit.Fit(hr.token, shortToken), " ") + what}
	c.full = []string{hr.token + what}
}

// setHints says what removing one holder of a sorted-set lock does, and what the library's holders notice.
func (c *deleteConfirm) setHints(hint func(string)) {
	hint(fmt.Sprintf("Removes this holder's members only where they are all still in the set; the other %s keep theirs.",
		kit.Plural(len(c.holders)-1, "holder")))
	if len(c.holders) > 1 {
		hint(fmt.Sprintf("Holder %d of %d: %s another.", c.pick+1, len(c.holders), c.sh.keys.NextPanel.Help().Key))
	}
	switch c.family {
	case "Symfony Lock":
		hint("Symfony Lock's holder learns it at its next refresh() or isAcquired() (LockConflictedException); " +
			"until then it runs on. A writer's __write__ marker goes with it.")
	case "redis-semaphore":
		hint("redis-semaphore's holder learns it at its next refresh (every 80% of lockTimeout): it calls " +
			"onLockLost, which by default throws LostLockError; until then it runs on.")
	}
}

// hasHolder reports whether row's lock still has a holder of token in its set on some master.
func hasHolder(row *lockRow, token string) bool {
	for _, hr := range row.holders {
		if hr.h.Token == token {
			for _, m := range hr.h.Masters {
				if m.State == monitor.CellSeen {
					return true
				}
			}
		}
	}
	return false
}

// keyOf is the key the acquire form locks for resource: in the --key-format convention, when one is given.
func (f *acquireForm) keyOf(resource string) string {
	if f.sh.keyOf == nil {
		return resource
	}
	return f.sh.keyOf(resource)
}
