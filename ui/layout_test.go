package ui

import (
	"testing"

	"github.com/redlock-tui/redlock-tui/ui/kit"
)

func TestLayoutTilesTheBodyAndFindsThePanelUnderThePointer(t *testing.T) {
	for _, in := range []layoutInput{
		{w: 120, h: 40, masters: 3},
		{w: 80, h: 24, masters: 3, warnings: 2},
		{w: 140, h: 44, masters: 5, warnings: 1, demo: true, violation: 3},
		{w: 64, h: 16, masters: 6, warnings: 5},
	} {
		l := arrange(in)
		if l.tooSmall {
			t.Fatalf("%+v: too small", in)
		}
		top := 1 + l.demoBarH + l.violationH + l.bannerH
		if l.body.y != top || l.body.y+l.body.h+l.footerH != in.h {
			t.Errorf("%+v: body %+v does not fill the rows between the banners (%d) and the footer (%d)", in, l.body,
				top, l.footerH)
		}
		ms, lk, ours, lg := l.panels[kit.FocusMasters], l.panels[kit.FocusLocks], l.panels[kit.FocusOurs], l.panels[kit.FocusLog]
		if ms.h+lk.h+ours.h != l.body.h || lk.w+l.detail.w != in.w || ours.h != lg.h || ours.w+lg.w != in.w {
			t.Errorf("%+v: the panels %+v and the detail %+v do not tile the body %+v", in, l.panels, l.detail, l.body)
		}
		for p, r := range l.panels {
			if r.h == 0 {
				continue
			}
			got, row, ok := l.panelAt(r.x+r.w-1, r.y+r.h-1)
			if !ok || got != kit.PanelID(p) || row != r.h-1 {
				t.Errorf("%+v: the bottom-right cell of panel %d is in panel %d row %d (%v)", in, p, got, row, ok)
			}
		}
		if l.detail.w > 0 {
			if _, _, ok := l.panelAt(l.detail.x, l.detail.y); ok {
				t.Errorf("%+v: the detail panel is taken for a focusable panel", in)
			}
		}
		for _, y := range []int{0, in.h - 1} { // the header and the footer
			if p, _, ok := l.panelAt(0, y); ok {
				t.Errorf("%+v: row %d is taken for panel %d", in, y, p)
			}
		}
	}
}

func TestLayoutOfTheFullLogGivesItTheBody(t *testing.T) {
	l := arrange(layoutInput{w: 80, h: 24, masters: 3, logFull: true})
	if w, h := l.size(kit.FocusLog); w != l.body.w || h != l.body.h {
		t.Errorf("the full log is %dx%d, want the body's %dx%d", w, h, l.body.w, l.body.h)
	}
	if p, row, ok := l.panelAt(5, l.body.y+2); !ok || p != kit.FocusLog || row != 2 {
		t.Errorf("a cell of the body is in panel %d row %d (%v), want the log's row 2", p, row, ok)
	}
	if l.visible(kit.FocusMasters) || !l.visible(kit.FocusLog) {
		t.Errorf("with the log full only the log can have the focus")
	}
}

func TestLayoutBelowTheMinimumHasNoPanels(t *testing.T) {
	for _, tc := range []struct {
		in                layoutInput
		compact, tooSmall bool
	}{
		{layoutInput{w: minWidth - 1, h: 30, masters: 3}, true, false},
		{layoutInput{w: 100, h: minHeight - 1, masters: 3}, true, false},
		{layoutInput{w: compactWidth, h: compactHeight, masters: 3}, true, false},
		{layoutInput{w: compactWidth - 1, h: 30, masters: 3}, false, true},
		{layoutInput{w: 100, h: compactHeight - 1, masters: 3}, false, true},
		{layoutInput{w: minWidth - 1, h: 30, masters: 3, modal: true}, false, true},
		{layoutInput{w: minWidth - 1, h: 30, masters: 3, logFull: true}, false, true},
		{layoutInput{w: minWidth, h: minHeight, masters: 3, modal: true}, false, false},
	} {
		l := arrange(tc.in)
		if l.compact != tc.compact || l.tooSmall != tc.tooSmall {
			t.Errorf("%+v: compact %v, too small %v; want %v, %v", tc.in, l.compact, l.tooSmall, tc.compact, tc.tooSmall)
		}
		if _, _, ok := l.panelAt(3, 10); ok && (l.compact || l.tooSmall) {
			t.Errorf("%+v: a panel is found on a screen too small for panels", tc.in)
		}
	}
}
