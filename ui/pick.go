package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// windowIntervals are the intervals of the lock of row over the snapshot's window, oldest first.
func windowIntervals(sh *shared, row *lockRow) []monitor.Interval {
	if row == nil || sh.data == nil {
		return nil
	}
	snap := &sh.data.snap
	return row.lv.History.Intervals(snap.Time.Add(-snap.Window()))
}

// pick moves the holder picked on the timeline to an older one (older) or a newer one; past the newest it
// picks none. The view scrolls to its end, where the timeline and the picked holder are.
func (v *drillView) pick(older bool) {
	n := len(windowIntervals(v.sh, findRow(v.sh.data, v.resource)))
	if older {
		v.picked = min(v.picked+1, n)
	} else {
		v.picked = max(v.picked-1, 0)
	}
	v.refresh()
	v.box.vp.GotoBottom()
}

// copyPicked copies the raw token of the holder picked on the timeline.
func (v *drillView) copyPicked() tea.Cmd {
	ivs := windowIntervals(v.sh, findRow(v.sh.data, v.resource))
	if v.picked > len(ivs) {
		v.sh.tellStatus(monitor.SeverityWarning, "copy: the holder picked has left the window")
		return nil
	}
	iv := ivs[len(ivs)-v.picked]
	return v.sh.copyCmd(iv.Token, "the token of holder "+shortTokenText(iv.Token))
}

// pickedLine describes the picked-th newest of ivs: its letter and token, when it held and how it ended.
func pickedLine(st *kit.Styles, tl *timeline, ivs []monitor.Interval, picked, w int) []string {
	if picked <= 0 || picked > len(ivs) {
		return nil
	}
	iv := ivs[len(ivs)-picked]
	end := "holds it now"
	if iv.Ended != monitor.EndOpen {
		end = fmt.Sprintf("to %s (%s): %s", iv.End.Format("15:04:05"), kit.Dur(iv.HeldFor(iv.End)), iv.Ended)
	}
	text := fmt.Sprintf("%c %s from %s %s · Y copies its token", tl.letter[iv.Token], shortTokenText(iv.Token),
		iv.Start.Format("15:04:05"), end)
	return labelled(st, "picked", text, w, st.Text.Normal)
}

// shortTokenText is a raw token as the timeline names it: sanitized, its first characters.
func shortTokenText(token string) string {
	return strings.TrimRight(kit.Fit(kit.Sanitize(token, kit.NameCap), shortToken), " ")
}
