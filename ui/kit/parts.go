package kit

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Part is a piece of a header line; rank says how long it is kept when the line is too wide.
type Part struct {
	Text string
	Rank int // lower is kept longer; 0 always
}

// FitParts joins parts with sep into a line of exactly w cells, leaving out the parts of the highest rank
// first while the line is too wide.
func FitParts(parts []Part, sep string, w int) string {
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.Text
		}
		return strings.Join(texts, sep)
	}
	line := join()
	top := 0
	for _, p := range parts {
		top = max(top, p.Rank)
	}
	for rank := top; rank > 0 && ansi.StringWidth(line) > w; rank-- {
		kept := parts[:0]
		for _, p := range parts {
			if p.Rank != rank {
				kept = append(kept, p)
			}
		}
		parts = kept
		line = join()
	}
	return FitStyled(line, w)
}

// Spinner frames, advanced by the tick while a request runs.
var Spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
