package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/dialogs"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/panels"
)

// testKeys is a key map with the bindings these tests press.
func testKeys() kit.KeyMap {
	b := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	return kit.KeyMap{Up: b("up", "up"), Down: b("down", "down"), NextPanel: b("tab", "next panel"),
		PrevPanel: b("shift+tab", "prev panel"), Filter: b("/", "filter"), Sort: b("s", "sort"),
		Acquire: b("a", "acquire"), Extend: b("e", "extend"), Help: b("?", "help"), Quit: b("q", "quit"),
		Interrupt: b("ctrl+c", "quit from anywhere"), Confirm: b("enter", "confirm"), Cancel: b("esc", "cancel"),
		Close: key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close")), Open: b("enter", "details")}
}

// press is the key message of a key name.
func press(k string) tea.KeyMsg {
	switch k {
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// testModel is a dashboard at 120x36 over three masters holding locks a to e, with no Redlock client.
func testModel(t *testing.T) *Model {
	t.Helper()
	m := New(Options{Keys: testKeys(), Now: func() time.Time { return t0 }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	var locks []monitor.LockView
	for _, r := range []string{"a", "b", "c", "d", "e"} {
		locks = append(locks, heldLock(r, "tok-"+r, 3, 5*time.Second))
	}
	m.Update(SnapshotMsg{Snapshot: threeMasters(t0, locks...)})
	return m
}

func TestKeyTableGuardRefusesTheKeyAndHidesItFromTheFooter(t *testing.T) {
	k := testKeys()
	sh := &kit.Shared{Keys: &k, Now: func() time.Time { return t0 }}
	done, why := false, "not now"
	table := kit.KeyTable{Shared: sh, Actions: []kit.Action{{Binding: &k.Extend, Can: func() string { return why },
		Do: func(tea.KeyMsg) tea.Cmd { done = true; return nil }}}}
	refusal := kit.StatusMsg{At: t0, Level: monitor.SeverityWarning, Text: "not now"}
	if table.Run(press("e")); done || len(sh.Outbox) != 1 || sh.Outbox[0] != refusal {
		t.Errorf("a guarded key acted (%v) or did not tell the status line why (%v)", done, sh.Outbox)
	}
	if b := table.ShortHelp(); len(b) != 1 || b[0].Enabled() {
		t.Errorf("the footer offers a key its guard refuses: %v", b)
	}
	if cols := table.FullHelp(); !cols[0][0].Enabled() {
		t.Error("the full help leaves out a key that can act in this mode")
	}
	why = ""
	if table.Run(press("e")); !done {
		t.Error("the key did not act once its guard allowed it")
	}
	if b := table.ShortHelp(); !b[0].Enabled() {
		t.Error("the footer leaves out a key that acts now")
	}
}

func TestKeyTableFocusAndWhenDecideWhoTakesAKey(t *testing.T) {
	k := testKeys()
	query := ""
	table := kit.KeyTable{Shared: &kit.Shared{Keys: &k}, Actions: []kit.Action{
		{Binding: &k.Up, Focused: true, Do: func(tea.KeyMsg) tea.Cmd { return nil }},
		{Binding: &k.Cancel, When: func() bool { return query != "" }, Do: func(tea.KeyMsg) tea.Cmd { return nil }},
	}}
	if table.Takes(tea.KeyMsg{Type: tea.KeyUp}) || len(table.ShortHelp()) != 1 {
		t.Error("a key that needs the focus is taken, or offered, without it")
	}
	table.Focused = true
	if !table.Takes(tea.KeyMsg{Type: tea.KeyUp}) {
		t.Error("a key that needs the focus is not taken with it")
	}
	if table.Takes(press("esc")) {
		t.Error("a key is taken while its action says it is not its own")
	}
	query = "x"
	if !table.Takes(press("esc")) {
		t.Error("a key is not taken while its action says it is its own")
	}
}

func TestInOrderLaysOfferedKeysOutInTheLayoutsOrder(t *testing.T) {
	k := testKeys()
	disabled := k.Extend
	disabled.SetEnabled(false)
	got := kit.InOrder([]key.Binding{k.Help, k.Open, k.Acquire, k.Extend, k.Quit}, []key.Binding{k.Quit, disabled,
		k.Acquire, k.Help})
	var shown []string
	for _, b := range got {
		if b.Enabled() {
			shown = append(shown, b.Help().Desc)
		}
	}
	if strings.Join(shown, ",") != "help,acquire,quit" {
		t.Errorf("shown %v, want help, acquire, quit in the layout's order (details not offered, extend disabled)",
			shown)
	}
}

func TestModalTakesTheKeysUntilItCloses(t *testing.T) {
	m := testModel(t)
	m.Update(press("?"))
	if _, ok := m.modal.(*dialogs.HelpView); !ok || !strings.Contains(m.View(), "Help · ? or esc/q closes") {
		t.Fatalf("? did not open the help as the modal:\n%s", m.View())
	}
	m.Update(press("s")) // the locks' sort key: the help takes it, as a key that does nothing there
	if strings.Contains(m.status.Text, "sorted") {
		t.Errorf("a key reached the locks panel past the open help: %q", m.status.Text)
	}
	m.Update(press("esc"))
	if m.modal != nil || !strings.Contains(m.View(), "Masters 3/3 up") {
		t.Errorf("esc did not close the help:\n%s", m.View())
	}
}

func TestFilterFieldTypesTextAndHandsTheArrowsToItsPanel(t *testing.T) {
	m := testModel(t)
	m.Update(press("tab")) // our locks: the filter still takes the keyboard in the locks panel
	m.Update(press("/"))
	if m.focus != kit.FocusLocks || m.modal == nil || !m.modal.Typing() {
		t.Fatalf("/ did not open the filter field in the locks panel (focus %d, modal %T)", m.focus, m.modal)
	}
	m.Update(press("s")) // text, not the sort key
	if m.locks.Filter.Text != "s" || m.locks.Sort != panels.SortResource {
		t.Errorf("s was not typed into the filter (typed %q, sort %v)", m.locks.Filter.Text, m.locks.Sort)
	}
	m.Update(press("esc"))
	m.Update(press("/"))
	m.Update(press("down")) // not text: it moves the panel's cursor
	if row := m.locks.SelectedRow(); row == nil || row.Lv.Resource != "b" {
		t.Errorf("down in the filter field did not move the cursor to b: %v", row)
	}
}

func TestMouseClickSelectsTheRowAndASecondClickOpensIt(t *testing.T) {
	m := testModel(t)
	r := m.lay.panels[kit.FocusLocks]
	click := tea.MouseMsg{X: 3, Y: r.y + 2 + 2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
	m.Update(click) // the third row: c
	if row := m.locks.SelectedRow(); row == nil || row.Lv.Resource != "c" || m.modal != nil {
		t.Fatalf("a click on the third row did not select c: %v (modal %T)", row, m.modal)
	}
	m.Update(click)
	if v, ok := m.modal.(*drillview.DrillView); !ok || v.Resource != "c" {
		t.Fatalf("a click on the selected row did not open its view: %T", m.modal)
	}
	m.Update(tea.MouseMsg{X: 3, Y: r.y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if m.modal == nil {
		t.Error("a click closed the view that takes the body")
	}
}

func TestKeysTypedTogetherSettleOneByOne(t *testing.T) {
	m := testModel(t)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/bc")}) // / opens the filter, then b and c are text
	if m.locks.Filter.Text != "bc" || m.modal == nil {
		t.Errorf("the characters after / were not typed into the filter it opened: %q (modal %T)", m.locks.Filter.Text,
			m.modal)
	}
}

// The mode follows what the root holds: the focus, a modal and whether it takes text, and read-only; the
// components get the same value with the selection.
func TestModeIsOneValueTheComponentsAreTold(t *testing.T) {
	m := testModel(t)
	if got, want := m.mode(), (kit.Mode{Source: kit.SourceLive, Focus: kit.FocusLocks}); got != want {
		t.Errorf("a fresh live dashboard's mode is %+v, want %+v", got, want)
	}
	m.Update(press("?"))
	if md := m.mode(); !md.Modal || md.Layer != kit.LayerScreen || md.Typing {
		t.Errorf("with the help open, the mode is %+v: want a modal on the screen layer, not typing", md)
	}
	m.Update(press("esc"))
	m.Update(press("/"))
	if md := m.mode(); !md.Modal || md.Layer != kit.LayerField || !md.Typing {
		t.Errorf("with the filter open, the mode is %+v: want a modal field that takes text", md)
	}
	m.Update(press("esc"))
	m.Update(press("tab"))
	if md := m.mode(); md.Modal || md.Focus == kit.FocusLocks || m.locks.Focused {
		t.Errorf("after tab, the mode is %+v and the locks panel thinks it has the focus (%v)", md, m.locks.Focused)
	}
	ro := New(Options{Keys: testKeys(), Now: func() time.Time { return t0 }, ReadOnly: true})
	if md := ro.mode(); !md.ReadOnly || !ro.ours.ReadOnly {
		t.Errorf("a read-only dashboard's mode is %+v; the our-locks panel was told read-only: %v", md, ro.ours.ReadOnly)
	}
}
