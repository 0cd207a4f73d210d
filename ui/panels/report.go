package panels

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/render"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// reportSavedMsg tells where the incident report was written, or why it was not.
type reportSavedMsg struct {
	path string
	err  error
}

// reportName is the file name of a report written at the snapshot's time: redlock-report-20250601-120005.md.
func reportName(s *monitor.Snapshot) string {
	return "redlock-report-" + s.Time.Format("20060102-150405") + ".md"
}

// reportTries bounds the names a save tries: name, then name-2 .. name-<reportTries>.
const reportTries = 100

// createReport creates a new file for a report named after name (an absolute path ending in .md), private (it
// names lock tokens): the name itself, or when a file is there the first free of name-2, name-3, ... It never
// opens an existing file, nor anything through a symbolic link (O_EXCL refuses both).
func createReport(name string) (*os.File, error) {
	base := strings.TrimSuffix(name, ".md")
	for i := 1; i <= reportTries; i++ {
		path := name
		if i > 1 {
			path = fmt.Sprintf("%s-%d.md", base, i)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s and the next %d names are all taken: move some reports away", name, reportTries-1)
}

// saveReport returns the command that writes the Markdown incident report of the snapshot on screen, with the
// locks the filter shows, to a new private file in the working directory (never over an existing one: a save
// in the same second as another gets -2, -3, ...; see createReport).
func (p *LocksPanel) saveReport() tea.Cmd {
	d := p.Shared.Data
	if d == nil {
		p.Shared.TellStatus(monitor.SeverityWarning, "no snapshot yet: nothing to report")
		return nil
	}
	shown := make(map[string]bool, len(p.order))
	for _, i := range p.order {
		shown[d.Locks[i].Lv.Resource] = true
	}
	o := render.ReportOptions{Match: func(l *monitor.LockView) bool { return shown[l.Resource] }}
	if p.query != "" {
		o.Filter = "/" + p.Filter.Text
	}
	snap, name := d.Snap, reportName(&d.Snap)
	return func() tea.Msg {
		path, err := filepath.Abs(name)
		if err != nil {
			return reportSavedMsg{err: err}
		}
		f, err := createReport(path)
		if err != nil {
			return reportSavedMsg{path: path, err: err}
		}
		err = errors.Join(render.WriteReport(f, snap, o), f.Close())
		return reportSavedMsg{path: f.Name(), err: err}
	}
}

// reportSaved says on the status line where the report went, or why it did not.
func (p *LocksPanel) reportSaved(msg reportSavedMsg) {
	if msg.err != nil {
		p.Shared.TellStatus(monitor.SeverityError, fmt.Sprintf("report not written: %v", msg.err))
		return
	}
	p.Shared.TellStatus(monitor.SeverityInfo, "report written to "+kit.Sanitize(msg.path, kit.TextCap))
}
