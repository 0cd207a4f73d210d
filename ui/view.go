package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// View renders the whole screen, exactly the terminal's size. It does no work proportional to the number of
// locks: only the rows on screen are rendered.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.lay.tooSmall {
		return m.tooSmallView()
	}
	if m.lay.compact {
		return m.compactView()
	}
	parts := []string{m.headerView()}
	if m.lay.demoBarH+m.lay.violationH > 0 {
		parts = append(parts, m.demo.View())
	}
	if m.lay.bannerH > 0 {
		parts = append(parts, m.bannerView())
	}
	body := m.bodyView()
	parts = append(parts, body, m.footerView())
	return strings.Join(parts, "\n")
}

// tooSmallView asks for a larger window, centred on a screen of the current size: below the compact view's
// minimum, or for a modal open in a window the compact view would show.
func (m *Model) tooSmallView() string {
	st := m.sh.St
	msg := []string{
		st.Header.Title.Render("Enlarge the window"),
		st.Text.Normal.Render(fmt.Sprintf("need %d×%d, have %d×%d", minWidth, minHeight, m.width, m.height)),
		st.Text.Muted.Render(m.sh.Keys.Quit.Help().Key + " quits"),
	}
	if md := m.mode(); md.Modal && m.width >= compactWidth && m.height >= compactHeight {
		msg = slices.Insert(msg, 2, st.Text.Normal.Render("for what is open · "+m.sh.Keys.Cancel.Help().Key+" closes it"))
	}
	lines := make([]string, m.height)
	top := max((m.height-len(msg))/2, 0)
	for i := range lines {
		text := ""
		if j := i - top; j >= 0 && j < len(msg) {
			text = lipgloss.PlaceHorizontal(m.width, lipgloss.Center, msg[j])
		}
		lines[i] = kit.FitStyled(text, m.width)
	}
	return strings.Join(lines, "\n")
}

// compactView is the dashboard in a window too small for the panels: the header (its health word is the last
// part to go), the worst warning, and the locks in trouble, worst first, each with its state and how many
// masters hold its token; the last line says what is not shown and how to see it.
func (m *Model) compactView() string {
	st, d, w := m.sh.St, m.sh.Data, m.width
	lines := []string{m.headerView()}
	if rows := m.bannerRows(); len(rows) > 0 {
		style, glyph := st.Banner.Warn, "▲ "
		if rows[0].Severity == monitor.SeverityError {
			style, glyph = st.Banner.Err, "✖ "
		}
		more := ""
		if len(rows) > 1 {
			more = fmt.Sprintf(" (+%d)", len(rows)-1)
		}
		lines = append(lines, style.Render(glyph)+st.Name(kit.Fit(rows[0].Text, w-2-len(more)), style)+style.Render(more))
	} else if d != nil {
		lines = append(lines, st.Text.Muted.Render("no warnings"))
	}
	room := m.height - len(lines) - 1
	footer := fmt.Sprintf("%d×%d for the panels · %s quits", minWidth, minHeight, m.sh.Keys.Quit.Help().Key)
	if d != nil {
		lines = append(lines, st.Table.Head.Render(kit.Fit(fmt.Sprintf("LOCKS IN TROUBLE %d of %s", d.Troubled,
			kit.Thousands(len(d.Locks))), w)))
		room--
		now := m.sh.Now()
		for _, i := range d.Trouble[:min(len(d.Trouble), room)] {
			r := d.Locks[i]
			state, style := kit.StateLabel(st, r.Lv, now)
			q := fmt.Sprintf("%d/%d", r.Lv.Count, d.Snap.Servers)
			name := max(w-2-len(q)-1-11, 4)
			lines = append(lines, "  "+st.Name(kit.Fit(r.Label, name), st.Text.Normal)+" "+st.Text.Muted.Render(kit.FitLeft(q, len(q)))+
				" "+style.Render(kit.Fit(state, 10)))
		}
		if hidden := d.Troubled - min(len(d.Trouble), room); hidden > 0 {
			footer = fmt.Sprintf("+%d more · ", hidden) + footer
		}
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:m.height-1], st.Text.Muted.Render(kit.Fit(footer, w)))
	for i := range lines {
		lines[i] = kit.FitStyled(lines[i], w)
	}
	return strings.Join(lines, "\n")
}

// appName starts the header.
const appName = "redlock-tui"

// headerView is the top line: the connection profile, title, overall state, masters and quorum, polling, last
// snapshot, locks. Parts that do not fit are left out, least important first; the profile never is.
func (m *Model) headerView() string {
	st := m.sh.St
	sep := st.Header.Label.Render(" │ ")
	parts := []kit.Part{{Text: st.Header.Title.Render(appName), Rank: 0}}
	profileAt := -1
	if m.profile != "" {
		profileAt = len(parts)
		parts = append(parts, kit.Part{Text: "", Rank: 0}) // filled in last, in the room the other parts kept at any width leave
	}
	if m.title != "" {
		parts = append(parts, kit.Part{Text: st.Name(m.title, st.Header.Value), Rank: 6})
	}
	d, md := m.sh.Data, m.mode()
	if d == nil {
		parts = append(parts, kit.Part{Text: st.Header.Degraded.Render("WAITING"), Rank: 0},
			kit.Part{Text: st.Header.Label.Render("no snapshot yet"), Rank: 1})
	} else {
		badge := st.Header.OK.Render(d.Health.String())
		switch d.Health {
		case monitor.HealthDegraded:
			badge = st.Header.Degraded.Render(d.Health.String())
		case monitor.HealthUnsafe, monitor.HealthNoQuorum:
			badge = st.Header.NoQuorum.Render(" " + d.Health.String() + " ")
		}
		if md.Source == kit.SourceDemo && m.demo.Violated() { // never OK beside a violation of mutual exclusion
			badge = st.Header.NoQuorum.Render(" VIOLATION ")
		}
		parts = append(parts, kit.Part{Text: badge, Rank: 0}, kit.Part{Text: st.Header.Label.Render("masters ") +
			st.Header.Value.Render(fmt.Sprintf("%d/%d up", d.Snap.UpCount, d.Snap.Servers)) +
			st.Header.Label.Render(" · quorum ") + st.Header.Value.Render(fmt.Sprint(d.Snap.Quorum)), Rank: 1})
	}
	switch {
	case md.Source == kit.SourceReplay: // the time cursor stands for read-only and for the polling
		parts = append(parts, kit.Part{Text: m.replay.HeaderPart(st), Rank: 0})
	case md.ReadOnly:
		parts = append(parts, kit.Part{Text: st.Header.ReadOnly.Render(" READ-ONLY "), Rank: 0})
	}
	if md.Source != kit.SourceReplay {
		poll := st.Header.Label.Render("poll ") + st.Header.Value.Render(m.interval.String()) + " "
		if md.Paused {
			poll += st.Header.Paused.Render("PAUSED")
		} else {
			poll += st.Header.Live.Render("live")
		}
		parts = append(parts, kit.Part{Text: poll, Rank: 2})
	}
	if d != nil {
		parts = append(parts, kit.Part{Text: st.Header.Label.Render("at ") + st.Header.Value.Render(d.Snap.Time.Format("15:04:05")), Rank: 4},
			kit.Part{Text: st.Header.Label.Render("locks ") + st.Header.Value.Render(kit.Thousands(len(d.Locks))) +
				st.Header.Label.Render(lockCounts(d)), Rank: 5})
	}
	if profileAt >= 0 {
		parts[profileAt].Text = m.profileView(m.width - keptWidth(parts, ansi.StringWidth(sep)))
	}
	return kit.FitParts(parts, sep, m.width)
}

// profileView is the connection profile's name in its colour, after a loud PROD badge for a production
// profile, with the name cut to fit room cells: the badge and a part of the name always show.
func (m *Model) profileView(room int) string {
	st := m.sh.St
	badge := ""
	if m.prod {
		badge = st.Header.Production.Render(" PROD ") + " "
	}
	name := m.profile
	if w := room - ansi.StringWidth(badge); ansi.StringWidth(name) > w {
		name = strings.TrimRight(kit.Fit(name, max(w, 1)), " ")
	}
	return badge + st.Name(name, st.Header.Profile)
}

// keptWidth is the width of the parts kept at any width (rank 0) joined by separators sepW cells wide.
func keptWidth(parts []kit.Part, sepW int) int {
	w, n := 0, 0
	for _, p := range parts {
		if p.Rank == 0 {
			w += ansi.StringWidth(p.Text)
			n++
		}
	}
	return w + max(n-1, 0)*sepW
}

// lockCounts details the locks that need attention, and those nobody holds, e.g. " (2 mine, 1 split, 3 free)".
func lockCounts(d *kit.Dashboard) string {
	var parts []string
	c := d.Counts
	for _, x := range []struct {
		n    int
		what string
	}{{c.Mine, "mine"}, {c.Lost, monitor.StateLost.Label()}, {c.Split, monitor.StateSplit.Label()},
		{c.Unconfirmed, monitor.StateUnconfirmed.Label()}, {c.Partial, monitor.StatePartial.Label()}, {c.Free, monitor.StateFree.Label()}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", kit.Thousands(x.n), x.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// bannerView shows the monitor's current warnings, errors first, so they cannot be missed.
func (m *Model) bannerView() string {
	st, all := m.sh.St, m.bannerRows()
	rows := m.lay.bannerH
	shown := all
	if m.lay.bannerMore > 0 {
		shown = shown[:rows-1]
	}
	lines := make([]string, 0, rows)
	for _, w := range shown[:min(len(shown), rows)] {
		style, glyph := st.Banner.Warn, "▲ "
		if w.Severity == monitor.SeverityError {
			style, glyph = st.Banner.Err, "✖ "
		}
		lines = append(lines, style.Render(glyph)+st.Name(kit.Fit(w.Text, m.width-2), style))
	}
	if m.lay.bannerMore > 0 {
		text, anyError := kit.MoreText(all[len(shown):])
		style := st.Banner.Warn
		if anyError {
			style = st.Banner.Err
		}
		lines = append(lines, style.Render(kit.Fit(text, m.width)))
	}
	return strings.Join(lines, "\n")
}

// bodyView is the panels, with the modal where it says it shows: in their place, over them, or in them.
func (m *Model) bodyView() string {
	if md := m.mode(); md.Modal {
		switch md.Layer {
		case kit.LayerScreen:
			return m.modal.View()
		case kit.LayerDialog:
			return kit.Overlay(m.panelsView(), m.modal.View(), m.width)
		}
	}
	return m.panelsView()
}

// panelsView is the panels as the layout places them, or the event log alone when it fills the body.
func (m *Model) panelsView() string {
	if m.mode().LogFull {
		return m.log.View()
	}
	parts := []string{m.masters.View()}
	locks := m.locks.View()
	if m.lay.detail.w > 0 {
		locks = kit.JoinH(locks, m.detail.View())
	}
	parts = append(parts, locks)
	if m.lay.panels[kit.FocusOurs].h > 0 {
		parts = append(parts, kit.JoinH(m.ours.View(), m.log.View()))
	}
	return strings.Join(parts, "\n")
}

// statusWrapFor is how long a status too long for its line takes the help's line too, so that it is read to
// its end (a refusal's way out comes last); then the help comes back, and the status is cut to one line.
const statusWrapFor = 10 * time.Second

// footerView is the status line and the short help of what works now. A fresh status too long for one line
// continues on the help's line for a while (statusWrapFor).
func (m *Model) footerView() string {
	st := m.sh.St
	var statusLine string
	if m.status.Text != "" {
		s := m.status
		head := st.Text.Muted.Render(s.At.Format("15:04:05")+" ") + st.Level[s.Level].Render(kit.LevelGlyph[s.Level]+" ")
		statusLine = head + st.Name(s.Text, st.Level[s.Level])
		headW := ansi.StringWidth(head)
		room := m.width - headW
		if m.lay.footerH == 2 && ansi.StringWidth(s.Text) > room && m.sh.Now().Sub(s.At) < statusWrapFor {
			lines := kit.CutLines(kit.Wrap(s.Text, room), 2, room)
			return kit.FitStyled(head+st.Name(lines[0], st.Level[s.Level]), m.width) + "\n" +
				kit.FitStyled(strings.Repeat(" ", headW)+st.Level[s.Level].Render(lines[len(lines)-1]), m.width)
		}
	}
	helpLine := m.help.ShortHelpView(m.shortHelp())
	if m.lay.footerH == 1 {
		if statusLine != "" {
			return kit.FitStyled(statusLine, m.width)
		}
		return kit.FitStyled(helpLine, m.width)
	}
	return kit.FitStyled(statusLine, m.width) + "\n" + kit.FitStyled(helpLine, m.width)
}

// shortHelp lists the bindings that work right now, for the footer: the modal's, or the focused panel's and
// the global keys in the order of KeyMap.ShortHelp.
func (m *Model) shortHelp() []key.Binding {
	if m.mode().Modal {
		return m.modal.ShortHelp()
	}
	return kit.InOrder(m.sh.Keys.ShortHelp(), m.offeredKeys(false))
}
