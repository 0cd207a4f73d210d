package monitor

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
)

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

// Progress describes the sweep in a few words: "41% of 1,000,000 keys" or "12,000 keys".
func (w Sweep) Progress() string {
	if w.Total > 0 {
		return fmt.Sprintf("%d%% of %s keys", min(100, w.Scanned*100/w.Total), textfmt.Thousands(w.Total))
	}
	return textfmt.Thousands(w.Scanned) + " keys"
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
