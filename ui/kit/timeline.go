package kit

import (
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Timeline glyphs: a holder's cells show its letter; these show the rest.
const (
	TlFree    = '·' // nobody held it
	TlBusy    = '≡' // several holders began within the cell: too many to letter
	TlTrouble = '!' // split or without quorum: its last holder's key outlived its quorum, or two tokens and none on a quorum
	tlBlind   = ' ' // before the dashboard watched
)

// HolderLetters name the holders on the strip, in the order they first appear in the window, cycling.
const HolderLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Timeline is a lock's holders over a period laid on a strip of cells, with the letter of each holder.
type Timeline struct {
	Cells  []rune
	Letter map[string]rune // by raw token
	Order  []string        // raw tokens, by first appearance
	from   time.Time
	to     time.Time
}

// NewTimeline lays ivs (oldest first, the last perhaps open) and the spans in which the lock was split or
// without quorum (trs, oldest first) over [from, to] on w cells (monitor.LayStrip); the time before watched is
// blind.
func NewTimeline(ivs []monitor.Interval, trs []monitor.Trouble, from, to, watched time.Time, w int) *Timeline {
	t := &Timeline{Cells: make([]rune, w), Letter: map[string]rune{}, from: from, to: to}
	for _, iv := range ivs {
		if _, ok := t.Letter[iv.Token]; !ok {
			t.Letter[iv.Token] = rune(HolderLetters[len(t.Order)%len(HolderLetters)])
			t.Order = append(t.Order, iv.Token)
		}
	}
	glyphs := [...]rune{monitor.StripBlind: tlBlind, monitor.StripFree: TlFree, monitor.StripBusy: TlBusy, monitor.StripTrouble: TlTrouble}
	for i, c := range monitor.LayStrip(ivs, trs, from, to, watched, w) {
		t.Cells[i] = glyphs[c.Kind]
		if c.Kind == monitor.StripHeld {
			t.Cells[i] = t.Letter[c.Token]
		}
	}
	return t
}

// Strip renders the cells, each holder's letter in its colour.
func (t *Timeline) Strip(st *Styles) string {
	palette := []Paint{st.Cell.Holder, st.Text.You, st.Cell.Other, st.State.Partial, st.Level[monitor.SeverityInfo], st.State.Unconfirmed}
	var b strings.Builder
	for _, r := range t.Cells {
		switch r {
		case TlFree, tlBlind:
			b.WriteString(st.Cell.Absent.Render(string(r)))
		case TlBusy:
			b.WriteString(st.Text.Normal.Render(string(r)))
		case TlTrouble:
			b.WriteString(st.Text.Bad.Render(string(r)))
		default:
			b.WriteString(palette[strings.IndexRune(HolderLetters, r)%len(palette)].Render(string(r)))
		}
	}
	return b.String()
}

// Axis is the time axis under the strip: how long ago at its start, a third and two thirds in, and "now".
func (t *Timeline) Axis() string {
	w := len(t.Cells)
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
		label := "|-" + vocab.ShortDuration(span-time.Duration(third)*span/3)
		if at+len(label) < w-4 {
			put(at, label)
		}
	}
	return string(line)
}

// Legend names the holders of the strip's letters, the latest last, as many as fit in w cells, with their
// short tokens (sanitized).
func (t *Timeline) Legend(w int) string {
	var parts []string
	used := 0
	for k := len(t.Order) - 1; k >= 0; k-- {
		p := string(t.Letter[t.Order[k]]) + " " + ShortTokenText(t.Order[k])
		if used+len(p)+2 > w {
			break
		}
		parts = append([]string{p}, parts...)
		used += len(p) + 2
	}
	return strings.Join(parts, "  ")
}

// ShortTokenText is a raw token as the timeline names it: sanitized, its first characters.
func ShortTokenText(token string) string {
	return strings.TrimRight(Fit(Sanitize(token, NameCap), ShortToken), " ")
}
