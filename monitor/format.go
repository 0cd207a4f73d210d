package monitor

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
)

// ShortDuration writes a duration rounded to what matters, for sentences and table cells: 850ms, 8.2s, 42s,
// 12m05s, 3h04m, 5d (textfmt.ShortDuration).
func ShortDuration(d time.Duration) string { return textfmt.ShortDuration(d) }

// Latency writes a round trip as people read one: to the hundredth of a millisecond below 10ms, to the
// millisecond below a second, as ShortDuration beyond.
func Latency(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return ShortDuration(d)
}

// ppm writes a clock rate compactly: "350 ppm", or "27.8%" for a clock far off.
func ppm(p float64) string {
	p = math.Abs(p)
	if p >= 10000 {
		return fmt.Sprintf("%.1f%%", p/1e4)
	}
	return fmt.Sprintf("%.0f ppm", p)
}

// aheadOrBehind names the direction of a clock offset's sign.
func aheadOrBehind(sg float64) string {
	if sg < 0 {
		return "behind"
	}
	return "ahead of"
}

// fasterOrSlower names the direction of a drift's sign.
func fasterOrSlower(sg float64) string {
	if sg < 0 {
		return "slower"
	}
	return "faster"
}

// quoteAll quotes every string of ss.
func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
