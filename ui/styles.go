package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// theme is the dashboard's palette: every colour on screen comes from here, each adaptive to light and dark
// terminals. lipgloss drops colours on terminals without colour and when NO_COLOR is set, so every state is
// also told apart by a glyph or a word.
type theme struct {
	text, muted, subtle, border, focus, accent, selected lipgloss.AdaptiveColor
	ok, warn, bad, other, info                           lipgloss.AdaptiveColor
	profile                                              lipgloss.TerminalColor // the connection profile's name
}

// defaultTheme is the palette used by New.
func defaultTheme() theme {
	return theme{
		text:     lipgloss.AdaptiveColor{Light: "#1F2328", Dark: "#E6EDF3"},
		muted:    lipgloss.AdaptiveColor{Light: "#6E7781", Dark: "#8B949E"},
		subtle:   lipgloss.AdaptiveColor{Light: "#AFB8C1", Dark: "#484F58"},
		border:   lipgloss.AdaptiveColor{Light: "#D0D7DE", Dark: "#30363D"},
		focus:    lipgloss.AdaptiveColor{Light: "#0969DA", Dark: "#58A6FF"},
		accent:   lipgloss.AdaptiveColor{Light: "#8250DF", Dark: "#D2A8FF"},
		selected: lipgloss.AdaptiveColor{Light: "#DDF4FF", Dark: "#1C2C54"}, // #00005f in 256 colours (#1F3A5F became #005f5f, too light)
		ok:       lipgloss.AdaptiveColor{Light: "#1A7F37", Dark: "#3FB950"},
		warn:     lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#D29922"},
		bad:      lipgloss.AdaptiveColor{Light: "#CF222E", Dark: "#F85149"},
		other:    lipgloss.AdaptiveColor{Light: "#BC4C00", Dark: "#FFA657"},
		info:     lipgloss.AdaptiveColor{Light: "#0550AE", Dark: "#79C0FF"},
		profile:  lipgloss.AdaptiveColor{Light: "#0550AE", Dark: "#79C0FF"}, // as info
	}
}

// withProfile is t with the connection profile's colour: the one the profile gives (#RRGGBB, #RGB or an ANSI
// number), else red for a production profile and t's own for any other.
func (t theme) withProfile(color string, production bool) theme {
	switch {
	case color != "":
		t.profile = lipgloss.Color(color)
	case production:
		t.profile = t.bad
	}
	return t
}

// paint is a style made ready for the hot paths: its escape sequences are worked out once, so painting a cell
// is a concatenation rather than a lipgloss render, which costs microseconds and allocations per call and would
// dominate a frame. Without colour (NO_COLOR, or a terminal without colour) both sequences are empty.
type paint struct {
	pre, post string
	sel       *paint // the same over the selected row's background
}

// paintSentinel is a private-use character that never occurs in rendered text, used to split a rendering.
const paintSentinel = "\ue000"

// newPaint prepares s, and s over the selected background.
func newPaint(s, selected lipgloss.Style) paint {
	p, sel := splitRender(s), splitRender(s.Inherit(selected))
	p.sel = &sel
	return p
}

// splitRender finds the sequences lipgloss writes before and after a text in style s.
func splitRender(s lipgloss.Style) paint {
	r := s.Render(paintSentinel)
	i := strings.Index(r, paintSentinel)
	if i < 0 {
		return paint{}
	}
	return paint{pre: r[:i], post: r[i+len(paintSentinel):]}
}

// Render paints text.
func (p paint) Render(text string) string {
	if p.pre == "" && p.post == "" {
		return text
	}
	return p.pre + text + p.post
}

// on returns p, or p over the selected background when selected.
func (p paint) on(selected bool) paint {
	if selected && p.sel != nil {
		return *p.sel
	}
	return p
}

// styles holds every style of the dashboard, grouped by the part of the screen that uses it, built once from a
// theme. Forms and help keep lipgloss styles; everything drawn per row is a paint.
type styles struct {
	header struct {
		title, label, value, ok, degraded, noQuorum, paused, live, readOnly paint
		profile, production                                                 paint // the profile's name; the PROD badge
	}
	banner struct{ err, warn paint }
	demo   struct{ badge, violation paint }
	panel  struct {
		border, borderFocused, title, titleFocused paint
	}
	table    struct{ head, cursor paint }
	cursor   lipgloss.Style // a field's cursor
	cell     struct{ holder, other, absent, down, unknown paint }
	state    struct{ held, partial, split, lost, stuck, unknown, unconfirmed, free, none paint }
	bar      struct{ full, low, empty paint }
	level    [3]paint // by severity (monitor.Severity): info, warning, error
	text     struct{ normal, muted, you, mark, ok, bad paint }
	form     struct{ label, input, hint, err lipgloss.Style }
	help     help.Styles
	selected lipgloss.Style
}

// newStyles builds the styles from t.
func newStyles(t theme) *styles {
	s := &styles{selected: lipgloss.NewStyle().Background(t.selected)}
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	p := func(st lipgloss.Style) paint { return newPaint(st, s.selected) }

	s.header.title = p(fg(t.accent).Bold(true))
	s.header.label = p(fg(t.muted))
	s.header.value = p(fg(t.text))
	s.header.ok = p(fg(t.ok).Bold(true))
	s.header.degraded = p(fg(t.warn).Bold(true))
	s.header.noQuorum = p(fg(t.bad).Bold(true).Reverse(true))
	s.header.paused = p(fg(t.warn).Bold(true))
	s.header.live = p(fg(t.ok))
	s.header.readOnly = p(fg(t.info).Bold(true).Reverse(true))
	s.header.profile = p(lipgloss.NewStyle().Foreground(t.profile).Bold(true))
	s.header.production = p(lipgloss.NewStyle().Foreground(t.profile).Bold(true).Reverse(true))

	s.banner.err = p(fg(t.bad).Bold(true))
	s.banner.warn = p(fg(t.warn))

	s.demo.badge = p(fg(t.accent).Bold(true).Reverse(true))
	s.demo.violation = p(fg(t.bad).Bold(true).Reverse(true))

	s.panel.border = p(fg(t.border))
	s.panel.borderFocused = p(fg(t.focus))
	s.panel.title = p(fg(t.muted).Bold(true))
	s.panel.titleFocused = p(fg(t.focus).Bold(true))

	s.table.head = p(fg(t.muted).Bold(true))
	s.table.cursor = p(fg(t.focus).Bold(true))
	s.cursor = fg(t.focus).Bold(true).Reverse(true)

	s.cell.holder = p(fg(t.ok))
	s.cell.other = p(fg(t.other).Bold(true))
	s.cell.absent = p(fg(t.subtle))
	s.cell.down = p(fg(t.bad))
	s.cell.unknown = p(fg(t.muted).Faint(true))

	s.state.held = p(fg(t.ok))
	s.state.partial = p(fg(t.warn))
	s.state.split = p(fg(t.other).Bold(true))
	s.state.lost = p(fg(t.bad).Bold(true))
	s.state.stuck = p(fg(t.bad))
	s.state.unknown = p(fg(t.muted))
	s.state.unconfirmed = p(fg(t.warn).Italic(true)) // an alarm one poll saw: not red until the next confirms it
	s.state.free = p(fg(t.muted).Faint(true))        // no key: listed for its holders in the window, dim as its row
	s.state.none = p(fg(t.muted))

	s.bar.full = p(fg(t.ok))
	s.bar.low = p(fg(t.warn))
	s.bar.empty = p(fg(t.subtle))

	s.level[monitor.SeverityInfo] = p(fg(t.text))
	s.level[monitor.SeverityWarning] = p(fg(t.warn))
	s.level[monitor.SeverityError] = p(fg(t.bad))

	s.text.normal = p(fg(t.text))
	s.text.muted = p(fg(t.muted))
	s.text.you = p(fg(t.info).Bold(true))
	s.text.mark = p(fg(t.bad).Bold(true))
	s.text.ok = p(fg(t.ok))
	s.text.bad = p(fg(t.bad))

	s.form.label = fg(t.muted)
	s.form.input = fg(t.text)
	s.form.hint = fg(t.muted)
	s.form.err = fg(t.bad)

	s.help = help.Styles{
		ShortKey:       fg(t.info),
		ShortDesc:      fg(t.muted),
		ShortSeparator: fg(t.subtle),
		Ellipsis:       fg(t.subtle),
		FullKey:        fg(t.info),
		FullDesc:       fg(t.muted),
		FullSeparator:  fg(t.subtle),
	}
	return s
}

// name renders a sanitized name with base, showing the mark of an escaped or cut name in the mark style.
func (s *styles) name(text string, base paint) string {
	if strings.HasPrefix(text, mark) {
		return s.text.mark.Render(mark) + base.Render(text[len(mark):])
	}
	return base.Render(text)
}
