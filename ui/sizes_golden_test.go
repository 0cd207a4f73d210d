package ui_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// fleetSnapshot is n masters, the last one down, with a lock held on all the others, one split, one half
// acquired and one held beside another token: with 7 or 12 masters the down one is below the masters panel's
// fold at the smaller sizes, and the lock table has a cell per master.
func fleetSnapshot(n int) monitor.Snapshot {
	s := time.Second
	cells := func(f func(i int) monitor.MasterLock) []monitor.MasterLock {
		out := make([]monitor.MasterLock, n)
		for i := range out {
			out[i] = f(i)
			if i == n-1 {
				out[i] = gone
			}
		}
		return out
	}
	q := n/2 + 1
	held := lockOf("billing:invoice:42", q, 7500*time.Millisecond, cells(func(int) monitor.MasterLock { return on(tokA, 8*s) })...)
	split := lockOf("ledger:settle", q, 0, cells(func(i int) monitor.MasterLock {
		if i%2 == 0 {
			return on(tokA, 4*s)
		}
		return on(tokB, 6*s)
	})...)
	partial := lockOf("cache:warmup", q, 0, cells(func(i int) monitor.MasterLock {
		if i == 0 {
			return on(tokD, 4*s)
		}
		return none
	})...)
	stray := lockOf("orders:7", q, 2100*time.Millisecond, cells(func(i int) monitor.MasterLock {
		if i == 1 {
			return on(tokC, 9*s)
		}
		return on(tokB, 3*s)
	})...)
	down := fmt.Sprintf("10.0.0.%d:6379", n)
	return snapshotOf(mastersUp(n, n-1), []monitor.Warning{{Severity: monitor.SeverityWarning,
		Kind: monitor.WarnMasterDown, Master: down, Text: "down: connection refused"}},
		held, split, partial, stray)
}

// TestEverySizeShowsEveryMaster: at 40x12 (the compact view), 64x16, 80x24 and 120x40, with 3, 7 and 12
// masters, the last one down, the screen says what it cannot show: the masters panel's rows of how many and
// a master out of view that is down; the lock table's cells stay apart or fold under a legend. Goldens keep
// each screen.
func TestEverySizeShowsEveryMaster(t *testing.T) {
	for _, n := range []int{3, 7, 12} {
		for _, size := range [][2]int{{40, 12}, {64, 16}, {80, 24}, {120, 40}} {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%d_masters_%dx%d", n, w, h), func(t *testing.T) {
				m := newDashboard(ui.Options{Locker: idleLocker(t), Title: fmt.Sprintf("%d masters", n)}, w, h)
				m.Update(ui.SnapshotMsg{Snapshot: fleetSnapshot(n)})
				view := m.View()
				checkScreen(t, view, w, h)
				last := fmt.Sprintf("M%d ", n)
				switch {
				case w < 64:
					if !strings.Contains(view, "DEGRADED") || !strings.Contains(view, "LOCKS IN TROUBLE 3 of 4") ||
						!strings.Contains(view, "split") {
						t.Errorf("the compact view lacks the health word or the locks in trouble:\n%s", view)
					}
				case !strings.Contains(view, last+" ") && !strings.Contains(view, fmt.Sprintf("M%d down ↓", n)):
					t.Errorf("M%d, down, is neither on screen nor named as out of view:\n%s", n, view)
				}
				if n >= 10 && strings.Contains(view, "M10M11") {
					t.Errorf("the lock table's master labels run together:\n%s", view)
				}
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// TestARedissMastersPortIsAlwaysShown: a master named by a long rediss:// URL keeps its port on screen at every
// width the panels have (the scheme and the host's middle give way first), and shows whole where there is room.
func TestARedissMastersPortIsAlwaysShown(t *testing.T) {
	s := fleetSnapshot(3)
	addrs := []string{"rediss://127.0.0.1:8123", "rediss://cache-eu-west-1.internal.example.com:8124", "rediss://127.0.0.1:8125"}
	for i := range s.Masters {
		s.Masters[i].Addr = addrs[i]
	}
	for _, w := range []int{64, 80, 100, 120, 200} {
		m := newDashboard(ui.Options{Locker: idleLocker(t)}, w, 30)
		m.Update(ui.SnapshotMsg{Snapshot: s})
		view := m.View()
		checkScreen(t, view, w, 30)
		for _, port := range []string{":8123 ", ":8124 ", ":8125 "} {
			if !strings.Contains(view, port) {
				t.Errorf("at %d columns the port %s is not on screen:\n%s", w, port, view)
			}
		}
		if w >= 200 && !strings.Contains(view, addrs[1]+" ") {
			t.Errorf("at %d columns the long address is not whole:\n%s", w, view)
		}
	}
}

// TestPaletteGoldens keeps the 80x24 screen of seven masters, one down, in 256 colours as the light and the
// dark palette draw it (ui.SetBackground's choices): every colour a figure takes is in the goldens, for review.
// Whether they stand out from the background is the tmux test's (e2e TestThePaletteSuitsTheBackgroundUnderTmux).
func TestPaletteGoldens(t *testing.T) {
	t.Cleanup(func() {
		lipgloss.SetColorProfile(termenv.Ascii)
		lipgloss.SetHasDarkBackground(true)
	})
	for _, bg := range []string{"light", "dark"} {
		t.Run(bg, func(t *testing.T) {
			ui.SetBackground(bg, io.Discard, func(string) string { return "" })
			lipgloss.SetColorProfile(termenv.ANSI256)
			m := ui.New(ui.Options{Keys: uitest.KeyMap(), Locker: idleLocker(t), Title: "7 masters",
				Now: func() time.Time { return testNow }, Clipboard: func(string) {}})
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			m.Update(ui.SnapshotMsg{Snapshot: fleetSnapshot(7)})
			view := m.View()
			if !strings.Contains(view, "\x1b[38;5;") {
				t.Fatalf("no 256-colour sequence in the screen:\n%s", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}
