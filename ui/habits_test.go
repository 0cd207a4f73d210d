package ui_test

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

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

// TestCopiesOfHostileTextCarryNoControlBytes: a key name or a token is another client's text. Copied as it is,
// a newline in it runs a command when pasted into a shell, and an escape sequence acts on the terminal it is
// pasted into; so the copy keys copy it as the screen shows it, control characters escaped (\n, \x1b, \r),
// and say that they did. A name with nothing to escape is copied as it is.
func TestCopiesOfHostileTextCarryNoControlBytes(t *testing.T) {
	const (
		name      = "evil\nrm -rf ~\n\x1b[2J\rhidden"
		nameSafe  = `evil\nrm -rf ~\n\x1b[2J\rhidden`
		token     = "tok\r\n\x1b[31mred"
		tokenSafe = `tok\r\n\x1b[31mred`
	)
	s := time.Second
	snap := snapshotOf(mastersUp(3), nil, lockOf(name, 2, 5*s, on(token, 6*s), on(token, 6*s), none))
	plain := snapshotOf(mastersUp(3), nil, lockOf("billing:invoice:42", 2, 5*s, on(tokA, 6*s), on(tokA, 6*s), none))
	for _, tc := range []struct {
		what    string
		snap    monitor.Snapshot
		keys    []string
		want    string
		escaped bool // the status line says so
	}{
		{"y: the name", snap, []string{"y"}, nameSafe, true},
		{"Y: the token", snap, []string{"Y"}, tokenSafe, true},
		{"y in the lock's view", snap, []string{"enter", "y"}, nameSafe, true},
		{"Y in the lock's view", snap, []string{"enter", "Y"}, tokenSafe, true},
		{"y: a plain name", plain, []string{"y"}, "billing:invoice:42", false},
	} {
		t.Run(tc.what, func(t *testing.T) {
			var copied []string
			m := newDashboard(ui.Options{Clipboard: func(text string) { copied = append(copied, text) }}, 160, 40)
			m.Update(ui.SnapshotMsg{Snapshot: tc.snap})
			var cmd tea.Cmd
			for _, k := range tc.keys {
				_, cmd = m.Update(keyMsg(k))
			}
			if cmd == nil {
				t.Fatalf("%v issues no copy:\n%s", tc.keys, m.View())
			}
			m.Update(cmd())
			if len(copied) != 1 {
				t.Fatalf("%v copied %q, want one text", tc.keys, copied)
			}
			if strings.IndexFunc(copied[0], func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
				t.Errorf("%v copied control bytes, which act when pasted: %q", tc.keys, copied[0])
			}
			if copied[0] != tc.want {
				t.Errorf("%v copied %q, want it as the screen shows it: %q", tc.keys, copied[0], tc.want)
			}
			if escaped := strings.Contains(m.View(), "escaped as shown"); escaped != tc.escaped {
				t.Errorf("%v: the status line says it was escaped: %v, want %v:\n%s", tc.keys, escaped, tc.escaped, m.View())
			}
		})
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
