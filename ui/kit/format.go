package kit

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Fit cuts plain (unstyled, already sanitized) text to w cells, ending a cut with "…", and pads it with spaces
// to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ascii(s) {
		switch {
		case len(s) == w:
			return s
		case len(s) < w:
			return s + strings.Repeat(" ", w-len(s))
		case w == 1:
			return "…"
		default:
			return s[:w-1] + "…"
		}
	}
	return FitStyled(s, w)
}

// FitAddr fits a master's address (plain, sanitized) into w cells, giving up first what says least: the
// scheme ("redis://" goes, "rediss://" becomes "tls:"), then the middle of the host, never the port; fit's
// padding and "…" otherwise.
func FitAddr(addr string, w int) string {
	if ansi.StringWidth(addr) <= w {
		return Fit(addr, w)
	}
	rest := addr
	tls := ""
	if scheme, after, ok := strings.Cut(addr, "://"); ok {
		rest = after
		if scheme == "rediss" {
			tls = "tls:"
		}
		if _, host, ok := strings.Cut(rest, "@"); ok { // a user in the address: its name is not the master
			rest = host
		}
	}
	if short := tls + rest; ansi.StringWidth(short) <= w {
		return Fit(short, w)
	}
	host, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i > 0 && !strings.Contains(rest[i:], "]") {
		host, port = rest[:i], rest[i:]
	}
	room := w - len(tls) - ansi.StringWidth(port) - 1 // the "…" in the host's middle
	if room < 2 || !ascii(host) {
		return Fit(tls+rest, w)
	}
	head := (room + 1) / 2
	return Fit(tls+host[:head]+"…"+host[len(host)-(room-head):]+port, w)
}

// FitLeft is fit with the text aligned right.
func FitLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := len(s)
	if !ascii(s) {
		sw = ansi.StringWidth(s)
	}
	if sw >= w {
		return Fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// FitStyled cuts or pads a line that may hold escape sequences to exactly w cells.
func FitStyled(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// ascii reports whether s is all ASCII, where one byte is one cell.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Latency formats a round-trip time as the monitor's outputs do: 0.42ms, 12ms, 1.2s.
func Latency(d time.Duration) string { return vocab.Latency(d) }

// BarCells splits a bar of w cells for the fraction f (clamped to 0..1) into filled and empty cells.
func BarCells(f float64, w int) (filled, empty int) {
	if w <= 0 {
		return 0, 0
	}
	f = min(max(f, 0), 1)
	filled = int(f*float64(w) + 0.5)
	if filled == 0 && f > 0 {
		filled = 1
	}
	return filled, w - filled
}

// Window returns the first row to show so that cursor stays within a window of height rows over total rows,
// moving offset as little as possible.
func Window(cursor, offset, height, total int) int {
	if height <= 0 || total <= height {
		return 0
	}
	cursor = min(max(cursor, 0), total-1)
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+height {
		offset = cursor - height + 1
	}
	return min(max(offset, 0), total-height)
}

// Plural writes n and the noun, adding s when n is not 1, as the monitor's warnings do.
func Plural(n int, noun string) string { return vocab.Count(n, noun) }

// Thousands writes n with separators every three digits: 100,000.
func Thousands(n int) string { return vocab.Thousands(n) }

// Wrap wraps text (plain or styled) to lines of at most w cells, breaking at spaces only: a token with hyphens
// (a lock token, a key name, an address) stays whole on its line, so that a copy of it from the screen is the
// token, and a word longer than a line starts one of its own and is cut into lines there. Newlines are kept.
func Wrap(text string, w int) []string { return WrapWidths(text, w, w) }

// WrapWidths is wrap with a first line of first cells and the others of rest cells: for a text that
// continues a row, under it.
func WrapWidths(text string, first, rest int) []string {
	first, rest = max(first, 1), max(rest, 1)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		width := first
		if len(out) > 0 {
			width = rest
		}
		line, lw, started := "", 0, false
		flush := func() {
			out = append(out, line)
			line, lw, started, width = "", 0, false, rest
		}
		for _, word := range strings.Split(para, " ") {
			ww := ansi.StringWidth(word)
			if started && lw+1+ww <= width {
				line, lw = line+" "+word, lw+1+ww
				continue
			}
			if started {
				flush()
			}
			for ww > width { // a word longer than a line: cut into lines of its own
				out = append(out, ansi.Cut(word, 0, width))
				word = ansi.Cut(word, width, ww)
				ww = ansi.StringWidth(word)
				width = rest
			}
			line, lw, started = word, ww, true
		}
		flush()
	}
	return out
}
