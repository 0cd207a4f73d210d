package drillview

import (
	"fmt"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
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

// pickedLine describes the picked-th newest of ivs: its letter and token, when it held and how it ended.
func pickedLine(st *kit.Styles, tl *kit.Timeline, ivs []monitor.Interval, picked, w int) []string {
	if picked <= 0 || picked > len(ivs) {
		return nil
	}
	iv := ivs[len(ivs)-picked]
	end := "holds it now"
	if iv.Ended != monitor.EndOpen {
		end = fmt.Sprintf("to %s (%s): %s", iv.End.Format("15:04:05"), vocab.ShortDuration(iv.HeldFor(iv.End)), iv.Ended)
	}
	text := fmt.Sprintf("%c %s from %s %s · Y copies its token", tl.Letter[iv.Token], kit.ShortTokenText(iv.Token),
		iv.Start.Format("15:04:05"), end)
	return kit.Labelled(st, "picked", text, w, st.Text.Normal)
}
