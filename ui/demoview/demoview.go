package demoview

import (
	"fmt"
	"net"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// View draws the demo's lines: the demo line, a stepped scenario's story while one runs, and the violation
// banner while it is up.
func (v *DemoView) View() string {
	out := v.barView()
	if v.StoryH > 0 && v.StepsShown() {
		out += "\n" + v.storyView()
	}
	if v.h > 1 && v.banner != nil {
		out += "\n" + v.violationView()
	}
	return out
}

// barView is the demo's line under the header: the masters' addresses (for redis-cli), the workload, the
// scenario running and the violations so far. Parts that do not fit are left out, least important first: what
// a presenter points at (the workload, the violations, the refused writes) stays at 100 columns, and the
// addresses, which the masters panel shows too, go before the scenario running.
func (v *DemoView) barView() string {
	st, k := v.Shared.St, &v.Shared.Keys.Demo
	parts := []kit.Part{{Text: st.Demo.Badge.Render(" DEMO "), Rank: 0},
		{Text: st.Header.Label.Render("masters ") + st.Header.Value.Render(addrList(v.addrs)), Rank: 3}}
	workload := st.Header.Label.Render("workload ")
	if v.paused {
		workload += st.Header.Paused.Render("PAUSED") + st.Header.Label.Render(fmt.Sprintf(" (%g×)", v.rate))
	} else {
		workload += st.Header.Live.Render(fmt.Sprintf("live %g×", v.rate))
	}
	parts = append(parts, kit.Part{Text: workload, Rank: 1})
	if v.violations > 0 {
		parts = append(parts, kit.Part{Text: st.Banner.Err.Render(kit.Plural(v.violations, "violation")), Rank: 1})
	} else {
		parts = append(parts, kit.Part{Text: st.Text.OK.Render("no violation"), Rank: 1})
	}
	if v.refused > 0 { // the fenced stories' point: kept as long as the violations are
		parts = append(parts, kit.Part{Text: st.Text.OK.Render(kit.Plural(v.refused, "stale write") + " refused by the store"), Rank: 1})
	}
	if t := v.routine.text(); t != "" {
		parts = append(parts, kit.Part{Text: st.Header.Label.Render(t), Rank: 2})
	}
	if v.running != "" {
		parts = append(parts, kit.Part{Text: st.Header.Label.Render("scenario ") + st.Header.Value.Render(v.running+modeTag(v.mode)+" "+
			kit.Spinner[v.Shared.Frame%len(kit.Spinner)]+" "+vocab.ShortDuration(v.Shared.Now().Sub(v.runSince))), Rank: 2})
	}
	parts = append(parts,
		kit.Part{Text: st.Header.Label.Render(kit.Plural(v.clients, "client") + ", " + kit.Plural(v.resources, "resource")), Rank: 4},
		kit.Part{Text: st.Header.Label.Render("redis-cli -p PORT works"), Rank: 5},
		kit.Part{Text: st.Header.Label.Render(k.Scenarios.Help().Key + " scenarios · " + v.Shared.Keys.Help.Help().Key + " keys"), Rank: 3})
	return kit.FitParts(parts, st.Header.Label.Render(" │ "), v.w)
}

// addrList writes the masters' addresses compactly: "127.0.0.1 ports 7001 7002 7003" when they share a host.
func addrList(addrs []string) string {
	host, ports := "", make([]string, len(addrs))
	for i, a := range addrs {
		h, p, err := net.SplitHostPort(a)
		if err != nil || (i > 0 && h != host) {
			return strings.Join(addrs, " ")
		}
		host, ports[i] = h, p
	}
	if len(addrs) == 0 {
		return "none"
	}
	return host + " ports " + strings.Join(ports, " ")
}

// maxViolationLines bounds the violation banner's lines.
const maxViolationLines = 7

// violationBadge starts the violation banner.
func violationBadge(id int) string { return fmt.Sprintf(" ✖ VIOLATION #%d ", id) }

// ViolationLines is how many lines the violation banner asks for at width w, its sentences whole: who held
// what at once, how, and how to dismiss it; 0 when it is not up.
func (v *DemoView) ViolationLines(w int) int {
	if v.banner == nil {
		return 0
	}
	who, text := v.violationText(w)
	return min(len(who)+len(text)+1, maxViolationLines)
}

// violationText is the violation banner's sentences wrapped to w cells: who held the lock at once, after the
// badge, and how; each line after the first indented by two.
func (v *DemoView) violationText(w int) (who, text []string) {
	b := v.banner
	badgeW := ansi.StringWidth(violationBadge(b.id))
	who = kit.WrapWidths(fmt.Sprintf("%s on %s: %s (token %s) and %s (token %s) both held it", b.kind, b.resource, b.first,
		b.firstTok, b.second, b.secondTok), w-badgeW-1, w-2)
	return who, kit.Wrap(b.text, w-2)
}

// violationView is the violation banner: who held what at once, how, and how to dismiss it, in the lines the
// layout gives; short of them, how it happened is cut first, then who, and the hint goes last.
func (v *DemoView) violationView() string {
	st, b, k := v.Shared.St, v.banner, &v.Shared.Keys.Demo
	room := v.h - 1
	hint := b.at.Format("15:04:05") + " · " + k.Story.Help().Key + " shows the story that led to it in the event " +
		"log · " + k.Dismiss.Help().Key + " dismisses"
	if !b.clearAt.IsZero() {
		hint = fmt.Sprintf("a scenario ran clean since: the banner goes in %s", vocab.ShortDuration(max(b.clearAt.Sub(v.Shared.Now()), 0)))
	}
	who, text := v.violationText(v.w)
	hintLines := 0
	if room > 2 { // who and how come first
		hintLines = 1
	}
	whoLines := min(len(who), max(room-hintLines-min(len(text), 1), 1))
	who = kit.CutLines(who, whoLines, v.w-2)
	text = kit.CutLines(text, room-hintLines-len(who), v.w-2)
	lines := []string{st.Demo.Violation.Render(violationBadge(b.id)) + " " + st.Name(who[0], st.Banner.Err)}
	for _, l := range who[1:] {
		lines = append(lines, "  "+st.Banner.Err.Render(l))
	}
	for i, l := range text {
		if i == 0 {
			l = st.Name(l, st.Banner.Err)
		} else {
			l = st.Banner.Err.Render(l)
		}
		lines = append(lines, "  "+l)
	}
	if hintLines > 0 {
		lines = append(lines, st.Text.Muted.Render("  "+hint))
	}
	for i, l := range lines {
		lines[i] = kit.FitStyled(l, v.w)
	}
	return strings.Join(lines, "\n")
}

// View draws the menu as a dialog, narrower than the screen: the scenarios with the outcome of their last run,
// and the story of the one under the cursor.
func (s *ScenarioMenu) View() string {
	st, k := s.Shared.St, s.Shared.Keys
	w := min(s.W-4, 84)
	inner := w - 2
	outcomeW := 0 // room for the outcomes of the runs so far
	for _, o := range s.outcomes {
		outcomeW = max(outcomeW, ansi.StringWidth(o))
	}
	var body []string
	for i, sc := range s.list {
		cursor := "  "
		if i == s.cursor {
			cursor = st.Table.Cursor.Render("▸ ")
		}
		outcome := s.outcomes[sc.Name]
		style := st.Text.OK
		if strings.HasPrefix(outcome, "VIOLATION") {
			style = st.Text.Bad
		}
		line := cursor + st.Text.Normal.Render(kit.Fit(sc.Title, max(inner-3-outcomeW, 4)))
		if outcomeW > 0 {
			line += " " + style.Render(kit.FitLeft(outcome, outcomeW))
		}
		body = append(body, line)
	}
	body = append(body, "")
	for _, l := range kit.Wrap(s.selected().Description, inner) {
		body = append(body, st.Form.Hint.Render(l))
	}
	body = append(body, "")
	if s.running != "" {
		body = append(body, st.Level[monitor.SeverityWarning].Render("scenario "+s.running+" is running: wait for its end"))
	} else {
		body = append(body, st.Form.Hint.Render(fmt.Sprintf("%s runs it · %s step by step · %s slow motion · %s/%s "+
			"choose · %s closes", k.Confirm.Help().Key, k.Demo.Step.Help().Key, k.Demo.Slower.Help().Key,
			k.Up.Help().Key, k.Down.Help().Key, k.Close.Help().Key)))
	}
	for i := range body {
		body[i] = ansi.Truncate(body[i], inner, "…")
	}
	return st.Box("Scenarios · on "+demo.ScenarioResource, body, w, len(body)+2, true)
}
