package monitor

import (
	"fmt"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
)

// Progress describes the sweep in a few words: "41% of 1,000,000 keys" or "12,000 keys".
func (w Sweep) Progress() string {
	if w.Total > 0 {
		return fmt.Sprintf("%d%% of %s keys", min(100, w.Scanned*100/w.Total), textfmt.Thousands(w.Total))
	}
	return textfmt.Thousands(w.Scanned) + " keys"
}

// cellStateNames are the words of the cell states.
var cellStateNames = [...]string{CellUnknown: "unknown", CellAbsent: "absent", CellSeen: "seen"}

// String is the cell state's word, as the JSON writes it: "unknown", "absent" or "seen".
func (c CellState) String() string { return cellStateNames[c] }
