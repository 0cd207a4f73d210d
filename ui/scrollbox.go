package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// scrollBox is a bordered area whose lines scroll: the full help and the drill-down views. The scrolling is a
// bubbles viewport (offset, paging, mouse wheel), driven by our key bindings rather than its own; the border
// and the position marker in the title are ours, like every other panel's.
type scrollBox struct {
	sh   *shared
	vp   viewport.Model
	w, h int
}

// newScrollBox returns an empty box.
func newScrollBox(sh *shared) *scrollBox {
	vp := viewport.New(0, 0)
	vp.KeyMap = viewport.KeyMap{} // keys come from our KeyMap, in Update
	vp.MouseWheelEnabled = true
	return &scrollBox{sh: sh, vp: vp}
}

// SetSize sets the box's outer size; the content keeps its offset as far as it can.
func (b *scrollBox) SetSize(w, h int) {
	b.w, b.h = w, h
	b.vp.Width, b.vp.Height = max(w-2, 0), max(h-2, 0)
	b.vp.SetYOffset(b.vp.YOffset)
}

// width is the width its lines may use.
func (b *scrollBox) width() int { return max(b.w-2, 0) }

// SetLines replaces the content, keeping the scroll position where it still exists.
func (b *scrollBox) SetLines(lines []string) { b.vp.SetContent(strings.Join(lines, "\n")) }

// Update scrolls with the navigation keys and the mouse wheel, and reports whether msg was one of them.
func (b *scrollBox) Update(msg tea.Msg) bool {
	k := b.sh.keys
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Up):
			b.vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			b.vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			b.vp.PageUp()
		case key.Matches(msg, k.PageDown):
			b.vp.PageDown()
		case key.Matches(msg, k.Top):
			b.vp.GotoTop()
		case key.Matches(msg, k.Bottom):
			b.vp.GotoBottom()
		default:
			return false
		}
		return true
	case tea.MouseMsg:
		b.vp, _ = b.vp.Update(msg) // a viewport returns commands only in its deprecated high-performance mode
		return true
	}
	return false
}

// position is the marker of what is shown: "lines 1-18 of 40 ↓" when the content is taller than the box.
func (b *scrollBox) position() string {
	total, shown := b.vp.TotalLineCount(), b.vp.VisibleLineCount()
	if total <= b.vp.Height {
		return ""
	}
	first := b.vp.YOffset + 1
	s := fmt.Sprintf("lines %d-%d of %d", first, b.vp.YOffset+shown, total)
	switch {
	case b.vp.AtTop():
		s += " ↓"
	case b.vp.AtBottom():
		s += " ↑"
	default:
		s += " ↕"
	}
	return s
}

// View draws the box with title and the position marker.
func (b *scrollBox) View(title string) string {
	if pos := b.position(); pos != "" {
		title += " · " + pos
	}
	var lines []string
	if b.vp.Height > 0 {
		lines = strings.Split(b.vp.View(), "\n")
	}
	return b.sh.st.Box(title, lines, b.w, b.h, true)
}
