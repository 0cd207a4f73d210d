package drillview

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// whoState is a lock view's section on who holds the lock: the hints its values give, the confirmation, the
// sample running, or its result.
type whoState struct {
	req     uint64 // the request running or answered; 0 none
	asking  bool   // the confirmation is shown: WhoHolds again samples
	running bool
	target  string   // the master being sampled, safe
	lines   []string // the last result's lines, safe; nil none
	failed  bool     // lines say why no sample ran
}

// whoResultMsg is the result of a sample, for the request req of the lock view of resource.
type whoResultMsg struct {
	req      uint64
	resource string
	report   whoholds.Report
	err      error
}

// whoTimeout bounds a sample's command beyond its own length: CLIENT LIST twice and the connection's setup.
const whoTimeout = whoholds.DefaultFor + 20*time.Second

// press handles WhoHolds on the view of row's lock: the first press asks for a confirmation where sampling
// needs one, the next (or the only) starts the sample in a command. A press while a sample runs does nothing.
func (w *whoState) press(sh *kit.Shared, row *kit.LockRow) tea.Cmd {
	ws := sh.Who
	switch {
	case ws == nil || ws.Sampler == nil:
		sh.TellStatus(monitor.SeverityWarning, "who holds it: this dashboard cannot sample its masters (demo masters do not MONITOR)")
		return nil
	case w.running:
		return nil
	case row == nil || sh.Data == nil:
		sh.TellStatus(monitor.SeverityWarning, "who holds it: the lock is on no master any more")
		return nil
	}
	target, err := whoholds.TargetOf(&sh.Data.Snap, row.Lv)
	if err != nil {
		w.lines, w.failed = []string{err.Error()}, true
		return nil
	}
	if ws.Confirm && !w.asking {
		w.asking, w.target = true, kit.Sanitize(target.Master, kit.NameCap)
		return nil
	}
	ws.Seq++
	w.req, w.asking, w.running, w.target = ws.Seq, false, true, kit.Sanitize(target.Master, kit.NameCap)
	req, sampler, resource := w.req, ws.Sampler, row.Lv.Resource
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), whoTimeout)
		defer cancel()
		r, err := sampler.Sample(ctx, target, whoholds.DefaultFor, 0)
		return whoResultMsg{req: req, resource: resource, report: r, err: err}
	}
}

// result applies a sample's result, when it answers this view's request (a result for a view closed since,
// or for an earlier request, is dropped), and logs it.
func (w *whoState) result(sh *kit.Shared, resource string, msg whoResultMsg) {
	if msg.req != w.req || msg.resource != resource || !w.running {
		return
	}
	w.running = false
	if msg.err != nil {
		w.lines, w.failed = []string{msg.err.Error()}, true
		sh.Logf(monitor.SeverityWarning, resource, "who holds %s: no sample: %s", kit.Sanitize(resource, kit.NameCap), kit.Sanitize(msg.err.Error(), kit.TextCap))
		return
	}
	w.lines, w.failed = msg.report.Summary("press "+sh.Keys.WhoHolds.Help().Key+" again to sample once more"), false
	sh.Logf(monitor.SeverityInfo, resource, "who holds %s: %s", kit.Sanitize(resource, kit.NameCap), w.lines[0])
}

// sectionLines is the view's "Who holds it" section: what the lock's values say of the holder, then the
// state of the sample; nil when there is nothing to say (no hint, and the dashboard cannot sample).
func (w *whoState) sectionLines(sh *kit.Shared, row *kit.LockRow, width int) []string {
	st := sh.St
	var hints []string
	if row != nil {
		hints = whoholds.Hints(row.Lv)
	}
	canSample := sh.Who != nil && sh.Who.Sampler != nil
	if len(hints) == 0 && !canSample && w.lines == nil {
		return nil
	}
	out := []string{"", st.Table.Head.Render("Who holds it")}
	add := func(label, text string, style kit.Paint) {
		out = append(out, kit.Labelled(st, label, text, width, style)...)
	}
	for _, h := range hints {
		add("hint", h, st.Text.Normal)
	}
	k := sh.Keys.WhoHolds.Help().Key
	switch {
	case w.running:
		add("sampling", "MONITOR on "+w.target+" for "+vocab.ShortDuration(whoholds.DefaultFor)+"…", st.Text.Muted)
	case w.asking:
		add("confirm", "press "+k+" again to sample: MONITOR makes "+w.target+" copy every command it runs for "+
			vocab.ShortDuration(whoholds.DefaultFor)+" (a read-only or production dashboard asks first)", st.Level[monitor.SeverityWarning])
	case w.lines != nil:
		style := st.Text.Normal
		if w.failed {
			style = st.Level[monitor.SeverityWarning]
		}
		for i, l := range w.lines {
			label := ""
			if i == 0 {
				label = "sample"
			}
			add(label, l, style)
		}
	case canSample:
		add("sample", "press "+k+" to name the holder's connection: MONITOR on one master for "+
			vocab.ShortDuration(whoholds.DefaultFor)+", mapped to CLIENT LIST", st.Text.Muted)
	}
	return out
}

// withWho puts the who section into a lock view's lines, after the facts that open it (before its first
// blank line, which starts the next section).
func withWho(lines, who []string) []string {
	if len(who) == 0 {
		return lines
	}
	at := len(lines)
	for i, l := range lines {
		if l == "" {
			at = i
			break
		}
	}
	out := make([]string, 0, len(lines)+len(who))
	out = append(out, lines[:at]...)
	out = append(out, who...)
	return append(out, lines[at:]...)
}

// lockDrillKeys are the keys of a lock's view: a drill-down's, and WhoHolds where the dashboard can sample.
func lockDrillKeys(sh *kit.Shared) []key.Binding {
	keys := drillKeys(sh.Keys)
	if sh.Who == nil || sh.Who.Sampler == nil {
		return keys
	}
	last := len(keys) - 1 // quit stays last
	return append(keys[:last:last], sh.Keys.WhoHolds, keys[last])
}

// drillKeys are the keys of a drill-down view.
func drillKeys(k *kit.KeyMap) []key.Binding {
	back := k.Close
	back.SetHelp(back.Help().Key, "back")
	return []key.Binding{back, k.Up, k.Down, k.PageDown, ViewQuitKey(k)}
}
