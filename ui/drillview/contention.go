package drillview

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// contentionLines is a lock's view's section of its contention: how often it changes hands over the last minute
// and over the window, how long it is held and left free, by how many holders, its waiters where they show, and
// the timeline of its holders over the window.
func contentionLines(sh *kit.Shared, row *kit.LockRow, w, picked int) []string {
	st, snap, lv := sh.St, &sh.Data.Snap, row.Lv
	minute, all := snap.Contention(lv.History, monitor.LastMinute), snap.Contention(lv.History, snap.Window())
	span := vocab.ShortDuration(all.Period)
	head := "  over " + span
	if all.Resolution > 0 {
		head += ", each time to within " + vocab.ShortDuration(all.Resolution) + " (the polls)"
	}
	out := []string{"", st.Table.Head.Render("Contention") + st.Text.Muted.Render(head)}
	add := func(label, text string) { out = append(out, kit.Labelled(st, label, text, w, st.Text.Normal)...) }
	add("heat", fmt.Sprintf("%.1f handovers/min in the last minute · %.1f/min over %s", minute.PerMinute, all.PerMinute, span))
	if all.Holds > 0 {
		add("holds", fmt.Sprintf("p50 %s · p95 %s · max %s (%s)", vocab.ShortDuration(all.HoldP50), vocab.ShortDuration(all.HoldP95), vocab.ShortDuration(all.HoldMax),
			kit.Plural(all.Holds, "hold")))
	}
	if all.Gaps > 0 {
		add("free gaps", fmt.Sprintf("p50 %s · p95 %s · max %s (%s)", vocab.ShortDuration(all.GapP50), vocab.ShortDuration(all.GapP95), vocab.ShortDuration(all.GapMax),
			kit.Plural(all.Gaps, "gap")))
	}
	from := snap.Time.Add(-snap.Window())
	ivs, trs := lv.History.Intervals(from), lv.History.Troubles(from)
	tl := kit.NewTimeline(ivs, trs, from, snap.Time, snap.Time.Add(-all.Period), max(w, 8))
	if all.Busiest != "" {
		busiest := kit.ShortTokenText(all.Busiest)
		if len(tl.Order) <= len(kit.HolderLetters) { // its letter names it alone on the strip
			busiest = string(tl.Letter[all.Busiest]) + " " + busiest
		}
		add("holders", fmt.Sprintf("%d · busiest %s held it %.0f%% of the time", all.Holders, busiest, 100*all.BusiestShare))
	}
	if lv.WaitersKnown {
		add("waiters", fmt.Sprintf("%d (the subscribers of its Redisson channel)", lv.Waiters))
	}
	if len(ivs) == 0 && len(trs) == 0 {
		return append(out, st.Text.Muted.Render("no holder seen in the window"))
	}
	legend := tl.Legend(w)
	if lv.Family != "" { // the holders' client, as the shapes suggest: a guess, said in words
		client := "client " + lv.Family + " (a guess) · "
		legend = client + tl.Legend(w-ansi.StringWidth(client))
	}
	out = append(out, tl.Strip(st), st.Text.Muted.Render(tl.Axis()), st.Text.Muted.Render(legend),
		st.Text.Muted.Render(fmt.Sprintf("%c free  %c several holders  %c lost quorum / split  %s %s pick a holder",
			kit.TlFree, kit.TlBusy, kit.TlTrouble, sh.Keys.PrevHolder.Help().Key, sh.Keys.NextHolder.Help().Key)))
	return append(out, pickedLine(st, tl, ivs, picked, w)...)
}
