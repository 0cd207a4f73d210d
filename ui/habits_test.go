package ui_test

import (
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// lockRows returns the resource names of the locks table's rows, top to bottom.
func lockRows(view string) []string {
	var names []string
	for _, l := range strings.Split(view, "\n") {
		for _, r := range []string{"billing:invoice:42", "cache:warmup", "jobs:nightly-report", "orders:7"} {
			if (strings.Contains(l, "  "+r+" ") || strings.Contains(l, "▸ "+r+" ")) && strings.ContainsAny(l, "≥<") {
				names = append(names, r)
			}
		}
	}
	return names
}

func TestLockFiltersByNameGlobAndHolder(t *testing.T) {
	tests := []struct {
		typed string
		want  []string
	}{
		{"or", []string{"jobs:nightly-report", "orders:7"}},
		{"*:7", []string{"orders:7"}},
		{"b*", []string{"billing:invoice:42"}},
		{"holder:zx9l", []string{"orders:7"}}, // tokB's start, case-insensitive
		{"holder:q3vq", []string{"billing:invoice:42"}},
	}
	for _, tc := range tests {
		t.Run(tc.typed, func(t *testing.T) {
			m := newDashboard(ui.Options{}, 120, 36)
			m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
			m.Update(keyMsg("/"))
			for _, r := range tc.typed {
				m.Update(keyMsg(string(r)))
			}
			m.Update(keyMsg("enter"))
			if got := lockRows(m.View()); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("filter %q shows %q, want %q:\n%s", tc.typed, got, tc.want, m.View())
			}
		})
	}
}

func TestReverseSortAndCopy(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 36)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	m.Update(keyMsg("S"))
	got := lockRows(m.View())
	if len(got) != 4 || got[0] != "orders:7" || got[3] != "billing:invoice:42" {
		t.Fatalf("S does not reverse the resource order: %q\n%s", got, m.View())
	}
	if !strings.Contains(m.View(), "sort resource, reversed") {
		t.Errorf("the title does not say the order is reversed:\n%s", m.View())
	}
	if _, cmd := m.Update(keyMsg("y")); cmd == nil {
		t.Errorf("y on a selected lock issues no copy")
	}

	empty := newDashboard(ui.Options{}, 120, 36)
	empty.Update(ui.SnapshotMsg{Snapshot: snapshotOf(mastersUp(3), nil)})
	if _, cmd := empty.Update(keyMsg("Y")); cmd != nil || !strings.Contains(empty.View(), "copy: select a lock first") {
		t.Errorf("Y without a lock copies something or does not say why not:\n%s", empty.View())
	}
}

func TestLocksPanelShowsItsLegendAndScrollPosition(t *testing.T) {
	m := newDashboard(ui.Options{}, 80, 24)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	if view := m.View(); !strings.Contains(view, "● holder  ○ other token") {
		t.Errorf("no legend in the locks panel's spare row:\n%s", view)
	}
	var locks []monitor.LockView
	for _, r := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		locks = append(locks, lockOf("res:"+r, 2, 0, on(tokA, 5e9), none, none))
	}
	m.Update(ui.SnapshotMsg{Snapshot: snapshotOf(mastersUp(3), nil, locks...)})
	view := m.View()
	if !strings.Contains(view, "Locks 12 · sort resource · 1-") || !strings.Contains(view, "↓") {
		t.Errorf("the title does not say which rows are shown and that more follow:\n%s", view)
	}
	m.Update(keyMsg("G"))
	if view := m.View(); !strings.Contains(view, "-12 ↑") {
		t.Errorf("at the bottom the title does not say the rows end there and more are above:\n%s", view)
	}
}

func TestWideScreensGiveTheHolderRoomBeforePadding(t *testing.T) {
	m := newDashboard(ui.Options{}, 200, 40)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	view := m.View()
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "billing:invoice:42") && strings.Contains(l, "≥") {
			if !strings.Contains(l, tokA) {
				t.Errorf("at 200 columns the holder is still cut: %q", l)
			}
			return
		}
	}
	t.Fatalf("no billing row:\n%s", view)
}
