package panels

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// OursPanel lists the locks this dashboard holds: validity countdown, auto-extension, extensions used and the
// per-master outcome of the last round. The lock commands (LockOps) keep the locks and tell the panel when
// they change; the panel keeps the cursor.
type OursPanel struct {
	kit.KeyTable
	locks          []*kit.OwnLock // in order of acquisition
	cursor, offset int
	ReadOnly       bool // the dashboard's mode is read-only: no lock can be acquired
	kit.Sized
}

// NewOursPanel returns the panel, with no lock yet.
func NewOursPanel(sh *kit.Shared) *OursPanel {
	p := &OursPanel{KeyTable: kit.KeyTable{Shared: sh}}
	p.Actions = navActions(sh.Keys, func(msg tea.KeyMsg) tea.Cmd {
		p.cursor = MoveCursor(p.Shared.Keys, msg, p.cursor, len(p.locks), p.rows())
		return nil
	})
	return p
}

// rows is how many locks fit inside the border.
func (p *OursPanel) rows() int { return max(p.H-2, 0) }

// Update moves the cursor with the navigation keys and a click, takes in the focus and our locks as they
// change; the rows shown follow the cursor.
func (p *OursPanel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case kit.OursMsg:
		p.locks = msg.Locks
		p.cursor = min(p.cursor, max(len(p.locks)-1, 0))
	case kit.StateMsg:
		p.Focused, p.ReadOnly = msg.Mode.Focus == kit.FocusOurs, msg.Mode.ReadOnly
	case tea.KeyMsg:
		cmd = p.Run(msg)
	case tea.MouseMsg:
		if row := msg.Y - 1; kit.WheelRows(msg) == 0 && row >= 0 { // below the border; the wheel does nothing here
			p.cursor = min(p.offset+row, max(len(p.locks)-1, 0))
		}
	}
	p.scroll()
	return p, cmd
}

// SetSize sets the outer size, and keeps the cursor's row on screen.
func (p *OursPanel) SetSize(w, h int) {
	p.Sized.SetSize(w, h)
	p.scroll()
}

// scroll moves the first row shown so that the cursor's row is on screen.
func (p *OursPanel) scroll() { p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.locks)) }

// Selected returns the lock under the cursor, or nil.
func (p *OursPanel) Selected() *kit.OwnLock {
	if p.cursor < 0 || p.cursor >= len(p.locks) {
		return nil
	}
	return p.locks[p.cursor]
}

// Drill returns the full view of the lock under the cursor, nil when there is none or it is on no master.
func (p *OursPanel) Drill() *drillview.DrillView {
	if o := p.Selected(); o != nil {
		if row := kit.FindRow(p.Shared.Data, o.Lock.Resource()); row != nil {
			return drillview.NewLockDrill(p.Shared, row)
		}
	}
	return nil
}

// unconfirmed counts our locks whose release was not confirmed.
func (p *OursPanel) unconfirmed() int {
	n := 0
	for _, o := range p.locks {
		if o.Unconfirmed != "" {
			n++
		}
	}
	return n
}

// View draws the panel.
func (p *OursPanel) View() string {
	st, focused := p.Shared.St, p.Focused
	auto := 0
	for _, o := range p.locks {
		if o.Keeper != nil {
			auto++
		}
	}
	title := "Our locks " + kit.Thousands(len(p.locks))
	if auto > 0 {
		title += fmt.Sprintf(" · %d auto-extending", auto)
	}
	if n := p.unconfirmed(); n > 0 {
		title += " · " + kit.Plural(n, "release") + " unconfirmed"
	}
	var body []string
	if len(p.locks) == 0 {
		hint := "none: " + p.Shared.Keys.Acquire.Help().Key + " acquires one"
		if p.ReadOnly {
			hint = "none: read-only"
		}
		body = append(body, st.Text.Muted.Render(hint))
	}
	now := p.Shared.Now()
	w := p.W - 2
	for i := p.offset; i < len(p.locks) && len(body) < p.rows(); i++ {
		body = append(body, p.row(p.locks[i], w, now, focused && i == p.cursor))
	}
	if o := p.Selected(); o != nil && len(body) < p.rows() { // room below the rows: how the selected lock was won
		for len(body) < p.rows()-1 {
			body = append(body, "")
		}
		body = append(body, st.Text.Muted.Render(kit.Fit(acquisitionLine(o), w)))
	}
	return st.Box(title, body, p.W, p.H, focused)
}

// row renders one of our locks w cells wide: name, validity bar and countdown, state, auto-extension, extensions
// used, and the last round with one outcome glyph per master.
func (p *OursPanel) row(o *kit.OwnLock, w int, now time.Time, selected bool) string {
	st := p.Shared.St
	cursor := "  "
	if selected {
		cursor = st.Table.Cursor.Render("▸ ")
	}
	v := o.Left(now)
	auto := "-"
	switch {
	case o.AutoBusy:
		auto = "…"
	case o.Keeper != nil:
		auto = "auto"
	}
	stateText, lvl := o.State(now)
	tail := fmt.Sprintf("%-4s ext %-2d %s %s", auto, o.Extensions, o.Last.Op, o.Last.Glyphs())
	nameW := max(w-2-16-12-ansi.StringWidth(tail)-1, 8)
	return cursor + st.Name(kit.Fit(o.Name, nameW), st.Text.Normal) + " " +
		st.ValidityBar(v, o.TTL, 8, false) + " " + st.Text.Normal.Render(kit.FitLeft(vocab.ShortDuration(v), 6)) + " " +
		st.Level[lvl].Render(kit.Fit(stateText, 11)) + " " + st.Text.Muted.Render(tail)
}

// acquisitionLine tells how the lock under the cursor was won, for the panel's last row: when, after how many
// rounds and how long a wait.
func acquisitionLine(o *kit.OwnLock) string {
	return fmt.Sprintf("%s acquired %s %v", o.Name, o.Acquired.Format("15:04:05"), o.Lock.Acquisition())
}
