package ui

import (
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
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
// without quorum (trs, oldest first) over [from, to] on w cells; the time before watched is blind.
func newTimeline(ivs []monitor.Interval, trs []monitor.Trouble, from, to, watched time.Time, w int) *timeline {
	t := &timeline{cells: make([]rune, w), letter: map[string]rune{}, from: from, to: to}
	for _, iv := range ivs {
		if _, ok := t.letter[iv.Token]; !ok {
			t.letter[iv.Token] = rune(holderLetters[len(t.order)%len(holderLetters)])
			t.order = append(t.order, iv.Token)
		}
	}
	cell := to.Sub(from) / time.Duration(max(w, 1))
	k := 0
	for i := range t.cells {
		c0, c1 := from.Add(time.Duration(i)*cell), from.Add(time.Duration(i+1)*cell)
		for k < len(ivs) && ivs[k].Ended != monitor.EndOpen && !ivs[k].End.After(c0) {
			k++ // ended before this cell: never needed again
		}
		var before *monitor.Interval
		if k > 0 {
			before = &ivs[k-1]
		}
		for len(trs) > 0 && !trs[0].End.IsZero() && !trs[0].End.After(c0) {
			trs = trs[1:] // ended before this cell
		}
		split := len(trs) > 0 && trs[0].Start.Before(c1)
		t.cells[i] = t.cellAt(before, ivs[k:], c0, c1, watched, split)
	}
	return t
}

// cellAt is the glyph of the cell [c0, c1): several holders beginning within it, the holder that held it half
// or more, several that held it half or more between them, trouble (split, a span of trs within it, or a key
// that outlived its quorum), free, or blind before the dashboard watched. ivs start at the first interval that
// ends within or after the cell; before is the one before them (nil: none).
func (t *timeline) cellAt(before *monitor.Interval, ivs []monitor.Interval, c0, c1, watched time.Time, split bool) rune {
	if !c1.After(watched) {
		return tlBlind
	}
	began, best, total, bestToken := 0, time.Duration(0), time.Duration(0), ""
	troubled := split || before != nil && troubleIn(*before, c0)
	for _, iv := range ivs {
		if !iv.Start.Before(c1) {
			break
		}
		end := c1
		if iv.Ended != monitor.EndOpen && iv.End.Before(c1) {
			end = iv.End
		}
		if !iv.Start.Before(c0) {
			began++
		}
		held := end.Sub(maxTime(iv.Start, c0))
		total += held
		if held > best {
			best, bestToken = held, iv.Token
		}
		troubled = troubled || troubleIn(iv, c0)
	}
	switch {
	case began >= 3:
		return tlBusy
	case best*2 >= c1.Sub(c0):
		return t.letter[bestToken]
	case total*2 >= c1.Sub(c0):
		return tlBusy
	case troubled:
		return tlTrouble
	}
	return tlFree
}

// troubleIn reports whether iv ended with its quorum lost while its key lived on past c0 (until Gone, or on).
func troubleIn(iv monitor.Interval, c0 time.Time) bool {
	return iv.Ended == monitor.EndQuorumLost && (iv.Gone.IsZero() || iv.Gone.After(c0))
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// strip renders the cells, each holder's letter in its colour.
func (t *timeline) strip(st *styles) string {
	palette := []paint{st.cell.holder, st.text.you, st.cell.other, st.state.partial, st.level[levelInfo], st.state.unconfirmed}
	var b strings.Builder
	for _, r := range t.cells {
		switch r {
		case tlFree, tlBlind:
			b.WriteString(st.cell.absent.Render(string(r)))
		case tlBusy:
			b.WriteString(st.text.normal.Render(string(r)))
		case tlTrouble:
			b.WriteString(st.text.bad.Render(string(r)))
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
		label := "|-" + dur(span-time.Duration(third)*span/3)
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
