package ui_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/ui"
)

// Bubble Tea delivers characters that arrive together as one message; outside
// a text field each must still act as its own key: ? opens the help, q closes
// it, and the next q quits.
func TestKeysTypedTogetherActOneByOne(t *testing.T) {
	d := drive(t, newDashboard(ui.Options{}, 120, 36))
	d.update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	d.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?q")})
	if d.quit || strings.Contains(d.m.View(), "Help ·") || !strings.Contains(d.m.View(), "Masters 3/3 up") {
		t.Fatalf("? then q, arrived in one message, did not open and close the help:\n%s", d.m.View())
	}
	d.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?qq")})
	d.waitFor("quit after ?, q and q arrived in one message", func(string) bool { return d.quit })
}

func TestCharactersTypedTogetherStayTextInAForm(t *testing.T) {
	c := newCluster(t)
	d := c.dashboard(ui.Options{})
	d.press("a")
	d.waitView("Acquire")
	d.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("qa:zz")})
	if d.quit || !strings.Contains(d.m.View(), "qa:zz") {
		t.Fatalf("characters typed together into the acquire form were not taken as text:\n%s", d.m.View())
	}
}
