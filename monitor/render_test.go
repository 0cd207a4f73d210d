package monitor_test

import (
	"io"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/render"
)

func init() {
	monitor.WriteJSON, monitor.WriteTable, monitor.ContentionAfter = render.WriteJSON, render.WriteTable, render.ContentionAfter
	monitor.WriteReport = func(w io.Writer, s monitor.Snapshot) error { return render.WriteReport(w, s, render.ReportOptions{}) }
}
