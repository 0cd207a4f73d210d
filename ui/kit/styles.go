package kit

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// Theme is the dashboard's palette: every colour on screen comes from here, each adaptive to light and dark
// terminals. lipgloss drops colours on terminals without colour and when NO_COLOR is set, so every state is
// also told apart by a glyph or a word.
type Theme struct {
	text, muted, subtle, border, focus, accent, selected lipgloss.AdaptiveColor
	ok, warn, bad, other, info                           lipgloss.AdaptiveColor
	profile                                              lipgloss.TerminalColor // the connection profile's name
}

// DefaultTheme is the palette used by New.
func DefaultTheme() Theme {
	return Theme{
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

// WithProfile is t with the connection profile's colour: the one the profile gives (#RRGGBB, #RGB or an ANSI
// number), else red for a production profile and t's own for any other.
func (t Theme) WithProfile(color string, production bool) Theme {
	switch {
	case color != "":
		t.profile = lipgloss.Color(color)
	case production:
		t.profile = t.bad
	}
	return t
}

// Paint is a style made ready for the hot paths: its escape sequences are worked out once, so painting a cell
// is a concatenation rather than a lipgloss render, which costs microseconds and allocations per call and would
// dominate a frame. Without colour (NO_COLOR, or a terminal without colour) both sequences are empty.
type Paint struct {
	pre, post string
	sel       *Paint // the same over the selected row's background
}

// paintSentinel is a private-use character that never occurs in rendered text, used to split a rendering.
const paintSentinel = "\ue000"

// newPaint prepares s, and s over the selected background.
func newPaint(s, selected lipgloss.Style) Paint {
	p, sel := splitRender(s), splitRender(s.Inherit(selected))
	p.sel = &sel
	return p
}

// splitRender finds the sequences lipgloss writes before and after a text in style s.
func splitRender(s lipgloss.Style) Paint {
	r := s.Render(paintSentinel)
	i := strings.Index(r, paintSentinel)
	if i < 0 {
		return Paint{}
	}
	return Paint{pre: r[:i], post: r[i+len(paintSentinel):]}
}

// Render paints text.
func (p Paint) Render(text string) string {
	if p.pre == "" && p.post == "" {
		return text
	}
	return p.pre + text + p.post
}

// On returns p, or p over the selected background when selected.
func (p Paint) On(selected bool) Paint {
	if selected && p.sel != nil {
		return *p.sel
	}
	return p
}

// Styles holds every style of the dashboard, grouped by the part of the screen that uses it, built once from a
// theme. Forms and help keep lipgloss styles; everything drawn per row is a paint.
type Styles struct {
	Header struct {
		Title, Label, Value, OK, Degraded, NoQuorum, Paused, Live, ReadOnly Paint
		Profile, Production                                                 Paint // the profile's name; the PROD badge
	}
	Banner struct{ Err, Warn Paint }
	Demo   struct{ Badge, Violation Paint }
	Panel  struct {
		Border, BorderFocused, Title, TitleFocused Paint
	}
	Table    struct{ Head, Cursor Paint }
	Cursor   lipgloss.Style // a field's cursor
	Cell     struct{ Holder, Other, Absent, down, Unknown Paint }
	State    struct{ Held, Partial, Split, Lost, Stuck, Unknown, Unconfirmed, Free, None Paint }
	Bar      struct{ Full, Low, Empty Paint }
	Level    [3]Paint // by severity (monitor.Severity): info, warning, error
	Text     struct{ Normal, Muted, You, mark, OK, Bad Paint }
	Form     struct{ Label, Input, Hint, Err lipgloss.Style }
	Help     help.Styles
	selected lipgloss.Style
}

// NewStyles builds the styles from t.
func NewStyles(t Theme) *Styles {
	s := &Styles{selected: lipgloss.NewStyle().Background(t.selected)}
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	p := func(st lipgloss.Style) Paint { return newPaint(st, s.selected) }

	s.Header.Title = p(fg(t.accent).Bold(true))
	s.Header.Label = p(fg(t.muted))
	s.Header.Value = p(fg(t.text))
	s.Header.OK = p(fg(t.ok).Bold(true))
	s.Header.Degraded = p(fg(t.warn).Bold(true))
	s.Header.NoQuorum = p(fg(t.bad).Bold(true).Reverse(true))
	s.Header.Paused = p(fg(t.warn).Bold(true))
	s.Header.Live = p(fg(t.ok))
	s.Header.ReadOnly = p(fg(t.info).Bold(true).Reverse(true))
	s.Header.Profile = p(lipgloss.NewStyle().Foreground(t.profile).Bold(true))
	s.Header.Production = p(lipgloss.NewStyle().Foreground(t.profile).Bold(true).Reverse(true))

	s.Banner.Err = p(fg(t.bad).Bold(true))
	s.Banner.Warn = p(fg(t.warn))

	s.Demo.Badge = p(fg(t.accent).Bold(true).Reverse(true))
	s.Demo.Violation = p(fg(t.bad).Bold(true).Reverse(true))

	s.Panel.Border = p(fg(t.border))
	s.Panel.BorderFocused = p(fg(t.focus))
	s.Panel.Title = p(fg(t.muted).Bold(true))
	s.Panel.TitleFocused = p(fg(t.focus).Bold(true))

	s.Table.Head = p(fg(t.muted).Bold(true))
	s.Table.Cursor = p(fg(t.focus).Bold(true))
	s.Cursor = fg(t.focus).Bold(true).Reverse(true)

	s.Cell.Holder = p(fg(t.ok))
	s.Cell.Other = p(fg(t.other).Bold(true))
	s.Cell.Absent = p(fg(t.subtle))
	s.Cell.down = p(fg(t.bad))
	s.Cell.Unknown = p(fg(t.muted).Faint(true))

	s.State.Held = p(fg(t.ok))
	s.State.Partial = p(fg(t.warn))
	s.State.Split = p(fg(t.other).Bold(true))
	s.State.Lost = p(fg(t.bad).Bold(true))
	s.State.Stuck = p(fg(t.bad))
	s.State.Unknown = p(fg(t.muted))
	s.State.Unconfirmed = p(fg(t.warn).Italic(true)) // an alarm one poll saw: not red until the next confirms it
	s.State.Free = p(fg(t.muted).Faint(true))        // no key: listed for its holders in the window, dim as its row
	s.State.None = p(fg(t.muted))

	s.Bar.Full = p(fg(t.ok))
	s.Bar.Low = p(fg(t.warn))
	s.Bar.Empty = p(fg(t.subtle))

	s.Level[monitor.SeverityInfo] = p(fg(t.text))
	s.Level[monitor.SeverityWarning] = p(fg(t.warn))
	s.Level[monitor.SeverityError] = p(fg(t.bad))

	s.Text.Normal = p(fg(t.text))
	s.Text.Muted = p(fg(t.muted))
	s.Text.You = p(fg(t.info).Bold(true))
	s.Text.mark = p(fg(t.bad).Bold(true))
	s.Text.OK = p(fg(t.ok))
	s.Text.Bad = p(fg(t.bad))

	s.Form.Label = fg(t.muted)
	s.Form.Input = fg(t.text)
	s.Form.Hint = fg(t.muted)
	s.Form.Err = fg(t.bad)

	s.Help = help.Styles{
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

// Name renders a sanitized name with base, showing the mark of an escaped or cut name in the mark style.
func (s *Styles) Name(text string, base Paint) string {
	if strings.HasPrefix(text, Mark) {
		return s.Text.mark.Render(Mark) + base.Render(text[len(Mark):])
	}
	return base.Render(text)
}

// Border glyphs: a focused panel has a heavy border, so focus shows without colour too.
var (
	lightEdges = [6]string{"╭", "╮", "╰", "╯", "─", "│"}
	heavyEdges = [6]string{"┏", "┓", "┗", "┛", "━", "┃"}
)

// Box draws a panel: a border of exactly w by h cells with the title in the top edge, around the body lines,
// which are cut or padded to the inner width. A focused panel has a heavy, highlighted border.
func (s *Styles) Box(title string, body []string, w, h int, focused bool) string {
	if w < 4 || h < 2 {
		return Blank(w, h)
	}
	border, titleStyle, e := s.Panel.Border, s.Panel.Title, lightEdges
	if focused {
		border, titleStyle, e = s.Panel.BorderFocused, s.Panel.TitleFocused, heavyEdges
	}
	inner := w - 2
	var b strings.Builder
	t := Fit(" "+title+" ", min(ansi.StringWidth(" "+title+" "), inner-2))
	b.WriteString(border.Render(e[0] + e[4]))
	b.WriteString(titleStyle.Render(t))
	b.WriteString(border.Render(strings.Repeat(e[4], max(inner-1-ansi.StringWidth(t), 0)) + e[1]))
	side := border.Render(e[5])
	for i := 0; i < h-2; i++ {
		b.WriteByte('\n')
		b.WriteString(side)
		if i < len(body) {
			b.WriteString(FitStyled(body[i], inner))
		} else {
			b.WriteString(strings.Repeat(" ", inner))
		}
		b.WriteString(side)
	}
	b.WriteByte('\n')
	b.WriteString(border.Render(e[2] + strings.Repeat(e[4], inner) + e[3]))
	return b.String()
}

// Blank is an empty area of w by h cells.
func Blank(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	line := strings.Repeat(" ", w)
	lines := make([]string, h)
	for i := range lines {
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// ValidityBar renders a bar w cells wide for v out of ref, in the warning colour below a quarter, over the
// selected row's background when selected.
func (s *Styles) ValidityBar(v, ref time.Duration, w int, selected bool) string {
	f := 0.0
	if ref > 0 {
		f = float64(v) / float64(ref)
	}
	filled, empty := BarCells(f, w)
	full := s.Bar.Full
	if f < 0.25 {
		full = s.Bar.Low
	}
	return full.On(selected).Render(strings.Repeat("█", filled)) + s.Bar.Empty.On(selected).Render(strings.Repeat("░", empty))
}
