// Package untrusted holds the one rule for putting text that comes from
// outside (key names, tokens and error texts from masters, other clients'
// values) on a terminal: which characters must not reach it as they are, and
// how they are written instead. The dashboard and the plain-text output both
// use it, so a name is escaped the same way wherever it is shown.
package untrusted

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NeedsEscape reports whether r must not reach a terminal as it is: a
// backslash (so that no escape can be forged), a control (C0, DEL, C1), a
// format character (bidirectional overrides, zero-width characters), a
// separator other than space, an unassigned code point, another invisible
// (default-ignorable) character or a variation selector; and, first in a
// text, a combining mark, which would fuse with what precedes it on screen.
func NeedsEscape(r rune, first bool) bool {
	switch {
	case r == '\\':
		return true
	case !unicode.IsPrint(r):
		return true
	case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return true
	case first && unicode.In(r, unicode.Mn, unicode.Me):
		return true
	}
	return false
}

// EscapeRune writes r as a Go escape: \\, \n, \x1b, \u202e or \U000e0001.
func EscapeRune(r rune) string {
	if r == '\\' {
		return `\\`
	}
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1]
}

// EscapeByte writes an invalid UTF-8 byte: \xff.
func EscapeByte(b byte) string { return fmt.Sprintf(`\x%02x`, b) }

// Escape writes s with every invalid UTF-8 byte and every rune NeedsEscape
// reports written as a Go escape. Text that needs none is returned as it is.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(EscapeByte(s[i]))
		case NeedsEscape(r, i == 0):
			b.WriteString(EscapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	if b.Len() == len(s) && b.String() == s {
		return s
	}
	return b.String()
}
