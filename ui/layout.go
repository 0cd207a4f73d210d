package ui

import "github.com/redlock-tui/redlock-tui/ui/kit"

// rect is an area of the screen: its top-left cell and its size in cells.
type rect struct{ x, y, w, h int }

// contains reports whether the cell at column x, row y is inside r.
func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// layoutInput is what the geometry depends on: the screen's size and what is on it.
type layoutInput struct {
	w, h      int
	masters   int  // masters in the snapshot (1 before the first)
	note      int  // lines the selected master's note asks for under its row (its error's rest)
	warnings  int  // the monitor's current warnings
	demo      bool // demo mode: a line under the header
	violation int  // the lines the demo's violation banner asks for (0: it is not up)
	story     int  // the lines a stepped demo scenario's story box asks for (0: none is up)
	logFull   bool // the event log fills the body
	modal     bool // a modal is open: it needs the full layout's room
}

// layout is the screen's geometry for a size and a snapshot, computed in one place (arrange) for View, which
// sizes and stacks the parts by it, and for the mouse, which finds the panel under the pointer in it.
type layout struct {
	tooSmall             bool // below the panels' minimum and no compact view: only the request for a larger window
	compact              bool // below the panels' minimum: the compact view (compactView)
	demoBarH, violationH int  // demo mode's line under the header; the violation banner
	storyH               int  // a stepped scenario's story box, under the demo line
	bannerH, footerH     int
	bannerMore           int  // warnings not shown in the banner
	noteH                int  // lines under the selected master for the rest of its note, within the masters panel
	logFull              bool // the event log fills the body in place of the panels
	// body is the area between the banners and the footer: the panels, the full help, a drill-down view.
	body rect
	// panels are where the focusable panels sit when the log does not fill the body; the ours and log
	// panels have no height when there is no room for them.
	panels [kit.PanelCount]rect
	detail rect // beside the locks on a wide screen; no width otherwise
}

// arrange computes the layout: below the minimum size, none (the compact view, down to its own minimum, with
// no modal open and the log not filling the body); otherwise the header, the demo line and the banners at the
// top, the footer at the bottom, and the panels sharing the rest, the masters first.
func arrange(in layoutInput) layout {
	w, h := in.w, in.h
	l := layout{logFull: in.logFull}
	if w < minWidth || h < minHeight {
		l.compact = w >= compactWidth && h >= compactHeight && !in.modal && !in.logFull
		l.tooSmall = !l.compact
	}
	if l.tooSmall || l.compact { // no panels; the width is kept where it was
		l.body = rect{0, 0, w, 0}
		l.panels[kit.FocusMasters] = l.body
		return l
	}
	l.bannerH = min(in.warnings, 3)
	if in.demo {
		l.demoBarH = 1
		l.violationH = in.violation
		l.storyH = in.story
	}
	l.footerH = 1
	if h >= 24 {
		l.footerH = 2
	}
	mastersH := min(in.masters, max(6, h/4)) + 3 // six masters' rows; more on a tall screen
	l.noteH = in.note
	rest := h - 1 - l.demoBarH - l.storyH - l.violationH - l.bannerH - l.footerH - mastersH - l.noteH
	// Short of room for the locks, the selected master's note, the violation's lines beyond three, the masters,
	// the banners, the violation and a stepped story's box give up lines, in that order, down to what each
	// cannot do without.
	for _, part := range []struct {
		h     *int
		least int
	}{{&l.noteH, 0}, {&l.violationH, 3}, {&mastersH, 4}, {&l.bannerH, 1}, {&l.violationH, 1}, {&l.storyH, 2}} {
		for rest < 6 && *part.h > part.least {
			*part.h--
			rest++
		}
	}
	l.bannerMore = in.warnings - l.bannerH
	minBottom := 13 // room for the locks row before our locks and the log get a row
	if in.demo {
		minBottom = 11 // the demo's log is half the show
	}
	// The extras (the note's lines, the violation's beyond three) give way to the row of our locks and the log
	// when their lines are what it lacks.
	if extra := l.noteH + max(l.violationH-3, 0); rest < minBottom && rest+extra >= minBottom {
		for _, part := range []struct {
			h     *int
			least int
		}{{&l.noteH, 0}, {&l.violationH, 3}} {
			for rest < minBottom && *part.h > part.least {
				*part.h--
				rest++
			}
		}
	}
	bottomH := 0
	if rest >= minBottom {
		bottomH = min(max(rest/3, 5), 12)
	}
	midH := rest - bottomH
	detailW := 0
	if w >= wideWidth {
		detailW = min(max(w/3, 40), 60)
	}
	oursW := w / 2
	if in.demo { // the demo's events are the story: the log gets more room
		oursW = w / 3
	}
	mastersH += l.noteH
	top := 1 + l.demoBarH + l.storyH + l.violationH + l.bannerH
	l.body = rect{0, top, w, mastersH + midH + bottomH}
	l.panels[kit.FocusMasters] = rect{0, top, w, mastersH}
	l.panels[kit.FocusLocks] = rect{0, top + mastersH, w - detailW, midH}
	l.detail = rect{w - detailW, top + mastersH, detailW, midH}
	l.panels[kit.FocusOurs] = rect{0, top + mastersH + midH, oursW, bottomH}
	l.panels[kit.FocusLog] = rect{oursW, top + mastersH + midH, w - oursW, bottomH}
	return l
}

// size is the size panel p is given: the whole body for the log when it fills it.
func (l layout) size(p kit.PanelID) (w, h int) {
	if p == kit.FocusLog && l.logFull {
		return l.body.w, l.body.h
	}
	return l.panels[p].w, l.panels[p].h
}

// visible reports whether panel p is on screen, so that it can have the focus.
func (l layout) visible(p kit.PanelID) bool {
	switch p {
	case kit.FocusOurs:
		return l.panels[kit.FocusOurs].h > 0 && !l.logFull
	case kit.FocusLog:
		return l.panels[kit.FocusLog].h > 0 || l.logFull
	}
	return !l.logFull
}

// panelAt returns the panel under the cell at column x, row y, and the row within it; false over anything else
// (the header, the banners, the detail panel, the footer).
func (l layout) panelAt(x, y int) (kit.PanelID, int, bool) {
	if l.tooSmall || l.compact {
		return 0, 0, false
	}
	if l.logFull {
		return kit.FocusLog, y - l.body.y, l.body.contains(x, y)
	}
	for p, r := range l.panels {
		if r.contains(x, y) {
			return kit.PanelID(p), y - r.y, true
		}
	}
	return 0, 0, false
}

// Screen size limits: below the minimum the panels give way to the compact view (the header, the worst
// warning, the locks in trouble), and below the compact view's minimum the dashboard asks for a larger window.
const (
	minWidth      = 64
	minHeight     = 16
	compactWidth  = 40
	compactHeight = 12
	wideWidth     = 110 // from this width the detail panel sits beside the locks
)
