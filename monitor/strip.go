package monitor

import "time"

// StripKind is what one cell of a lock's timeline shows.
type StripKind uint8

// What a cell of the strip shows.
const (
	StripBlind   StripKind = iota // before the monitor watched
	StripFree                     // nobody held it
	StripHeld                     // one holder held it half the cell or more: StripCell.Token
	StripBusy                     // several holders: three or more began within it, or they held it half between them
	StripTrouble                  // split or without quorum within it, and no holder held it half
)

// StripCell is one cell of a lock's timeline: what it shows, and the holder's token for StripHeld.
type StripCell struct {
	Kind  StripKind
	Token string
}

// LayStrip lays a lock's intervals (ivs, oldest first, the last perhaps open) and the spans in which it was
// split or without quorum (trs, oldest first) over [from, to] on w cells of equal length: the timeline of the
// lock's view. The time before watched is blind.
func LayStrip(ivs []Interval, trs []Trouble, from, to, watched time.Time, w int) []StripCell {
	cells := make([]StripCell, max(w, 0))
	cell := to.Sub(from) / time.Duration(max(w, 1))
	k := 0
	for i := range cells {
		c0, c1 := from.Add(time.Duration(i)*cell), from.Add(time.Duration(i+1)*cell)
		for k < len(ivs) && ivs[k].Ended != EndOpen && !ivs[k].End.After(c0) {
			k++ // ended before this cell: never needed again
		}
		var before *Interval
		if k > 0 {
			before = &ivs[k-1]
		}
		for len(trs) > 0 && !trs[0].End.IsZero() && !trs[0].End.After(c0) {
			trs = trs[1:] // ended before this cell
		}
		split := len(trs) > 0 && trs[0].Start.Before(c1)
		cells[i] = stripCellAt(before, ivs[k:], c0, c1, watched, split)
	}
	return cells
}

// stripCellAt is the cell [c0, c1): several holders beginning within it, the holder that held it half or more,
// several that held it half or more between them, trouble (split, a Trouble span within it, or a key that
// outlived its quorum), free, or blind before the monitor watched. ivs start at the first interval that ends
// within or after the cell; before is the one before them (nil: none).
func stripCellAt(before *Interval, ivs []Interval, c0, c1, watched time.Time, split bool) StripCell {
	if !c1.After(watched) {
		return StripCell{Kind: StripBlind}
	}
	began, best, total, bestToken := 0, time.Duration(0), time.Duration(0), ""
	troubled := split || before != nil && outlivedAt(*before, c0)
	for _, iv := range ivs {
		if !iv.Start.Before(c1) {
			break
		}
		end := c1
		if iv.Ended != EndOpen && iv.End.Before(c1) {
			end = iv.End
		}
		if !iv.Start.Before(c0) {
			began++
		}
		held := end.Sub(laterOf(iv.Start, c0))
		total += held
		if held > best {
			best, bestToken = held, iv.Token
		}
		troubled = troubled || outlivedAt(iv, c0)
	}
	switch {
	case began >= 3:
		return StripCell{Kind: StripBusy}
	case best*2 >= c1.Sub(c0):
		return StripCell{Kind: StripHeld, Token: bestToken}
	case total*2 >= c1.Sub(c0):
		return StripCell{Kind: StripBusy}
	case troubled:
		return StripCell{Kind: StripTrouble}
	}
	return StripCell{Kind: StripFree}
}

// outlivedAt reports whether iv ended with its quorum lost while its key lived on past c0 (until Gone, or on).
func outlivedAt(iv Interval, c0 time.Time) bool {
	return iv.Ended == EndQuorumLost && (iv.Gone.IsZero() || iv.Gone.After(c0))
}

// laterOf returns the later of a and b.
func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
