package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// theme is the dashboard's palette: every colour on screen comes from here, each adaptive to light and dark
// terminals. lipgloss drops colours on terminals without colour and when NO_COLOR is set, so every state is
// also told apart by a glyph or a word.
type theme struct {
	text, muted, subtle, border, focus, accent, selected lipgloss.AdaptiveColor
	ok, warn, bad, other, info                           lipgloss.AdaptiveColor
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
		selected: lipgloss.AdaptiveColor{Light: "#DDF4FF", Dark: "#1F3A5F"},
		ok:       lipgloss.AdaptiveColor{Light: "#1A7F37", Dark: "#3FB950"},
		warn:     lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#D29922"},
		bad:      lipgloss.AdaptiveColor{Light: "#CF222E", Dark: "#F85149"},
		other:    lipgloss.AdaptiveColor{Light: "#BC4C00", Dark: "#FFA657"},
		info:     lipgloss.AdaptiveColor{Light: "#0550AE", Dark: "#79C0FF"},
	}
}

// styles holds every lipgloss style of the dashboard, grouped by the part of the screen that uses it, built once
// from a theme.
type styles struct {
	header struct {
		title, label, value, ok, degraded, noQuorum, paused, live, readOnly lipgloss.Style
	}
	banner struct{ err, warn lipgloss.Style }
	panel  struct {
		border, borderFocused, title, titleFocused, dim lipgloss.Style
	}
	table struct{ head, cursor, selected lipgloss.Style }
	cell  struct{ holder, other, absent, down lipgloss.Style }
	state struct{ held, partial, split, lost, none lipgloss.Style }
	bar   struct{ full, low, empty lipgloss.Style }
	level [3]lipgloss.Style // by level: info, warning, error
	text  struct{ normal, muted, you, mark, ok, bad lipgloss.Style }
	form  struct{ box, title, label, input, hint, err lipgloss.Style }
	help  help.Styles
}

// newStyles builds the styles from t.
func newStyles(t theme) *styles {
	s := &styles{}
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }

	s.header.title = fg(t.accent).Bold(true)
	s.header.label = fg(t.muted)
	s.header.value = fg(t.text)
	s.header.ok = fg(t.ok).Bold(true)
	s.header.degraded = fg(t.warn).Bold(true)
	s.header.noQuorum = fg(t.bad).Bold(true).Reverse(true)
	s.header.paused = fg(t.warn).Bold(true)
	s.header.live = fg(t.ok)
	s.header.readOnly = fg(t.info).Bold(true).Reverse(true)

	s.banner.err = fg(t.bad).Bold(true)
	s.banner.warn = fg(t.warn)

	s.panel.border = fg(t.border)
	s.panel.borderFocused = fg(t.focus)
	s.panel.title = fg(t.muted).Bold(true)
	s.panel.titleFocused = fg(t.focus).Bold(true)
	s.panel.dim = fg(t.muted)

	s.table.head = fg(t.muted).Bold(true)
	s.table.cursor = fg(t.focus).Bold(true)
	s.table.selected = lipgloss.NewStyle().Background(t.selected)

	s.cell.holder = fg(t.ok)
	s.cell.other = fg(t.other).Bold(true)
	s.cell.absent = fg(t.subtle)
	s.cell.down = fg(t.bad)

	s.state.held = fg(t.ok)
	s.state.partial = fg(t.warn)
	s.state.split = fg(t.other).Bold(true)
	s.state.lost = fg(t.bad).Bold(true)
	s.state.none = fg(t.muted)

	s.bar.full = fg(t.ok)
	s.bar.low = fg(t.warn)
	s.bar.empty = fg(t.subtle)

	s.level[levelInfo] = fg(t.text)
	s.level[levelWarn] = fg(t.warn)
	s.level[levelError] = fg(t.bad)

	s.text.normal = fg(t.text)
	s.text.muted = fg(t.muted)
	s.text.you = fg(t.info).Bold(true)
	s.text.mark = fg(t.bad).Bold(true)
	s.text.ok = fg(t.ok)
	s.text.bad = fg(t.bad)

	s.form.box = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.focus).Padding(0, 1)
	s.form.title = fg(t.accent).Bold(true)
	s.form.label = fg(t.muted)
	s.form.input = fg(t.text).Underline(true)
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
func (s *styles) name(text string, base lipgloss.Style) string {
	if len(text) >= len(mark) && text[:len(mark)] == mark {
		return s.text.mark.Render(mark) + base.Render(text[len(mark):])
	}
	return base.Render(text)
}
