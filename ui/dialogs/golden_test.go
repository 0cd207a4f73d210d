package dialogs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/redlock-tui/redlock-tui/ui/dialogs"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// now is the fixed clock of the goldens: the root's testNow.
var now = time.Date(2025, 6, 1, 12, 0, 5, 0, time.UTC)

// shared is the program context as the root makes it, with the real keys, the fixed clock and the ASCII
// colour profile; the dialogs read no snapshot.
func shared() *kit.Shared {
	lipgloss.SetColorProfile(termenv.Ascii)
	keys := uitest.KeyMap()
	return &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &keys, Now: func() time.Time { return now },
		Log: &kit.Journal{}, Clipboard: func(string) {}}
}

// TestGoldenFullHelp renders the full help at 100x30 as the root composes it for a read-only dashboard: every
// key of the dashboard offered but the lock commands, whose column is left out, the legend, and why the lock
// commands cannot act. A second golden keeps it scrolled a page down.
func TestGoldenFullHelp(t *testing.T) {
	sh := shared()
	k := sh.Keys
	var offered []key.Binding
	for _, b := range kit.Flatten(k.DashboardHelp()) {
		for _, w := range []key.Binding{k.Acquire, k.Extend, k.Release, k.AutoExtend, k.Delete} {
			if b.Help() == w.Help() {
				b.SetEnabled(false) // read-only: the lock commands' Mode guard disables them
			}
		}
		offered = append(offered, b)
	}
	hm := help.New()
	hm.Styles = sh.St.Help
	v := &dialogs.HelpView{ModalBase: kit.ModalBase{Shared: sh, Where: kit.LayerScreen, Keys: []key.Binding{k.Close, k.Up, k.Down}},
		Box: kit.NewScrollBox(sh), HelpModel: hm, Dashboard: kit.ColumnsInOrder(k.DashboardHelp(), offered),
		Blocked: "acquiring is disabled: the dashboard runs read-only (--read-only)", ReadOnly: true}
	v.SetSize(100, 30)
	view := v.View()
	for _, want := range []string{"Help · ", "filter", "Lock cells"} {
		if !strings.Contains(view, want) {
			t.Errorf("the help lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, k.Acquire.Help().Desc) {
		t.Errorf("the read-only help offers %q:\n%s", k.Acquire.Help().Desc, view)
	}
	t.Run("top", func(t *testing.T) { golden.RequireEqual(t, []byte(view)) })
	v.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	scrolled := v.View()
	if scrolled == view || !strings.Contains(scrolled, "read-only (--read-only)") {
		t.Errorf("a page down does not reach the help's end:\n%s", scrolled)
	}
	t.Run("page_down", func(t *testing.T) { golden.RequireEqual(t, []byte(scrolled)) })
}

// TestGoldenQuitConfirm renders the question asked before quitting with locks held, at 80 columns: the seven
// locks (five named, two counted), what quitting does to them, and the keys.
func TestGoldenQuitConfirm(t *testing.T) {
	names := []string{"billing:invoice:42", "jobs:nightly-report", "orders:7", "cache:warmup", "ledger:settle",
		"payments:settlement:2025-06-01", "reports:weekly"}
	q := dialogs.NewQuitConfirm(shared(), names)
	q.SetSize(80, 24)
	view := q.View()
	for _, want := range []string{"Quit redlock-tui?", "7 locks", "ledger:settle", "and 2 more", "enter quit and release"} {
		if !strings.Contains(view, want) {
			t.Errorf("the question lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "reports:weekly") {
		t.Errorf("the question names more than five locks:\n%s", view)
	}
	golden.RequireEqual(t, []byte(view))
}
