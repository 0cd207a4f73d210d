package lockshape

import (
	"strconv"
	"strings"
	"time"
)

// Some clients store no token as a lock's value but a time: the classic SETNX lock its expiry in Unix
// milliseconds, others when they took it. Such a value names no holder. ValueTime tells it, so that the
// screens show it as the time it is ("expires at 15:04:05") and the holder as unknown.

// valueTimeWithin is how far from the read a value may be, as a Unix time, to be taken for one: a lock's
// expiry or acquisition is near its read; a counter or an id that happens to have 10 or 13 digits is not.
const valueTimeWithin = 366 * 24 * time.Hour

// ValueTime reads v, a lock's value, as a Unix time near at (within a year): whole seconds (10 digits, with a
// decimal fraction or not, as Python's time.time() writes it) or milliseconds (13 digits, as Java's and
// JavaScript's clocks give them). It reports false for any other value.
func ValueTime(v string, at time.Time) (time.Time, bool) {
	whole, frac, dotted := strings.Cut(v, ".")
	if !isDigits(whole) || dotted && (!isDigits(frac) || len(frac) > 9) {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var t time.Time
	switch {
	case len(whole) == 10:
		nanos := int64(0)
		if dotted {
			nanos, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		}
		t = time.Unix(n, nanos)
	case len(whole) == 13 && !dotted:
		t = time.UnixMilli(n)
	default:
		return time.Time{}, false
	}
	if d := t.Sub(at); d > valueTimeWithin || d < -valueTimeWithin {
		return time.Time{}, false
	}
	return t, true
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && allIn(s, func(c byte) bool { return '0' <= c && c <= '9' })
}
