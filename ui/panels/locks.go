package panels

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// sortMode orders the locks panel.
type sortMode int

// The sort orders, cycled by the Sort key.
const (
	SortResource sortMode = iota // by resource name
	sortValidity                 // soonest to expire first
	sortState                    // trouble first: lost, split, partial, held
	sortChanges                  // most holder changes first
	sortModes
)

// sortNames name the sort orders, in the title and the status line.
var sortNames = [sortModes + 1]string{"resource", "validity", "state", "changes", "heat"}

// LocksPanel is the table of locks: one row per resource with its holder, one cell per master, the quorum
// count, validity, TTL spread, changes and state. It keeps the rows filtered and sorted as indices into the
// snapshot's rows, and renders only the rows on screen, so its cost per frame does not grow with the number of
// locks. Its sort, filter and copy keys act whatever has the focus.
type LocksPanel struct {
	kit.KeyTable
	order          []int          // indices into sh.data.locks, filtered and sorted
	orderOf        []*kit.LockRow // the rows order was built for: a snapshot that shares them needs no rebuild
	cursor, offset int            // cursor and first shown row, as positions in order
	selected       string
	hasSelected    bool // selected holds the raw resource under the cursor, followed across snapshots
	Sort           sortMode
	reverse        bool // the sort order reversed
	Filter         typedText
	query          string // the applied filter, lower case
	spark          bool   // the sparkline column of handovers is on (spark.go)
	hideFree       bool   // free locks (no key, listed for their holders in the window) are left out
	hidden         int    // how many free locks hideFree left out of order
	// The widest name, holder and holders' summary of the rows in order, which size the columns: the widths
	// hold while paging, and change only with the rows listed.
	nameNeed, holderNeed, summaryNeed int
	kit.Sized
}

// NewLocksPanel returns an empty locks panel.
func NewLocksPanel(sh *kit.Shared) *LocksPanel {
	p := &LocksPanel{KeyTable: kit.KeyTable{Shared: sh}}
	k := sh.Keys
	p.Actions = append(navActions(k, p.move),
		kit.Action{Binding: &k.Filter, Do: func(tea.KeyMsg) tea.Cmd {
			p.Shared.Tell(kit.FocusMsg{Panel: kit.FocusLocks}) // the filter takes the keyboard there
			p.Shared.Tell(kit.OpenModalMsg{M: p.Filter.open(p.Shared, kit.FocusLocks)})
			return nil
		}},
		kit.Action{Binding: &k.Cancel, When: func() bool { return p.query != "" }, Do: func(tea.KeyMsg) tea.Cmd {
			p.Filter.Text = ""
			p.setFilter("")
			return nil
		}},
		kit.Action{Binding: &k.Sort, Do: func(tea.KeyMsg) tea.Cmd { p.cycleSort(); return p.sorted() }},
		kit.Action{Binding: &k.Heat, Do: func(tea.KeyMsg) tea.Cmd { p.sortByHeat(); return p.sorted() }},
		kit.Action{Binding: &k.Sparkline, Do: func(tea.KeyMsg) tea.Cmd { return p.toggleSparkline() }},
		kit.Action{Binding: &k.HideFree, Do: func(tea.KeyMsg) tea.Cmd { return p.toggleFree() }},
		kit.Action{Binding: &k.Report, Do: func(tea.KeyMsg) tea.Cmd { return p.saveReport() }},
		kit.Action{Binding: &k.Reverse, Do: func(tea.KeyMsg) tea.Cmd {
			p.reverse = !p.reverse
			p.rebuild()
			return p.sorted()
		}},
		kit.Action{Binding: &k.Copy, Can: func() string { return drillview.Uncopyable(p.SelectedRow(), false) },
			Do: func(tea.KeyMsg) tea.Cmd { return drillview.CopyRow(p.Shared, p.SelectedRow(), false) }},
		kit.Action{Binding: &k.CopyToken, Can: func() string { return drillview.Uncopyable(p.SelectedRow(), true) },
			Do: func(tea.KeyMsg) tea.Cmd { return drillview.CopyRow(p.Shared, p.SelectedRow(), true) }},
	)
	return p
}

// SetSize sets the panel's outer size, keeping the cursor in view.
func (p *LocksPanel) SetSize(w, h int) {
	p.Sized.SetSize(w, h)
	p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.order))
}

// rows is how many lock rows fit below the column header.
func (p *LocksPanel) rows() int { return max(p.H-3, 0) }

// Update applies its keys and the mouse, sorts and filters a new snapshot's rows, applies its filter as it is
// typed, and takes in the focus.
func (p *LocksPanel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return p, p.Run(msg)
	case tea.MouseMsg:
		p.mouse(msg)
	case kit.StateMsg:
		p.Focused = msg.Mode.Focus == kit.FocusLocks
	case kit.DataMsg:
		if d := p.Shared.Data; d == nil || !kit.SameSlice(d.Locks, p.orderOf) || p.Sort == sortHeat { // heat counts a moving minute
			p.rebuild()
		}
	case kit.FieldMsg:
		p.Filter.take(msg, p.setFilter)
	case reportSavedMsg:
		p.reportSaved(msg)
	case kit.PanelKeyMsg:
		return p, p.Run(msg.Key)
	}
	return p, nil
}

// sorted says on the status line how the rows are sorted now.
func (p *LocksPanel) sorted() tea.Cmd {
	p.Shared.TellStatus(monitor.SeverityInfo, "locks sorted by "+p.sortName())
	return nil
}

// move applies a navigation key to the cursor.
func (p *LocksPanel) move(msg tea.KeyMsg) tea.Cmd {
	p.cursor = MoveCursor(p.Shared.Keys, msg, p.cursor, len(p.order), p.rows())
	p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.order))
	p.remember()
	return nil
}

// mouse moves the cursor with the wheel, and selects the lock clicked; a click on the lock already selected
// shows it in full. msg.Y is the row within the panel.
func (p *LocksPanel) mouse(msg tea.MouseMsg) {
	if n := kit.WheelRows(msg); n != 0 {
		p.cursor = min(max(p.cursor+n, 0), max(len(p.order)-1, 0))
		p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.order))
		p.remember()
		return
	}
	row := msg.Y - 2 // the border and the column header
	pos := p.offset + row
	if row < 0 || row >= p.rows() || pos >= len(p.order) {
		return
	}
	if pos == p.cursor {
		p.Shared.Tell(kit.OpenMsg{})
	}
	p.cursor = pos
	p.remember()
}

// Drill returns the full view of the lock under the cursor, nil when there is none.
func (p *LocksPanel) Drill() *drillview.DrillView {
	if row := p.SelectedRow(); row != nil {
		return drillview.NewLockDrill(p.Shared, row)
	}
	return nil
}

// remember records the resource under the cursor, so the cursor stays on it when rows move.
func (p *LocksPanel) remember() {
	if row := p.SelectedRow(); row != nil {
		p.selected, p.hasSelected = row.Lv.Resource, true
	}
}

// SelectedRow returns the row under the cursor, or nil.
func (p *LocksPanel) SelectedRow() *kit.LockRow {
	if p.Shared.Data == nil || p.cursor < 0 || p.cursor >= len(p.order) {
		return nil
	}
	return p.Shared.Data.Locks[p.order[p.cursor]]
}

// sortName names the order: "validity", "validity, reversed".
func (p *LocksPanel) sortName() string {
	if p.reverse {
		return sortNames[p.Sort] + ", reversed"
	}
	return sortNames[p.Sort]
}

// match reports whether a row passes the filter: a case-insensitive substring of the name as shown; a glob
// (*, ?, [...]) matched against the whole name; or, after "holder:", a substring of the holder's token.
func (p *LocksPanel) match(r *kit.LockRow) bool {
	q := p.query
	switch {
	case q == "":
		return true
	case strings.HasPrefix(q, "holder:"):
		return strings.Contains(strings.ToLower(r.Holder), strings.TrimPrefix(q, "holder:"))
	case strings.ContainsAny(q, "*?["):
		for _, name := range r.Names() {
			if ok, err := path.Match(q, strings.ToLower(name)); ok && err == nil {
				return true
			}
		}
		return false
	}
	return strings.Contains(strings.ToLower(r.Label), q)
}

// setFilter applies a filter text (see match).
func (p *LocksPanel) setFilter(q string) {
	p.query = strings.ToLower(q)
	p.rebuild()
}

// cycleSort switches to the next sort order.
func (p *LocksPanel) cycleSort() {
	p.Sort = (p.Sort + 1) % sortModes
	p.rebuild()
}

// rebuild recomputes the filtered, sorted order after a snapshot, a filter or a sort change, and puts the
// cursor back on the selected resource if it is listed. A resource that vanished (expired, filtered out) stays
// selected, so the cursor returns to it when it is listed again; moving the cursor selects another.
func (p *LocksPanel) rebuild() {
	p.order, p.orderOf = p.order[:0], nil
	d := p.Shared.Data
	if d == nil {
		return
	}
	p.orderOf, p.hidden = d.Locks, 0
	p.nameNeed, p.holderNeed, p.summaryNeed = 0, 0, 0
	for _, i := range d.ByName {
		switch {
		case !p.match(d.Locks[i]):
		case p.hideFree && d.Locks[i].Lv.State == monitor.StateFree:
			p.hidden++
		default:
			p.order = append(p.order, i)
			r := d.Locks[i]
			p.nameNeed, p.holderNeed = max(p.nameNeed, r.LabelW), max(p.holderNeed, r.HolderW)
			if r.Holders != nil {
				p.summaryNeed = max(p.summaryNeed, r.HolderW)
			}
		}
	}
	locks := d.Locks
	if p.Sort != SortResource {
		// Sort one integer per row, the key above the row's position in resource order, rather than indices with
		// a comparator that reaches into every row: with 100,000 locks that is several times faster. Equal keys
		// keep resource order.
		byName := slices.Clone(p.order)
		keys := make([]uint64, len(p.order))
		for n, i := range byName {
			lv := locks[i].Lv
			var k int64
			switch p.Sort {
			case sortValidity:
				k = lv.ValidityAt(d.Snap.Time).Milliseconds()
			case sortState:
				k = int64(lv.State.Rank()) // trouble first
			case sortChanges:
				k = -int64(lv.Changes)
			case sortHeat:
				k = -int64(heat(lv, d.Snap.Time))
			}
			k = min(max(k, math.MinInt32), math.MaxInt32)
			keys[n] = uint64(uint32(int32(k))^1<<31)<<32 | uint64(n)
		}
		slices.Sort(keys)
		for n, k := range keys {
			p.order[n] = byName[uint32(k)]
		}
	}
	if p.reverse {
		slices.Reverse(p.order)
	}
	if p.hasSelected {
		for pos, i := range p.order {
			if locks[i].Lv.Resource == p.selected {
				p.cursor = pos
				break
			}
		}
	}
	p.cursor = min(max(p.cursor, 0), max(len(p.order)-1, 0))
	p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.order))
	if !p.hasSelected { // the first rows: select the first one; later, the selection sticks to its resource
		p.remember()
	}
}

// toggleFree hides the free locks, or shows them again, and says so on the status line.
func (p *LocksPanel) toggleFree() tea.Cmd {
	p.hideFree = !p.hideFree
	p.rebuild()
	if p.hideFree {
		p.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("free locks hidden (%s): %s shows them", kit.Thousands(p.hidden), p.Shared.Keys.HideFree.Help().Key))
	} else {
		p.Shared.TellStatus(monitor.SeverityInfo, "free locks shown: nobody holds them, their holders are in the window")
	}
	return nil
}

// lockCols are the widths of the locks table's columns; 0 hides a column.
// lockCols are the widths of the lock table's columns; cell is one master's cell, cells all of them.
type lockCols struct{ name, holder, cell, cells, quorum, bar, validity, spread, changes, spark, state int }

// lockColumns fits the columns for n masters into w cells, dropping the least needed first (the sparkline, when
// on, after the validity bar: it was asked for). Room left over goes to the names up to nameNeed cells, then to
// the holder up to holderNeed, and only then to padding. A master's cell is its glyph and the room its label
// needs beside the next one's ("M9 M10 M11"); when the names would have fewer than foldNames cells, the cells
// fold to their glyphs alone, side by side, under a legend naming the first and last master.
func lockColumns(w, n, nameNeed, holderNeed, summaryNeed int, spark bool) lockCols {
	c := lockCols{holder: 8, cell: 3, quorum: 4, bar: 8, validity: 6, spread: 6, changes: 3, state: 9}
	if n >= 10 {
		c.cell = 4
	}
	c.cells = c.cell * n
	if spark {
		c.spark = sparkCells
	}
	fixed := func() int {
		sum := 2 // cursor
		for _, x := range []int{c.holder, c.cells, c.quorum, c.bar, c.validity, c.spread, c.changes, c.spark, c.state} {
			if x > 0 {
				sum += x + 1
			}
		}
		return sum
	}
	for _, drop := range []*int{&c.changes, &c.spread, &c.bar, &c.spark, &c.holder} {
		if w-fixed() >= 20 {
			break
		}
		*drop = 0
	}
	if w-fixed() < foldNames && n > 1 {
		c.cell, c.cells = 1, n
	}
	c.name = max(w-fixed(), 4)
	if extra := c.name - max(nameNeed, 8); c.holder > 0 && extra > 0 && holderNeed > c.holder {
		grow := min(extra, holderNeed-c.holder)
		c.holder += grow
		c.name -= grow
	}
	// Who holds a lock of several holders ("2 of 3 permits") is words, not a token: read whole before names.
	if grow := min(summaryNeed-c.holder, c.name-16); c.holder > 0 && grow > 0 {
		c.holder += grow
		c.name -= grow
	}
	return c
}

// foldNames is the fewest cells the lock names keep before the masters' cells fold to their glyphs alone.
const foldNames = 12

// cellsLegend names the masters of folded cells, first to last: "M1-M12".
func cellsLegend(n int) string { return fmt.Sprintf("M1-M%d", n) }

// View draws the locks panel: a header and the visible rows only.
func (p *LocksPanel) View() string {
	st, d, focused := p.Shared.St, p.Shared.Data, p.Focused
	title := p.title()
	if d == nil {
		return st.Box(title, nil, p.W, p.H, focused)
	}
	w := p.W - 2
	c := lockColumns(w, len(d.Masters), p.nameNeed, p.holderNeed, p.summaryNeed, p.spark)
	body := make([]string, 0, p.rows()+1)
	body = append(body, st.Table.Head.Render(kit.Fit(p.header(c, d), w)))
	if len(p.order) == 0 {
		msg := "no locks"
		switch {
		case p.query != "":
			msg = "no lock matches the filter"
		case p.hidden > 0:
			msg = fmt.Sprintf("no locks held: %s free hidden (%s shows them)", kit.Thousands(p.hidden), p.Shared.Keys.HideFree.Help().Key)
		}
		body = append(body, st.Text.Muted.Render("  "+msg))
	}
	now := p.Shared.Now()
	for pos := p.offset; pos < len(p.order) && pos < p.offset+p.rows(); pos++ {
		body = append(body, p.row(d.Locks[p.order[pos]], c, d, now, pos == p.cursor, focused))
	}
	if len(body) < p.rows()+1 { // a spare row: the legend, on the panel's last line
		for len(body) < p.rows() {
			body = append(body, "")
		}
		body = append(body, st.Text.Muted.Render(kit.Fit(legend(c), w)))
	}
	return st.Box(title, body, p.W, p.H, focused)
}

// legend explains the table's glyphs and the short columns shown, for the panel's spare row.
func legend(c lockCols) string {
	s := "  ● holder  ○ other token  · no key  ? not read   Q masters≥quorum"
	if c.spread > 0 {
		s += "  SPREAD of expiries"
	}
	if c.changes > 0 {
		s += "  CHG holder changes"
	}
	if c.spark > 0 {
		s += "  HANDOVER handovers over the window"
	}
	return s
}

// title is the panel's title: count, position, sort and filter.
func (p *LocksPanel) title() string {
	t := "Locks"
	if p.Shared.Data != nil {
		t += " " + kit.Thousands(len(p.order))
		if len(p.order) != len(p.Shared.Data.Locks) {
			t += " of " + kit.Thousands(len(p.Shared.Data.Locks))
		}
	}
	t += " · sort " + p.sortName()
	if rows := p.rows(); len(p.order) > rows && rows > 0 { // the scroll position, and which way there is more
		t += fmt.Sprintf(" · %d-%d", p.offset+1, min(p.offset+rows, len(p.order)))
		switch {
		case p.offset == 0:
			t += " ↓"
		case p.offset+rows >= len(p.order):
			t += " ↑"
		default:
			t += " ↕"
		}
	}
	if p.Filter.editing || p.query != "" {
		t += " · filter /" + p.Filter.Text
	}
	if p.hidden > 0 {
		t += " · " + kit.Thousands(p.hidden) + " free hidden"
	}
	return t
}

// header is the column header line.
func (p *LocksPanel) header(c lockCols, d *kit.Dashboard) string {
	var b strings.Builder
	b.WriteString("  " + kit.Fit("RESOURCE", c.name) + " ")
	if c.holder > 0 {
		b.WriteString(kit.Fit("HOLDER", c.holder) + " ")
	}
	if c.cell == 1 {
		b.WriteString(kit.Fit(cellsLegend(len(d.Masters)), c.cells))
	} else {
		for _, m := range d.Masters {
			b.WriteString(kit.Fit(m.Label, c.cell))
		}
	}
	b.WriteString(" " + kit.FitLeft("Q", c.quorum) + " ")
	if c.bar > 0 {
		b.WriteString(kit.Fit("VALIDITY", c.bar) + " " + kit.FitLeft("", c.validity) + " ")
	} else {
		b.WriteString(kit.FitLeft("VALID", c.validity) + " ")
	}
	if c.spread > 0 {
		b.WriteString(kit.FitLeft("SPREAD", c.spread) + " ")
	}
	if c.changes > 0 {
		b.WriteString(kit.FitLeft("CHG", c.changes) + " ")
	}
	if c.spark > 0 {
		b.WriteString(kit.Fit("HANDOVER", c.spark) + " ")
	}
	b.WriteString(kit.Fit("STATE", c.state))
	return b.String()
}

// row renders one lock row.
func (p *LocksPanel) row(r *kit.LockRow, c lockCols, d *kit.Dashboard, now time.Time, selected, focused bool) string {
	st := p.Shared.St
	lv := r.Lv
	sel := selected && focused
	pick := func(p kit.Paint) kit.Paint { return p.On(sel) }
	space := pick(st.Text.Normal).Render(" ")
	normal := st.Text.Normal
	if lv.State == monitor.StateFree { // no key: dim, its figures kept
		normal = st.State.Free
	}
	var b strings.Builder
	gutter := "  "
	if selected {
		gutter = "▸ "
	}
	if heat(lv, d.Snap.Time) >= hotPerMinute {
		gutter = gutter[:len(gutter)-1] + hotMark
	}
	b.WriteString(pick(st.Table.Cursor).Render(gutter))
	b.WriteString(st.Name(kit.Fit(r.Label, c.name), pick(normal)))
	b.WriteString(space)
	if c.holder > 0 {
		switch {
		case lv.Mine && lv.State == monitor.StateHeld:
			b.WriteString(pick(st.Text.You).Render(kit.Fit("you", c.holder)))
		case lv.Holder != "":
			b.WriteString(st.Name(kit.Fit(r.Holder, c.holder), pick(st.Text.Muted)))
		default:
			b.WriteString(pick(st.Text.Muted).Render(kit.Fit("-", c.holder)))
		}
		b.WriteString(space)
	}
	for j, m := range lv.Masters[:min(len(lv.Masters), len(d.Masters))] {
		glyph, s := kit.CellGlyph(st, m, r.PrimaryOn(j), lv.State)
		b.WriteString(pick(s).Render(glyph) + pick(st.Text.Normal).Render(strings.Repeat(" ", c.cell-1)))
	}
	b.WriteString(space)
	q := fmt.Sprintf("%d<%d", lv.Count, d.Snap.Quorum)
	qs := st.Text.Bad
	switch {
	case lv.Count >= d.Snap.Quorum:
		q, qs = fmt.Sprintf("%d≥%d", lv.Count, d.Snap.Quorum), st.Text.OK
	case lv.State == monitor.StateFree: // nobody holds it: no alarm
		qs = normal
	}
	b.WriteString(pick(qs).Render(kit.FitLeft(q, c.quorum)))
	b.WriteString(space)
	v := kit.ValidityAt(lv, now)
	if c.bar > 0 {
		b.WriteString(st.ValidityBar(v, r.Ref, c.bar, sel))
		b.WriteString(space)
	}
	vText := "-"
	if lv.State == monitor.StateHeld {
		vText = vocab.ShortDuration(v)
	}
	b.WriteString(pick(normal).Render(kit.FitLeft(vText, c.validity)))
	b.WriteString(space)
	b.WriteString(figureColumns(lv, c, d, pick(st.Text.Muted), space))
	stateText, stateStyle := kit.StateLabel(st, lv, now)
	b.WriteString(pick(stateStyle).Render(kit.Fit(stateText, c.state)))
	return b.String()
}

// figureColumns renders the optional columns of a lock row's figures that c shows, each followed by space: the
// spread of its expiries, its holder changes, and the sparkline of its handovers.
func figureColumns(lv *monitor.LockView, c lockCols, d *kit.Dashboard, muted kit.Paint, space string) string {
	var b strings.Builder
	if c.spread > 0 {
		spread := "-"
		if lv.Count > 1 {
			spread = vocab.ShortDuration(lv.TTLSpread)
		}
		b.WriteString(muted.Render(kit.FitLeft(spread, c.spread)) + space)
	}
	if c.changes > 0 {
		b.WriteString(muted.Render(kit.FitLeft(fmt.Sprint(lv.Changes), c.changes)) + space)
	}
	if c.spark > 0 {
		b.WriteString(muted.Render(sparkline(d.Snap.Handovers(lv.History, c.spark))) + space)
	}
	return b.String()
}
