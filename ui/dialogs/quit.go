package dialogs

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// Quitting. In less, man, htop and k9s, q closes the help or the view before it quits; so it does here: with
// the help, a drill-down view, a menu or the enlarged event log open, Quit's key closes it (Close), and only on
// the main screen does it quit. Quitting releases the locks the dashboard acquired, so while it holds any it
// asks first (QuitConfirm); Interrupt (ctrl+c) asks the same from anywhere, and a second one, or Confirm,
// quits.

// QuitConfirm asks before quitting while the dashboard holds locks it acquired, a modal dialog: quitting
// releases them, which the jobs relying on them may not expect.
type QuitConfirm struct {
	kit.ModalBase
	names []string // the locks held, sanitized
}

// NewQuitConfirm returns the question for the locks named.
func NewQuitConfirm(sh *kit.Shared, names []string) *QuitConfirm {
	yes, no := sh.Keys.Confirm, sh.Keys.Close
	yes.SetHelp(yes.Help().Key, "quit, releasing them")
	no.SetHelp(no.Help().Key, "stay")
	return &QuitConfirm{ModalBase: kit.ModalBase{Shared: sh, Where: kit.LayerDialog, Keys: []key.Binding{yes, no}}, names: names}
}

// Update quits on Confirm or Interrupt (telling the root through quitMsg's twin, confirmQuitMsg), and closes
// on Close, staying.
func (q *QuitConfirm) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg, ok := msg.(tea.KeyMsg); ok {
		k := q.Shared.Keys
		switch {
		case key.Matches(msg, k.Confirm, k.Interrupt):
			q.Shared.Tell(ConfirmQuitMsg{})
			return nil, nil
		case key.Matches(msg, k.Close, k.Quit):
			q.Shared.TellStatus(monitor.SeverityInfo, "still running; "+kit.Plural(len(q.names), "lock")+" held")
			return nil, nil
		}
	}
	return q, nil
}

// maxQuitNames bounds the locks the question names; the others are counted.
const maxQuitNames = 5

// View draws the question as a dialog: what quitting does to the locks held, and the keys.
func (q *QuitConfirm) View() string {
	st, k := q.Shared.St, q.Shared.Keys
	w := min(q.W-4, 72)
	inner := w - 2
	names := q.names[:min(len(q.names), maxQuitNames)]
	list := strings.Join(names, ", ")
	if more := len(q.names) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	var body []string
	for _, l := range kit.WrapLines(fmt.Sprintf("The dashboard holds %s it acquired: %s. Quitting releases them; a "+
		"job relying on them loses its lock.", kit.Plural(len(q.names), "lock"), list), inner) {
		body = append(body, st.Text.Normal.Render(l))
	}
	body = append(body, "", st.Form.Hint.Render(fmt.Sprintf("%s quit and release · %s stay", k.Confirm.Help().Key,
		k.Close.Help().Key)))
	return st.Box("Quit redlock-tui?", body, w, len(body)+2, true)
}

// ConfirmQuitMsg tells the root that the operator confirmed the quit.
type ConfirmQuitMsg struct{}

// QuitMsg quits the dashboard as a confirmed quit does, without asking: the locks it holds are released, then
// it quits. The program sends it on a signal (SIGTERM, SIGINT, SIGHUP), when nobody is there to answer.
type QuitMsg struct{}
