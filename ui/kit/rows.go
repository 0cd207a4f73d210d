package kit

import (
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// FindRow returns the row of a raw resource in d, or nil.
func FindRow(d *Dashboard, resource string) *LockRow {
	if d == nil {
		return nil
	}
	locks := d.Locks
	lo, hi := 0, len(locks)
	for lo < hi { // rows are sorted by resource, as the monitor sorts them
		mid := (lo + hi) / 2
		if locks[mid].Lv.Resource < resource {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(locks) && locks[lo].Lv.Resource == resource {
		return locks[lo]
	}
	for i := range locks { // a snapshot not sorted by resource
		if locks[i].Lv.Resource == resource {
			return locks[i]
		}
	}
	return nil
}

// wheelStep is how many rows one turn of the mouse wheel moves.
const wheelStep = 3

// WheelRows is how many rows a mouse event scrolls: down for a positive count, none for other buttons.
func WheelRows(msg tea.MouseMsg) int {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return -wheelStep
	case tea.MouseButtonWheelDown:
		return wheelStep
	}
	return 0
}

// CutLines returns the first n of lines, w cells wide at most: when some are cut off, the last holds as much
// of the rest as fits, ending in "…".
func CutLines(lines []string, n, w int) []string {
	if n <= 0 {
		return nil
	}
	if len(lines) <= n {
		return lines
	}
	out := slices.Clone(lines[:n])
	last := out[n-1]
	for _, l := range lines[n:] { // indented continuation lines: one space between words
		last += " " + strings.TrimLeft(l, " ")
	}
	out[n-1] = ansi.Truncate(last, w-1, "") + "…"
	return out
}

// TickMsg drives countdowns, spinners and the refresh of our locks.
type TickMsg struct{}

// TickEvery is how often the tick (TickMsg) comes: countdowns and the progress spinner.
const TickEvery = 250 * time.Millisecond
