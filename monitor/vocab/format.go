// Package vocab holds the words the program writes for counts, durations, clock rates and names, defined once
// for the monitor's own sentences, the renderer (monitor/render), the UI, the metrics and the docs.
package vocab

import (
	"fmt"
	"math"
	"strings"
	"time"
)

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

// Offset writes a clock offset from ours, with its sign, and how far it may be off, as every surface shows
// one (the dashboard, the table, the report): "+1.2ms ±0.35ms". The offset is known no better than to a
// tenth of a millisecond: its uncertainty is half a round trip at least.
func Offset(offset, uncertainty time.Duration) string {
	return fmt.Sprintf("%+.1fms ±%s", float64(offset)/float64(time.Millisecond), Latency(uncertainty))
}

// AheadOrBehind names the direction of a clock offset's sign.
func AheadOrBehind(sg float64) string {
	if sg < 0 {
		return "behind"
	}
	return "ahead of"
}

// FasterOrSlower names the direction of a drift's sign.
func FasterOrSlower(sg float64) string {
	if sg < 0 {
		return "slower"
	}
	return "faster"
}

// Quote embeds a name from outside (a key, a token, a master's setting) in a sentence: between double quotes,
// as it is. The sentence is escaped once, as a whole, where it is shown (untrusted.Escape: the tables, the
// report, the dashboard), so the name must not be escaped here too: %q would show "res\\x1b[2J" where the
// rest of the output shows res\x1b[2J.
func Quote(name string) string { return `"` + name + `"` }

// QuoteAll quotes every name of names, by Quote.
func QuoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = Quote(s)
	}
	return out
}

// DriftText writes a clock rate in a few cells, no more precisely than it is known: "+12ppm"; "+800ppm" for
// 768ppm known to ±300; "±300ppm" when the uncertainty exceeds the rate itself; "+27.8%" for a clock far off
// (a jump).
func DriftText(ppm, uncertainty float64) string {
	if math.Abs(ppm) >= 10000 {
		return fmt.Sprintf("%+.1f%%", ppm/1e4)
	}
	if uncertainty > math.Abs(ppm) {
		step := math.Pow(10, math.Floor(math.Log10(uncertainty)))
		return fmt.Sprintf("±%.0fppm", math.Ceil(uncertainty/step)*step)
	}
	if uncertainty > 1 {
		step := math.Pow(10, math.Floor(math.Log10(uncertainty)))
		ppm = math.Round(ppm/step) * step
	}
	return fmt.Sprintf("%+.0fppm", ppm)
}

// DriftSize writes how far a clock rate is off, without its direction, by the rule of DriftText: "12ppm",
// "800ppm" for 768ppm known to ±300, "27.8%" for a clock far off. A sentence gives the direction in words.
func DriftSize(ppm, uncertainty float64) string {
	return strings.TrimLeft(DriftText(ppm, uncertainty), "+-")
}
