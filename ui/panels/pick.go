package panels

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// windowIntervals are the intervals of the lock of row over the snapshot's window, oldest first.
func windowIntervals(sh *kit.Shared, row *kit.LockRow) []monitor.Interval {
	if row == nil || sh.Data == nil {
		return nil
	}
	snap := &sh.Data.Snap
	return row.Lv.History.Intervals(snap.Time.Add(-snap.Window()))
}

// pick moves the holder picked on the timeline to an older one (older) or a newer one; past the newest it
// picks none. The view scrolls to its end, where the timeline and the picked holder are.
func (v *DrillView) pick(older bool) {
	n := len(windowIntervals(v.Sh, kit.FindRow(v.Sh.Data, v.Resource)))
	if older {
		v.picked = min(v.picked+1, n)
	} else {
		v.picked = max(v.picked-1, 0)
	}
	v.refresh()
	v.box.Vp.GotoBottom()
}

// copyPicked copies the raw token of the holder picked on the timeline.
func (v *DrillView) copyPicked() tea.Cmd {
	ivs := windowIntervals(v.Sh, kit.FindRow(v.Sh.Data, v.Resource))
	if v.picked > len(ivs) {
		v.Sh.TellStatus(monitor.SeverityWarning, "copy: the holder picked has left the window")
		return nil
	}
	iv := ivs[len(ivs)-v.picked]
	return v.Sh.CopyCmd(iv.Token, "the token of holder "+kit.ShortTokenText(iv.Token))
}

// pickedLine describes the picked-th newest of ivs: its letter and token, when it held and how it ended.
func pickedLine(st *kit.Styles, tl *kit.Timeline, ivs []monitor.Interval, picked, w int) []string {
	if picked <= 0 || picked > len(ivs) {
		return nil
	}
	iv := ivs[len(ivs)-picked]
	end := "holds it now"
	if iv.Ended != monitor.EndOpen {
		end = fmt.Sprintf("to %s (%s): %s", iv.End.Format("15:04:05"), kit.Dur(iv.HeldFor(iv.End)), iv.Ended)
	}
	text := fmt.Sprintf("%c %s from %s %s · Y copies its token", tl.Letter[iv.Token], kit.ShortTokenText(iv.Token),
		iv.Start.Format("15:04:05"), end)
	return Labelled(st, "picked", text, w, st.Text.Normal)
}
