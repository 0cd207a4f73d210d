package vocab

// Counts and durations for people, one way for the whole program: the monitor's warnings and the dashboard's
// titles say "1 master", "3 masters" and "100,000 keys" alike.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Thousands writes n with commas between groups of three digits: 100,000.
func Thousands[N ~int | ~int64](n N) string {
	if n < 0 {
		return "-" + Thousands(-int64(n))
	}
	s := strconv.FormatInt(int64(n), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count writes n and the noun, with commas between groups of three digits and an s when n is not 1: "1 key",
// "0 polls", "12,000 keys". It is the one rule for a count in words: a noun of several words takes the s at
// its end ("2 more errors").
func Count[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Thousands(n) + " " + noun + "s"
}

// ShortDuration writes a duration rounded to what matters, for sentences and table cells: 850ms, 8.2s, 42s,
// 12m05s, 3h04m, 5d.
func ShortDuration(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	switch {
	case d < time.Second:
		return neg + strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < 10*time.Second:
		return neg + fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return neg + fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return neg + fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 100*time.Hour:
		return neg + fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return neg + fmt.Sprintf("%dd", int(d.Hours()/24))
}

// ExactDuration writes a duration exactly, in ShortDuration's words, for limits and values given: 24h, 1h30m,
// 1h00m05s, 1m30s, 2.5s, 100ms, 1.5ms; a unit of zero at the end is left out, so 24h reads "24h", not
// 24h0m0s.
func ExactDuration(d time.Duration) string {
	if d < 0 && d != math.MinInt64 { // -d of the most negative duration stays negative: d.String() writes it
		return "-" + ExactDuration(-d)
	}
	if d < time.Second {
		return d.String() // 100ms, 1.5ms, 250µs, 0s
	}
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 || h > 0 && s > 0 {
		if h > 0 {
			fmt.Fprintf(&b, "%02dm", m)
		} else {
			fmt.Fprintf(&b, "%dm", m)
		}
	}
	if s > 0 {
		secs := strconv.FormatFloat(s.Seconds(), 'f', -1, 64)
		if (h > 0 || m > 0) && s < 10*time.Second {
			secs = "0" + secs
		}
		b.WriteString(secs + "s")
	}
	return b.String()
}
