package panels

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// MastersPanel lists the masters with their health: status (and error), RTT, clock offset and uncertainty,
// drift, uptime, role, lock keys, discovery progress and warnings. It scrolls when there are more masters than
// rows. In demo mode it also shows the faults the presenter injected, and its cursor is the master they hit.
type MastersPanel struct {
	kit.KeyTable
	cursor, offset int
	kit.Sized
	demo     bool               // demo mode: the faults lead the notes
	faults   []demo.MasterState // the demo's masters, as the presenter left them
	faultsAt time.Time          // when faults were read
	// NoteH is how many lines the layout gives, under the selected master, to the rest of its note (its
	// error and next step) that its row has no room for.
	NoteH int
}

// maxNoteLines bounds the lines under the selected master for the rest of its note.
const maxNoteLines = 4

// noteIndent is where the lines of a note under its master's row start: under the address.
const noteIndent = 6

// NewMastersPanel returns the masters panel; demoMode makes room for the demo's faults.
func NewMastersPanel(sh *kit.Shared, demoMode bool) *MastersPanel {
	p := &MastersPanel{KeyTable: kit.KeyTable{Shared: sh}, demo: demoMode}
	p.Actions = navActions(sh.Keys, p.move)
	return p
}

// rows is how many masters fit below the column header, beside the selected master's note.
func (p *MastersPanel) rows() int { return max(p.H-3-p.NoteH, 0) }

// Update moves the cursor with the navigation keys, the mouse and the presenter's picks, and takes in the
// focus and the demo's faults; the rows shown follow the cursor.
func (p *MastersPanel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case kit.StateMsg:
		p.Focused = msg.Mode.Focus == kit.FocusMasters
	case tea.KeyMsg:
		cmd = p.Run(msg)
	case tea.MouseMsg:
		p.mouse(msg)
	case kit.PickMasterMsg:
		p.cursor = msg.I
	case kit.FaultsMsg:
		p.faults, p.faultsAt = msg.Masters, msg.At
	}
	p.scroll()
	return p, cmd
}

// SetSize sets the outer size (the root sets noteH first), and keeps the cursor's row on screen.
func (p *MastersPanel) SetSize(w, h int) {
	p.Sized.SetSize(w, h)
	p.scroll()
}

// scroll moves the first row shown so that the cursor's row is on screen.
func (p *MastersPanel) scroll() {
	if d := p.Shared.Data; d != nil {
		p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(d.Masters))
	}
}

// move applies a navigation key to the cursor.
func (p *MastersPanel) move(msg tea.KeyMsg) tea.Cmd {
	if p.Shared.Data == nil {
		return nil
	}
	p.cursor = MoveCursor(p.Shared.Keys, msg, p.cursor, len(p.Shared.Data.Masters), p.rows())
	return nil
}

// mouse scrolls the cursor with the wheel, and selects the master clicked; a click on the master already
// selected shows it in full. msg.Y is the row within the panel.
func (p *MastersPanel) mouse(msg tea.MouseMsg) {
	d := p.Shared.Data
	if d == nil {
		return
	}
	if n := kit.WheelRows(msg); n != 0 {
		p.cursor = min(max(p.cursor+n, 0), max(len(d.Masters)-1, 0))
		return
	}
	row := msg.Y - 2 // the border and the column header
	// The selected master's note lines are below it: a click on them is a click on it.
	if sel := p.cursor - p.offset; p.NoteH > 0 && row > sel {
		row = max(row-p.NoteH, sel)
	}
	if row < 0 || row >= p.rows() {
		return
	}
	i := p.offset + row
	if i >= len(d.Masters) {
		return
	}
	if i == p.cursor {
		p.Shared.Tell(kit.OpenMsg{})
	}
	p.cursor = i
}

// Selected is the master under the cursor, by its position in the snapshot.
func (p *MastersPanel) Selected() int { return p.cursor }

// Drill returns the full view of the master under the cursor, nil when there is none.
func (p *MastersPanel) Drill() *drillview.DrillView {
	if d := p.Shared.Data; d != nil && p.cursor < len(d.Masters) {
		return drillview.NewMasterDrill(p.Shared, &d.Masters[p.cursor])
	}
	return nil
}

// MoveCursor applies a navigation key to a cursor over total rows, a page being page rows.
func MoveCursor(k *kit.KeyMap, msg tea.KeyMsg, cursor, total, page int) int {
	switch {
	case key.Matches(msg, k.Up):
		cursor--
	case key.Matches(msg, k.Down):
		cursor++
	case key.Matches(msg, k.PageUp):
		cursor -= max(page, 1)
	case key.Matches(msg, k.PageDown):
		cursor += max(page, 1)
	case key.Matches(msg, k.Top):
		cursor = 0
	case key.Matches(msg, k.Bottom):
		cursor = total - 1
	}
	return min(max(cursor, 0), max(total-1, 0))
}

// navActions are a panel's navigation keys, acting on it while it has the focus: move applies one.
func navActions(k *kit.KeyMap, move func(msg tea.KeyMsg) tea.Cmd) []kit.Action {
	var out []kit.Action
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom} {
		out = append(out, kit.Action{Binding: b, Focused: true, Do: move})
	}
	return out
}

// masterCols are the widths of the masters table's columns; 0 hides a column.
type masterCols struct{ addr, status, rtt, clock, drift, uptime, role, keys, refresh, scan, notes int }

// masterColumns fits the columns into w cells, dropping the least needed first. In demo mode the role column
// (always "master") and the refresh mode (the master's view has it) leave their room to the notes, which start
// with the master's faults and get more room. The address column grows to addrNeed cells, the longest
// address, from the notes' room beyond their least, so that an address is shown whole where there is room.
func masterColumns(w, addrNeed int, demoMode bool) masterCols {
	c := masterCols{addr: 22, status: 6, rtt: 8, clock: 17, drift: 8, uptime: 7, role: 7, keys: 7, refresh: 7, scan: 5}
	minNotes := 8
	if demoMode {
		c.role, c.refresh, minNotes = 0, 0, 18
	}
	fixed := func() int {
		n := 2 + 4 // cursor, label
		for _, x := range []int{c.addr, c.status, c.rtt, c.clock, c.drift, c.uptime, c.role, c.keys, c.refresh, c.scan} {
			if x > 0 {
				n += x + 1
			}
		}
		return n
	}
	for _, drop := range []*int{&c.drift, &c.scan, &c.role, &c.uptime, &c.clock, &c.refresh} {
		if fixed() <= w-minNotes {
			break
		}
		*drop = 0
	}
	if over := fixed() - w; over > 0 {
		c.addr = max(c.addr-over, 8)
	}
	if spare := w - minNotes - fixed(); addrNeed > c.addr && spare > 0 {
		c.addr += min(addrNeed-c.addr, spare)
	}
	c.notes = max(w-fixed(), 0)
	return c
}

// addrNeed is the cells the longest master's address takes.
func (p *MastersPanel) addrNeed() int {
	n := 0
	if d := p.Shared.Data; d != nil {
		for _, m := range d.Masters {
			n = max(n, ansi.StringWidth(m.Addr))
		}
	}
	return n
}

// View draws the masters panel.
func (p *MastersPanel) View() string {
	d, st, focused := p.Shared.Data, p.Shared.St, p.Focused
	if d == nil {
		return st.Box("Masters", []string{st.Text.Muted.Render("waiting for the first poll…")}, p.W, p.H, focused)
	}
	w := p.W - 2
	c := masterColumns(w, p.addrNeed(), p.demo)
	notes := "NOTES"
	if p.demo {
		notes = "FAULTS · NOTES"
	}
	heads := []string{"     "}
	cols := []struct {
		w     int
		title string
		right bool
	}{{c.addr, "ADDRESS", false}, {c.status, "STATE", false}, {c.rtt, "RTT", true}, {c.clock, "CLOCK OFFSET", true},
		{c.drift, "DRIFT", true}, {c.uptime, "UPTIME", true}, {c.role, "ROLE", false}, {c.keys, "KEYS", true},
		{c.refresh, "REFRESH", false}, {c.scan, "SCAN", true}, {c.notes, notes, false}}
	for _, col := range cols {
		switch {
		case col.w == 0:
		case col.right:
			heads = append(heads, kit.FitLeft(col.title, col.w))
		default:
			heads = append(heads, kit.Fit(col.title, col.w))
		}
	}
	body := []string{st.Table.Head.Render(kit.Fit(strings.Join(heads, " "), w))}
	for i := p.offset; i < len(d.Masters) && i < p.offset+p.rows(); i++ {
		cursor := "  "
		switch {
		case i != p.cursor:
		case focused:
			cursor = st.Table.Cursor.Render("▸ ")
		case p.demo: // the master the presenter's faults act on, always shown
			cursor = st.Text.Muted.Render("▸ ")
		}
		faults, bad := "", false
		if i < len(p.faults) {
			faults, bad = kit.FaultText(&p.faults[i], p.faultsAt, p.Shared.Now())
		}
		if i == p.cursor && p.NoteH > 0 && cursor == "  " { // its note continues below: say whose it is
			cursor = st.Text.Muted.Render("▸ ")
		}
		row, more := p.row(&d.Masters[i], c, cursor, faults, bad, w, i == p.cursor && p.NoteH > 0)
		body = append(body, row)
		if i == p.cursor {
			body = append(body, cutNote(more, p.NoteH, w-noteIndent, st, p.noteStyle(&d.Masters[i]))...)
		}
	}
	title := fmt.Sprintf("Masters %d/%d up · quorum %d", d.Snap.UpCount, d.Snap.Servers, d.Snap.Quorum) + p.unseen()
	if p.demo && p.cursor < len(d.Masters) {
		title += " · faults hit " + d.Masters[p.cursor].Label
	}
	return st.Box(title, body, p.W, p.H, focused)
}

// unseen says, for the title, what the rows do not show: the rows shown of how many and which way the rest
// lie, and the masters out of view that are not up ("M7 down ↓"), so that a master below the fold is never
// silently out of sight. "" when every master is on screen.
func (p *MastersPanel) unseen() string {
	d, rows := p.Shared.Data, p.rows()
	n := len(d.Masters)
	if n <= rows {
		return ""
	}
	if rows == 0 {
		return fmt.Sprintf(" · %d not shown", n)
	}
	t := fmt.Sprintf(" · %d-%d of %d", p.offset+1, min(p.offset+rows, n), n)
	var hidden []string
	for i := range d.Masters {
		if i >= p.offset && i < p.offset+rows {
			continue
		}
		if m := d.Masters[i].St; !m.Up {
			way := "↓"
			if i < p.offset {
				way = "↑"
			}
			hidden = append(hidden, d.Masters[i].Label+" "+string(m.State())+" "+way)
		}
	}
	if len(hidden) > 0 {
		t += " · " + strings.Join(hidden, ", ")
	}
	return t
}

// row renders one master, w cells wide, after its cursor cell; faults (demo mode) lead its notes, in the error
// style when bad. A master with no figures to show (down, or never answered) has its note, its own error and
// the next step, right after its state, in place of them. It returns the row and the lines of the note that
// did not fit on it, wrapped for the lines under the row, when whole asks for it (the note then breaks at a
// space on the row; otherwise the row shows as much of it as fits).
func (p *MastersPanel) row(m *kit.MasterRow, c masterCols, cursor, faults string, bad bool, w int, whole bool) (string, []string) {
	st, s := p.Shared.St, m.St
	var b strings.Builder
	b.WriteString(cursor)
	b.WriteString(st.Text.Muted.Render(kit.Fit(m.Label, 3)) + " ")
	b.WriteString(st.Name(kit.FitAddr(m.Addr, c.addr), st.Text.Normal) + " ")
	b.WriteString(p.stateCell(s, c.status) + " ")
	if figureless(s) {
		note, more := p.notes(m, w-ansi.StringWidth(b.String()), faults, bad, w-noteIndent, whole)
		return b.String() + note, more
	}
	val := st.Text.Normal // a master that did not answer keeps its last values, greyed
	if !s.Up {
		val = st.Cell.Unknown
	}
	rtt := "-"
	if s.Up {
		rtt = kit.Latency(s.RTT)
	}
	b.WriteString(val.Render(kit.FitLeft(rtt, c.rtt)) + " ")
	if c.clock > 0 {
		clock := "?"
		if s.ClockKnown {
			clock = vocab.Offset(s.ClockOffset, s.ClockUncertainty)
		}
		b.WriteString(val.Render(kit.FitLeft(clock, c.clock)) + " ")
	}
	if c.drift > 0 {
		drift := "?"
		if s.DriftKnown {
			drift = vocab.DriftText(s.DriftPPM, s.DriftUncertPPM)
		}
		b.WriteString(val.Render(kit.FitLeft(drift, c.drift)) + " ")
	}
	if c.uptime > 0 {
		uptime := "?"
		if s.Uptime >= 0 {
			uptime = vocab.ShortDuration(s.Uptime)
		}
		b.WriteString(val.Render(kit.FitLeft(uptime, c.uptime)) + " ")
	}
	if c.role > 0 {
		role := m.Role
		if role == "" {
			role = "?"
		}
		b.WriteString(st.Name(kit.Fit(role, c.role), val) + " ")
	}
	b.WriteString(val.Render(kit.FitLeft(kit.Thousands(s.Keys), c.keys)) + " ")
	if c.refresh > 0 {
		b.WriteString(p.refreshCell(s, c.refresh, val) + " ")
	}
	if c.scan > 0 {
		b.WriteString(val.Render(kit.FitLeft(sweepCell(s.Sweep, p.Shared.Now()), c.scan)) + " ")
	}
	var more []string
	if c.notes > 0 {
		var note string
		note, more = p.notes(m, c.notes, faults, bad, w-noteIndent, whole)
		b.WriteString(note)
	}
	return b.String(), more
}

// figureless reports whether a master has no figures to show: declared down, or never answered. Its row
// gives their room to its error.
func figureless(s *monitor.MasterStatus) bool { return !s.Up && (s.Down || s.LastAnswer.IsZero()) }

// stateCell is a master's state (monitor.MasterStatus.State), w cells wide: up, down, silent (it missed a
// poll: its last values stay, greyed, until it answers or is declared down) or dup.
func (p *MastersPanel) stateCell(s *monitor.MasterStatus, w int) string {
	st := p.Shared.St
	style := st.Text.OK
	switch s.State() {
	case monitor.MasterDown, monitor.MasterDuplicate:
		style = st.Text.Bad
	case monitor.MasterSilent:
		style = st.Level[monitor.SeverityWarning]
	}
	return style.Render(kit.Fit(string(s.State()), w))
}

// notes is a master's note cell, room cells wide at most: its faults (demo mode), in the error style when
// bad, then its error when it did not answer (with the next step, where the error has a usual fix), or its
// warnings. It returns the cell, cut with "…" when the note is longer, and, when whole asks for them, the
// note's lines that did not fit, wrapped to rest cells (a master's error is shown whole under its row while it
// is selected).
func (p *MastersPanel) notes(m *kit.MasterRow, room int, faults string, bad bool, rest int, whole bool) (string, []string) {
	st := p.Shared.St
	note, noteStyle := p.noteText(m), p.noteStyle(m)
	var b strings.Builder
	if faults != "" {
		style := st.Level[monitor.SeverityWarning]
		if bad {
			style = st.Text.Bad
		}
		faults = kit.Fit(faults, min(ansi.StringWidth(faults), room))
		b.WriteString(style.Render(faults))
		room -= ansi.StringWidth(faults)
		if note != "" && room > 3 {
			b.WriteString(st.Text.Muted.Render(" · "))
			room -= 3
		} else {
			room = 0
		}
	}
	if note == "" || room <= 0 {
		return b.String(), nil
	}
	if m.St.Up || !whole { // cut to the cell: warnings, and an error of a master not selected
		b.WriteString(st.Name(kit.Fit(note, room), noteStyle))
		return b.String(), nil
	}
	lines := kit.WrapWidths(note, room, rest)
	if len(lines) > 1 { // the row says that it goes on: room for " …"
		lines = kit.WrapWidths(note, room-2, rest)
	}
	first := lines[0]
	if len(lines) > 1 {
		first += " …"
	}
	b.WriteString(st.Name(first, noteStyle))
	return b.String(), lines[1:]
}

// noteText is a master's note: its error while it does not answer, else its warnings; sanitized.
func (p *MastersPanel) noteText(m *kit.MasterRow) string {
	if !m.St.Up {
		return m.Err
	}
	return m.Warnings
}

// noteStyle is the style of a master's note: an error's, or a warning's.
func (p *MastersPanel) noteStyle(m *kit.MasterRow) kit.Paint {
	if !m.St.Up {
		return p.Shared.St.Text.Bad
	}
	return p.Shared.St.Level[monitor.SeverityWarning]
}

// NoteWant is how many lines under its row the selected master's note needs at width w (the panel's),
// at most maxNoteLines: the layout gives them when it has room.
func (p *MastersPanel) NoteWant(w int) int {
	d := p.Shared.Data
	if d == nil || p.cursor >= len(d.Masters) || d.Masters[p.cursor].St.Up {
		return 0
	}
	m := &d.Masters[p.cursor]
	faults, bad := "", false
	if p.cursor < len(p.faults) {
		faults, bad = kit.FaultText(&p.faults[p.cursor], p.faultsAt, p.Shared.Now())
	}
	_, more := p.row(m, masterColumns(w-2, p.addrNeed(), p.demo), "  ", faults, bad, w-2, true)
	return min(len(more), maxNoteLines)
}

// cutNote is the lines of a note under its master's row: at most n of more, indented under the address and
// padded to w cells after it, the last ending in "…" when some are left out.
func cutNote(more []string, n, w int, st *kit.Styles, style kit.Paint) []string {
	if n <= 0 || len(more) == 0 {
		return nil
	}
	lines := kit.CutLines(more, n, w)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Repeat(" ", noteIndent) + style.Render(l)
	}
	return out
}

// sweepCell is a master's discovery progress in a few cells: how far the first sweep has got ("41%"), then
// how long ago the last full sweep ended ("3s"): locks set since may not be found yet.
func sweepCell(w monitor.Sweep, now time.Time) string {
	switch {
	case w.Completed == 0 && w.Total > 0:
		return fmt.Sprintf("%d%%", min(99, w.Scanned*100/w.Total))
	case w.Completed == 0:
		return "…"
	}
	return vocab.ShortDuration(now.Sub(w.LastCompleted))
}
