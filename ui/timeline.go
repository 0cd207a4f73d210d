package ui

import (
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// Timeline glyphs: a holder's cells show its letter; these show the rest.
const (
	tlFree    = '·' // nobody held it
	tlBusy    = '≡' // several holders began within the cell: too many to letter
	tlTrouble = '!' // split or without quorum: its last holder's key outlived its quorum, or two tokens and none on a quorum
	tlBlind   = ' ' // before the dashboard watched
)

// holderLetters name the holders on the strip, in the order they first appear in the window, cycling.
const holderLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// timeline is a lock's holders over a period laid on a strip of cells, with the letter of each holder.
type timeline struct {
	cells  []rune
	letter map[string]rune // by raw token
	order  []string        // raw tokens, by first appearance
	from   time.Time
	to     time.Time
}

// newTimeline lays ivs (oldest first, the last perhaps open) and the spans in which the lock was split or
// without quorum (trs, oldest first) over [from, to] on w cells (monitor.LayStrip); the time before watched is
// blind.
func newTimeline(ivs []monitor.Interval, trs []monitor.Trouble, from, to, watched time.Time, w int) *timeline {
	t := &timeline{cells: make([]rune, w), letter: map[string]rune{}, from: from, to: to}
	for _, iv := range ivs {
		if _, ok := t.letter[iv.Token]; !ok {
			t.letter[iv.Token] = rune(holderLetters[len(t.order)%len(holderLetters)])
			t.order = append(t.order, iv.Token)
		}
	}
	glyphs := [...]rune{monitor.StripBlind: tlBlind, monitor.StripFree: tlFree, monitor.StripBusy: tlBusy, monitor.StripTrouble: tlTrouble}
	for i, c := range monitor.LayStrip(ivs, trs, from, to, watched, w) {
		t.cells[i] = glyphs[c.Kind]
		if c.Kind == monitor.StripHeld {
			t.cells[i] = t.letter[c.Token]
		}
	}
	return t
}

// strip renders the cells, each holder's letter in its colour.
func (t *timeline) strip(st *kit.Styles) string {
	palette := []kit.Paint{st.Cell.Holder, st.Text.You, st.Cell.Other, st.State.Partial, st.Level[monitor.SeverityInfo], st.State.Unconfirmed}
	var b strings.Builder
	for _, r := range t.cells {
		switch r {
		case tlFree, tlBlind:
			b.WriteString(st.Cell.Absent.Render(string(r)))
		case tlBusy:
			b.WriteString(st.Text.Normal.Render(string(r)))
		case tlTrouble:
			b.WriteString(st.Text.Bad.Render(string(r)))
		default:
			b.WriteString(palette[strings.IndexRune(holderLetters, r)%len(palette)].Render(string(r)))
		}
	}
	return b.String()
}

// axis is the time axis under the strip: how long ago at its start, a third and two thirds in, and "now".
func (t *timeline) axis() string {
	w := len(t.cells)
	line := []rune(strings.Repeat(" ", w))
	put := func(at int, label string) {
		if at >= 0 && at+len(label) <= w {
			copy(line[at:], []rune(label))
		}
	}
	span := t.to.Sub(t.from)
	put(w-3, "now")
	for _, third := range []int{0, 1, 2} {
		at := third * w / 3
		label := "|-" + kit.Dur(span-time.Duration(third)*span/3)
		if at+len(label) < w-4 {
			put(at, label)
		}
	}
	return string(line)
}

// legend names the holders of the strip's letters, the latest last, as many as fit in w cells, with their
// short tokens (sanitized).
func (t *timeline) legend(w int) string {
	var parts []string
	used := 0
	for k := len(t.order) - 1; k >= 0; k-- {
		p := string(t.letter[t.order[k]]) + " " + shortTokenText(t.order[k])
		if used+len(p)+2 > w {
			break
		}
		parts = append([]string{p}, parts...)
		used += len(p) + 2
	}
	return strings.Join(parts, "  ")
}
