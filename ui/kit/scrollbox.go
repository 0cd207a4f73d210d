package kit

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// ScrollBox is a bordered area whose lines scroll: the full help and the drill-down views. The scrolling is a
// bubbles viewport (offset, paging, mouse wheel), driven by our key bindings rather than its own; the border
// and the position marker in the title are ours, like every other panel's.
type ScrollBox struct {
	sh   *Shared
	Vp   viewport.Model
	W, H int
}

// NewScrollBox returns an empty box.
func NewScrollBox(sh *Shared) *ScrollBox {
	vp := viewport.New(0, 0)
	vp.KeyMap = viewport.KeyMap{} // keys come from our KeyMap, in Update
	vp.MouseWheelEnabled = true
	return &ScrollBox{sh: sh, Vp: vp}
}

// SetSize sets the box's outer size; the content keeps its offset as far as it can.
func (b *ScrollBox) SetSize(w, h int) {
	b.W, b.H = w, h
	b.Vp.Width, b.Vp.Height = max(w-2, 0), max(h-2, 0)
	b.Vp.SetYOffset(b.Vp.YOffset)
}

// Width is the width its lines may use.
func (b *ScrollBox) Width() int { return max(b.W-2, 0) }

// SetLines replaces the content, keeping the scroll position where it still exists.
func (b *ScrollBox) SetLines(lines []string) { b.Vp.SetContent(strings.Join(lines, "\n")) }

// Update scrolls with the navigation keys and the mouse wheel, and reports whether msg was one of them.
func (b *ScrollBox) Update(msg tea.Msg) bool {
	k := b.sh.Keys
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Up):
			b.Vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			b.Vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			b.Vp.PageUp()
		case key.Matches(msg, k.PageDown):
			b.Vp.PageDown()
		case key.Matches(msg, k.Top):
			b.Vp.GotoTop()
		case key.Matches(msg, k.Bottom):
			b.Vp.GotoBottom()
		default:
			return false
		}
		return true
	case tea.MouseMsg:
		b.Vp, _ = b.Vp.Update(msg) // a viewport returns commands only in its deprecated high-performance mode
		return true
	}
	return false
}

// position is the marker of what is shown: "lines 1-18 of 40 ↓" when the content is taller than the box.
func (b *ScrollBox) position() string {
	total, shown := b.Vp.TotalLineCount(), b.Vp.VisibleLineCount()
	if total <= b.Vp.Height {
		return ""
	}
	first := b.Vp.YOffset + 1
	s := fmt.Sprintf("lines %d-%d of %d", first, b.Vp.YOffset+shown, total)
	switch {
	case b.Vp.AtTop():
		s += " ↓"
	case b.Vp.AtBottom():
		s += " ↑"
	default:
		s += " ↕"
	}
	return s
}

// View draws the box with title and the position marker.
func (b *ScrollBox) View(title string) string {
	if pos := b.position(); pos != "" {
		title += " · " + pos
	}
	var lines []string
	if b.Vp.Height > 0 {
		lines = strings.Split(b.Vp.View(), "\n")
	}
	return b.sh.St.Box(title, lines, b.W, b.H, true)
}
