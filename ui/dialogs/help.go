package dialogs

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// HelpView is the full help, a modal in place of the panels: the bindings that can act in this mode, in the
// columns of KeyMap.FullHelp (and the demo's in demo mode), then the legend of the screen's glyphs and
// columns. It scrolls.
type HelpView struct {
	kit.ModalBase
	Box       *kit.ScrollBox
	HelpModel help.Model
	Dashboard [][]key.Binding // the dashboard's columns, disabled where a key cannot act in this mode
	Demo      [][]key.Binding // the presenter's columns; nil outside demo mode
	Blocked   string          // why the lock commands cannot act, "" when they can
	ReadOnly  bool            // the dashboard is read-only
}

// SetSize sets the help's outer size; its lines are laid out again for a new width.
func (v *HelpView) SetSize(w, h int) {
	if w == v.Box.W && h == v.Box.H {
		return
	}
	v.Box.SetSize(w, h)
	v.Box.SetLines(v.lines(w))
}

// Update scrolls the help with the keys and the wheel, and closes it with Help or Close.
func (v *HelpView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if key.Matches(msg, v.Shared.Keys.Help, v.Shared.Keys.Close) {
			return nil, nil
		}
		v.Box.Update(msg)
	case tea.MouseMsg:
		v.Box.Update(msg)
	}
	return v, nil
}

// View draws the help.
func (v *HelpView) View() string {
	k := v.Shared.Keys
	return v.Box.View("Help · " + k.Help.Help().Key + " or " + k.Close.Help().Key + " closes")
}

// lines is the full help laid out w cells wide: the key columns, the demo's, and the legend.
func (v *HelpView) lines(w int) []string {
	st, k := v.Shared.St, v.Shared.Keys
	lines := v.columns(v.Dashboard, w-4)
	if v.Demo != nil { // the presenter's keys, in a block of their own
		lines = append(lines, "", st.Table.Head.Render("Demo")+st.Text.Muted.Render("  faults hit the selected "+
			"master (▸ in the masters panel, or "+k.Demo.Pick.Help().Key+"); scenarios lock "+
			demo.ScenarioResource))
		lines = append(lines, v.columns(v.Demo, w-4)...)
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
	if v.Blocked != "" {
		lines = append(lines, "", st.Level[monitor.SeverityWarning].Render(v.Blocked))
		if v.Demo != nil && v.ReadOnly {
			lines = append(lines, st.Text.Muted.Render("Read-only leaves the demo's faults, workload and scenarios "+
				"on: they act on the embedded masters this program runs, not through the dashboard's lock commands."))
		}
	}
	var wrapped []string // the legend's sentences wrap rather than being cut at a narrow width
	for _, l := range lines {
		wrapped = append(wrapped, kit.WrapLines(l, w-2)...)
	}
	return wrapped
}

// columns lays out the full help's columns side by side, starting a new row of columns where the next
// one would not fit in w cells; a column whose bindings are all disabled is left out.
func (v *HelpView) columns(groups [][]key.Binding, w int) []string {
	const gap = "    "
	hm := v.HelpModel
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
