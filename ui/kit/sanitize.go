package kit

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// mark starts every text that sanitize had to change (escape or cut). The sanitizer escapes the glyph itself
// and backslashes wherever they occur in untrusted text, so a text starting with mark is always one that was
// changed, and an unmarked text never contains a backslash: two look-alike names cannot be confused.
const (
	Mark     = "‽"
	markRune = '‽'
)

// Width caps, in terminal cells, for the kinds of untrusted text the dashboard shows.
const (
	NameCap = 160 // resource names, tokens, addresses, roles
	TextCap = 320 // error texts, event and warning texts
)

// Sanitize is the one function that makes untrusted text (key names, tokens, addresses, error texts from masters
// or from results) safe to put on a terminal. It is called where a snapshot or a result enters the UI model, and
// nowhere else; the raw bytes are kept beside its output for commands.
//
// Invalid UTF-8 bytes become \xNN; C0 controls, DEL, C1 controls, bidirectional overrides, zero-width and other
// invisible (default-ignorable) characters become Go escapes (\x1b, \n, \u202e, \u200b); a combining mark at the
// start is escaped so it cannot fuse with what precedes it on screen; backslashes and the mark glyph are escaped
// so that no escape can be forged. The result is at most limit cells wide (mark included), cut with "…". When anything was escaped
// or cut, the result starts with mark. Printable text that fits is returned unchanged.
func Sanitize(raw string, limit int) string {
	budget := max(limit, 2) - 1 // one cell is kept for the mark
	if plainASCII(raw, budget) {
		return raw
	}
	buf := make([]byte, 0, min(len(raw), 4*budget)+8)
	changed, cut := false, false
	width, fitLen := 0, 0 // fitLen: len(buf) when width was last at most budget-1, room left for "…"
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRuneInString(raw[i:])
		piece, w := raw[i:i+size], 0
		switch {
		case r == utf8.RuneError && size == 1:
			piece, w, changed = untrusted.EscapeByte(raw[i]), 4, true
		case needsEscape(r, i == 0):
			piece, changed = untrusted.EscapeRune(r), true
			w = len(piece)
		default:
			w = ansi.StringWidth(piece)
		}
		if width+w > budget {
			cut = true
			break
		}
		buf = append(buf, piece...)
		width += w
		if width <= budget-1 {
			fitLen = len(buf)
		}
		i += size
	}
	if cut {
		buf = append(buf[:fitLen], "…"...)
		changed = true
	}
	if !changed {
		return raw
	}
	return Mark + string(buf)
}

// plainASCII reports whether s is printable ASCII without backslashes and at most budget cells wide: the common
// case, which sanitize returns as it is without allocating.
func plainASCII(s string, budget int) bool {
	if len(s) > budget {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}

// needsEscape reports whether r must not reach the terminal as it is: the one rule for untrusted text, and
// the mark glyph, so that no text can pass for one that was changed.
func needsEscape(r rune, first bool) bool {
	return r == markRune || untrusted.NeedsEscape(r, first)
}
