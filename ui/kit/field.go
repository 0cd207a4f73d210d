package kit

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Field is a one-line text input for forms, confirmations and the filter. It accepts printable characters
// only, so what it holds is safe to show; pasted control characters and invisible ones are dropped.
//
// It is written here rather than taken from bubbles' textinput, whose sanitizer drops control characters
// (category Cc) but keeps format characters (Cf): a pasted U+202E would reorder what the force-delete
// confirmation shows, and a zero-width space would hide in it (read in bubbles v1.0.0 runeutil.Sanitize;
// TestFieldDropsWhatTextinputKeeps checks ours). textinput would also bring a clipboard package in.
type Field struct {
	value []rune
	pos   int // cursor, in runes
	limit int // most runes held
}

// NewField returns a field holding up to limit runes, initially value.
func NewField(value string, limit int) Field {
	f := Field{limit: limit}
	f.set(value)
	return f
}

// set replaces the value, leaving the cursor at its end.
func (f *Field) set(s string) {
	f.value = f.value[:0]
	for _, r := range s {
		if len(f.value) < f.limit && typeable(r) {
			f.value = append(f.value, r)
		}
	}
	f.pos = len(f.value)
}

// String returns the value.
func (f *Field) String() string { return string(f.value) }

// Update applies an editing key (characters, backspace, delete, arrows, home, end, ctrl+u, ctrl+w) and reports
// whether the key was one.
func (f *Field) Update(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		for _, r := range msg.Runes {
			if len(f.value) >= f.limit || !typeable(r) {
				continue
			}
			f.value = append(f.value[:f.pos], append([]rune{r}, f.value[f.pos:]...)...)
			f.pos++
		}
	case tea.KeyBackspace:
		if f.pos > 0 {
			f.value = append(f.value[:f.pos-1], f.value[f.pos:]...)
			f.pos--
		}
	case tea.KeyDelete:
		if f.pos < len(f.value) {
			f.value = append(f.value[:f.pos], f.value[f.pos+1:]...)
		}
	case tea.KeyLeft:
		f.pos = max(f.pos-1, 0)
	case tea.KeyRight:
		f.pos = min(f.pos+1, len(f.value))
	case tea.KeyHome, tea.KeyCtrlA:
		f.pos = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		f.pos = len(f.value)
	case tea.KeyCtrlU:
		f.value = append(f.value[:0], f.value[f.pos:]...)
		f.pos = 0
	case tea.KeyCtrlW:
		start := f.pos
		for start > 0 && f.value[start-1] == ' ' {
			start--
		}
		for start > 0 && f.value[start-1] != ' ' {
			start--
		}
		f.value = append(f.value[:start], f.value[f.pos:]...)
		f.pos = start
	default:
		return false
	}
	return true
}

// View renders the field w cells wide, scrolled so the cursor shows; a focused field shows its cursor as a
// reversed cell, or an underscore where styles are off.
func (f *Field) View(w int, focused bool, st lipgloss.Style, cursor lipgloss.Style) string {
	if w <= 0 {
		return ""
	}
	start := max(f.pos-w+1, 0)
	end := min(len(f.value), start+w)
	before := string(f.value[start:min(f.pos, end)])
	if !focused {
		return st.Render(Fit(string(f.value[start:end]), w))
	}
	at := " "
	after := ""
	if f.pos < len(f.value) {
		at = string(f.value[f.pos])
		if f.pos+1 < end {
			after = string(f.value[f.pos+1 : end])
		}
	}
	if lipgloss.ColorProfile() == termenv.Ascii && at == " " { // no reverse video to show the cursor
		at = "_"
	}
	rest := max(w-len([]rune(before))-1, 0)
	return st.Render(before) + cursor.Render(at) + st.Render(Fit(after, rest))
}

// typeable reports whether r may be typed into a field: visible characters, backslash and the mark included
// (a confirmation is typed as the escaped name is shown).
func typeable(r rune) bool {
	return r == '\\' || r == markRune || !needsEscape(r, false)
}

// Empty reports whether the field holds nothing but spaces.
func (f *Field) Empty() bool { return strings.TrimSpace(string(f.value)) == "" }
