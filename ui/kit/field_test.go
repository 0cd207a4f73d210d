package kit

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestFieldDropsWhatTextinputKeeps(t *testing.T) {
	f := NewField("", 64)
	// Format characters (bidi override, zero-width space, bidi isolate) and control characters, typed or pasted.
	f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ab\u202ecd\u200be\u2066f\x1b[31m\x07g"), Paste: true})
	if got, want := f.String(), "abcdef[31mg"; got != want {
		t.Errorf("field holds %q, want %q", got, want)
	}
}
