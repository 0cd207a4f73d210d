package ui_test

import (
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/dialogs"
)

// TestQAndEscCloseTheHelpAndEveryViewBeforeQuitting: as in less, man, htop and k9s, q (like esc) closes the full
// help, a drill-down view and the enlarged event log, and only on the main screen does it quit.
func TestQAndEscCloseTheHelpAndEveryViewBeforeQuitting(t *testing.T) {
	views := []struct {
		name  string
		open  []string
		shown string // on screen while the view is open
	}{
		{"the help", []string{"?"}, "Help · ? or esc/q closes"},
		{"a lock's drill-down", []string{"enter"}, "Lock billing:invoice:42 · esc/q back"},
		{"a master's drill-down", []string{"shift+tab", "enter"}, "Master M1 10.0.0.1:6379 · esc/q back"},
		{"the enlarged event log", []string{"E"}, "Events · esc/q back"},
		{"the help over a drill-down", []string{"enter", "?"}, "Help · ? or esc/q closes"},
	}
	for _, closer := range []string{"q", "esc"} {
		for _, v := range views {
			t.Run(closer+" closes "+v.name, func(t *testing.T) {
				d := drive(t, newDashboard(ui.Options{Locker: idleLocker(t)}, 120, 40))
				d.update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
				d.press(v.open...)
				if !strings.Contains(d.m.View(), v.shown) {
					t.Fatalf("%q did not open %s (no %q):\n%s", v.open, v.name, v.shown, d.m.View())
				}
				d.press(closer)
				if view := d.m.View(); d.quit || strings.Contains(view, v.shown) ||
					!strings.Contains(view, "Masters 3/3 up · quorum 2") || !strings.Contains(view, "Locks 4 · sort") {
					t.Fatalf("%s did not close %s back to the main screen (quit: %v):\n%s", closer, v.name, d.quit, view)
				}
			})
		}
	}
	d := drive(t, newDashboard(ui.Options{Locker: idleLocker(t)}, 120, 40))
	d.update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	d.press("q")
	d.waitFor("q on the main screen, holding no lock, to quit at once", func(string) bool { return d.quit })
}

// TestQuitAsksWhileTheDashboardHoldsLocks: quitting releases the locks the dashboard acquired, so while it
// holds any, q in the help or a lock's view closes it, neither quitting nor asking; on the main screen q (and
// ctrl+c, from anywhere) asks first; esc or q stays, holding them; enter, or a second
// ctrl+c, quits and releases them.
func TestQuitAsksWhileTheDashboardHoldsLocks(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{})
	d.acquire("quit:held")
	asked := func(after string) {
		t.Helper()
		v := d.m.View()
		if d.quit || !strings.Contains(v, "Quit redlock-tui?") || !strings.Contains(v, "holds 1 lock it acquired: quit:held") ||
			!strings.Contains(v, "enter quit and release · esc/q stay") {
			t.Fatalf("%s while holding a lock: quit %v, or the question is not on screen:\n%s", after, d.quit, v)
		}
	}
	stayed := func(after string) {
		t.Helper()
		if d.quit || strings.Contains(d.m.View(), "Quit redlock-tui?") {
			t.Fatalf("%s: quit %v, or the question is still on screen:\n%s", after, d.quit, d.m.View())
		}
		c.heldEverywhere("quit:held")
	}
	c.poll(d) // the lock is listed, and enter opens its view
	for _, v := range []struct{ open, shown string }{{"?", "Help · ? or esc/q closes"}, {"enter", "Lock quit:held · esc/q back"}} {
		d.press(v.open)
		if !strings.Contains(d.m.View(), v.shown) {
			t.Fatalf("%s did not open %q:\n%s", v.open, v.shown, d.m.View())
		}
		d.press("q") // closes what is open: neither quits nor asks
		if view := d.m.View(); strings.Contains(view, v.shown) {
			t.Fatalf("q did not close %q:\n%s", v.shown, view)
		}
		stayed(v.open + ", q")
	}
	d.press("q")
	asked("q")
	d.press("esc")
	stayed("q, esc")
	d.press("q")
	asked("q")
	d.press("q")
	stayed("q, q")
	d.press("?", "ctrl+c") // from the help too
	asked("ctrl+c in the help")
	d.press("esc")
	stayed("ctrl+c, esc")
	d.press("ctrl+c", "ctrl+c")
	d.waitFor("quit after a second ctrl+c", func(string) bool { return d.quit })
	if got, want := d.m.Summary(), "released 1 lock; 0 still held"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	c.goneEverywhere("quit:held")
}

// TestASignalQuitsWithoutAsking: on SIGTERM the program sends QuitMsg, and nobody is there to answer: the
// dashboard releases its locks and quits without asking.
func TestASignalQuitsWithoutAsking(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{})
	d.acquire("quit:signal")
	d.update(dialogs.QuitMsg{})
	d.waitFor("quit on QuitMsg", func(string) bool { return d.quit })
	if got, want := d.m.Summary(), "released 1 lock; 0 still held"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	c.goneEverywhere("quit:signal")
}
