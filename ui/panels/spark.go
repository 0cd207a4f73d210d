package panels

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// sparkCells is how many cells the locks panel's sparkline column has: the parts of the window it counts.
const sparkCells = 8

// sparkLevels are the sparkline's glyphs, from one handover to the most in a part of the row's window.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline renders a lock's handovers by part of the window (monitor.Handovers): blank where the monitor did
// not watch yet, · where nobody began a tenure, then ▁ to █ scaled to the row's busiest part.
func sparkline(counts []int) string {
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	var b strings.Builder
	for _, n := range counts {
		switch {
		case n == monitor.NotWatched:
			b.WriteRune(' ')
		case n == 0:
			b.WriteRune('·')
		default:
			b.WriteRune(sparkLevels[(n*len(sparkLevels)-1)/most])
		}
	}
	return b.String()
}

// toggleSparkline shows or hides the sparkline column, and says so.
func (p *LocksPanel) toggleSparkline() tea.Cmd {
	p.spark = !p.spark
	switch {
	case !p.spark:
		p.Shared.TellStatus(monitor.SeverityInfo, "handovers sparkline hidden")
	case lockColumns(p.W-2, p.masters(), 0, 0, 0, true).spark == 0:
		p.Shared.TellStatus(monitor.SeverityInfo, "sparkline on: the locks panel is too narrow")
	default:
		p.Shared.TellStatus(monitor.SeverityInfo, "handovers sparkline shown: "+kit.Thousands(sparkCells)+" parts of the window")
	}
	return nil
}

// masters is how many masters the panel's rows have cells for.
func (p *LocksPanel) masters() int {
	if p.Shared.Data == nil {
		return 0
	}
	return len(p.Shared.Data.Masters)
}
