package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/panels"
)

// helpView is the full help, a modal in place of the panels: the bindings that can act in this mode, in the
// columns of KeyMap.FullHelp (and the demo's in demo mode), then the legend of the screen's glyphs and
// columns. It scrolls.
type helpView struct {
	kit.ModalBase
	box       *kit.ScrollBox
	hm        help.Model
	dashboard [][]key.Binding // the dashboard's columns, disabled where a key cannot act in this mode
	demo      [][]key.Binding // the presenter's columns; nil outside demo mode
	blocked   string          // why the lock commands cannot act, "" when they can
	readOnly  bool            // the dashboard is read-only
}

// SetSize sets the help's outer size; its lines are laid out again for a new width.
func (v *helpView) SetSize(w, h int) {
	if w == v.box.W && h == v.box.H {
		return
	}
	v.box.SetSize(w, h)
	v.box.SetLines(v.lines(w))
}

// Update scrolls the help with the keys and the wheel, and closes it with Help or Close.
func (v *helpView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if key.Matches(msg, v.Sh.Keys.Help, v.Sh.Keys.Close) {
			return nil, nil
		}
		v.box.Update(msg)
	case tea.MouseMsg:
		v.box.Update(msg)
	}
	return v, nil
}

// View draws the help.
func (v *helpView) View() string {
	k := v.Sh.Keys
	return v.box.View("Help · " + k.Help.Help().Key + " or " + k.Close.Help().Key + " closes")
}

// openHelp opens the full help, composed from the global keys and every component's, at its top.
func (m *Model) openHelp() {
	k, md := m.sh.Keys, m.mode()
	offered := m.offeredKeys(true)
	closeKey := k.Close
	closeKey.SetHelp(closeKey.Help().Key, "close")
	v := &helpView{ModalBase: panels.ScreenBase(m.sh, []key.Binding{closeKey, k.Up, k.Down, k.PageDown, panels.ViewQuitKey(k)}),
		box: kit.NewScrollBox(m.sh), hm: m.help,
		dashboard: kit.ColumnsInOrder(k.DashboardHelp(), offered), blocked: m.ops.WriteBlocked("locking"), readOnly: md.ReadOnly}
	if md.Source == kit.SourceDemo {
		v.demo = kit.ColumnsInOrder(k.Demo.FullHelp(), offered)
	}
	m.openModal(v)
}

// offeredKeys are the bindings the global keys, the lock commands and every component offer (the focused
// panel's own with them), in the short form (what acts now) or the full one (what can act in this mode).
func (m *Model) offeredKeys(full bool) []key.Binding {
	maps := []help.KeyMap{&m.keys, m.ops}
	for _, c := range m.components() {
		maps = append(maps, c)
	}
	var out []key.Binding
	for _, km := range maps {
		if full {
			out = append(out, kit.Flatten(km.FullHelp())...)
		} else {
			out = append(out, km.ShortHelp()...)
		}
	}
	return out
}

// lines is the full help laid out w cells wide: the key columns, the demo's, and the legend.
func (v *helpView) lines(w int) []string {
	st, k := v.Sh.St, v.Sh.Keys
	lines := v.columns(v.dashboard, w-4)
	if v.demo != nil { // the presenter's keys, in a block of their own
		lines = append(lines, "", st.Table.Head.Render("Demo")+st.Text.Muted.Render("  faults hit the selected "+
			"master (▸ in the masters panel, or "+k.Demo.Pick.Help().Key+"); scenarios lock "+
			demo.ScenarioResource))
		lines = append(lines, v.columns(v.demo, w-4)...)
	}
	lines = append(lines, "",
		st.Table.Head.Render("Lock cells")+st.Text.Muted.Render("  ● the holder's token  ○ another token  · no key  ? not read this poll (greyed)"),
		st.Table.Head.Render("Q")+st.Text.Muted.Render("  masters holding the token ≥ or < the quorum"),
		st.Table.Head.Render("VALIDITY")+st.Text.Muted.Render("  time the holder keeps a quorum, less the drift allowance"),
		st.Table.Head.Render("SPREAD")+st.Text.Muted.Render("  how far apart the key's expiries are across masters"),
		st.Table.Head.Render("CHG")+st.Text.Muted.Render("  holder changes seen"),
		st.Table.Head.Render("STATE")+st.Text.Muted.Render("  held · held* another token is also present · held? a guess (Redisson thread ids) · "+
			"partial · split · "+monitor.StateUnconfirmed.Label()+" one poll saw an alarm, the next confirms it · unknown too few answered · STUCK no TTL · NO QUORUM · LOST ours"),
		st.Table.Head.Render("Event log")+st.Text.Muted.Render("  entries wrap; with the focus on it, "+k.Filter.Help().Key+
			" searches it, "+k.LogLock.Help().Key+" narrows it to the selected lock and "+k.LogLevel.Help().Key+" by level"),
		// A no-break space keeps each glyph with its word where the line wraps.
		st.Table.Head.Render("Outcomes")+st.Text.Muted.Render(strings.NewReplacer(" ", "\u00a0", "|", "  ").Replace(
			"|✓ ok|◆ another token|· no key|T timeout|✗ error|R replica|? not awaited (decided before it answered)")),
		st.Table.Head.Render("Names")+st.Text.Muted.Render("  "+kit.Mark+" marks a name with escaped bytes (\\xNN, \\n, \\u202e) or cut short"),
	)
	if v.blocked != "" {
		lines = append(lines, "", st.Level[monitor.SeverityWarning].Render(v.blocked))
		if v.demo != nil && v.readOnly {
			lines = append(lines, st.Text.Muted.Render("Read-only leaves the demo's faults, workload and scenarios "+
				"on: they act on the embedded masters this program runs, not through the dashboard's lock commands."))
		}
	}
	var wrapped []string // the legend's sentences wrap rather than being cut at a narrow width
	for _, l := range lines {
		wrapped = append(wrapped, panels.WrapLines(l, w-2)...)
	}
	return wrapped
}

// columns lays out the full help's columns side by side, starting a new row of columns where the next
// one would not fit in w cells; a column whose bindings are all disabled is left out.
func (v *helpView) columns(groups [][]key.Binding, w int) []string {
	const gap = "    "
	hm := v.hm
	hm.Width = 0 // a column is never cut: columns that do not fit go to the next row
	var rows, row []string
	rowW := 0
	flush := func() {
		if len(row) > 0 {
			if len(rows) > 0 {
				rows = append(rows, "")
			}
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
		}
		row, rowW = nil, 0
	}
	for _, g := range groups {
		col := hm.FullHelpView([][]key.Binding{g})
		if col == "" {
			continue
		}
		cw := lipgloss.Width(col)
		if len(row) > 0 && rowW+len(gap)+cw > w {
			flush()
		}
		if len(row) > 0 {
			row = append(row, gap)
			rowW += len(gap)
		}
		row = append(row, col)
		rowW += cw
	}
	flush()
	return strings.Split(strings.Join(rows, "\n"), "\n")
}
