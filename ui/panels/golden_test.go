package panels_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/panels"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// The fixed clock, the fleet, the program context and the box check the rooms' goldens share (uitest).
var (
	fleet    = uitest.Fleet
	shared   = uitest.Shared
	checkBox = uitest.CheckBox
)

// TestGoldenMastersPanel renders the masters panel alone from the fleet: two masters up with their round trip,
// the third down with its error, the first row selected (the panel has the focus).
func TestGoldenMastersPanel(t *testing.T) {
	p := panels.NewMastersPanel(shared(fleet()), false)
	p.Focused = true
	p.Update(kit.DataMsg{})
	p.SetSize(72, 8)
	view := p.View()
	checkBox(t, view, 72, 8)
	for _, want := range []string{"10.0.0.1:6379", "10.0.0.3:6379", "down"} {
		if !strings.Contains(view, want) {
			t.Errorf("the masters panel lacks %q:\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
}

// TestGoldenLocksPanel renders the locks panel alone, focused, from the fleet: the held lock with its
// validity, the split one and the half-acquired one, a cell per master, the unread master's cells unknown.
func TestGoldenLocksPanel(t *testing.T) {
	sh := shared(fleet())
	p := panels.NewLocksPanel(sh)
	p.Focused = true
	p.Update(kit.DataMsg{})
	p.SetSize(100, 10)
	view := p.View()
	checkBox(t, view, 100, 10)
	for _, want := range []string{"billing:invoice:42", "ledger:settle", "cache:warmup", "split"} {
		if !strings.Contains(view, want) {
			t.Errorf("the locks panel lacks %q:\n%s", want, view)
		}
	}
	if row := p.SelectedRow(); row == nil {
		t.Error("the focused locks panel selects no row")
	}
	golden.RequireEqual(t, []byte(view))
}
