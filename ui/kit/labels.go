package kit

import (
	"strings"
)

// labelW is the width of the labels of the drill-down views and dialogs.
const labelW = 11

// Labelled writes text after a label, wrapped in full (a word-less token is cut into lines) to w cells, the
// lines after the first indented under the text; style paints the text.
func Labelled(st *Styles, label, text string, w int, style Paint) []string {
	room := max(w-labelW, 8)
	var out []string
	for i, l := range Wrap(text, room) {
		head := strings.Repeat(" ", labelW)
		if i == 0 {
			head = st.Text.Muted.Render(Fit(label, labelW))
		}
		out = append(out, head+st.Name(l, style))
	}
	return out
}

// WrapLines wraps already-styled text to w cells, as many lines as it takes.
func WrapLines(text string, w int) []string {
	return Wrap(text, max(w, 8))
}
