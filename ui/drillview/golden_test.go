package drillview_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// The fixed clock, the fleet, the program context and the box check the rooms' goldens share (uitest).
var (
	fleet    = uitest.Fleet
	shared   = uitest.Shared
	checkBox = uitest.CheckBox
)

// TestGoldenLockDrill renders the full view of the held lock alone, at 80x24: its holder and validity, each
// master's cell (the third not read), and what can be done with it.
func TestGoldenLockDrill(t *testing.T) {
	sh := shared(fleet())
	v := drillview.NewLockDrill(sh, sh.Data.Locks[0])
	v.SetSize(80, 24)
	view := v.View()
	checkBox(t, view, 80, 24)
	for _, want := range []string{"billing:invoice:42", "10.0.0.3:6379"} {
		if !strings.Contains(view, want) {
			t.Errorf("the lock's view lacks %q:\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
}

// TestGoldenMasterDrill renders the full view of the master that is down, at 80x24: its address, its state
// and the error it was read with.
func TestGoldenMasterDrill(t *testing.T) {
	sh := shared(fleet())
	v := drillview.NewMasterDrill(sh, &sh.Data.Masters[2])
	v.SetSize(80, 24)
	view := v.View()
	checkBox(t, view, 80, 24)
	for _, want := range []string{"10.0.0.3:6379", "connection refused"} {
		if !strings.Contains(view, want) {
			t.Errorf("the master's view lacks %q:\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
}
