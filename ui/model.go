// Package ui is the redlock-tui dashboard: a Bubble Tea model that shows the masters and the locks of a monitor's
// snapshots, live, and drives locks through a Redlock client (acquire, extend, auto-extend, release, and
// force-delete of locks that are not ours). In demo mode it also shows the embedded masters' faults and the
// simulated workload's events, lets a presenter break things on purpose, and makes violations of mutual
// exclusion impossible to miss.
//
// No network I/O happens in Update or View: every action is a tea.Cmd whose result comes back as a message
// carrying the identity of its request, so a late result is never applied to the wrong lock. Untrusted text from
// the masters and from results is sanitized once, where it enters the model (see sanitize). Write commands
// leave through one function (issue), which enforces read-only mode.
//
// Model is the root of components (see component): the panels and the demo's view, each a tea.Model that is
// also a help.KeyMap and takes its size from the layout (arrange), and at most one modal (a form, a
// confirmation, the scenario menu, a text field, a drill-down view, the help). Beside them, it calls the lock
// commands (LockOps), a controller with no area of its own. A component's keys are a table whose guards both
// refuse a key and hide it from the help. Components do not hold one another: the root sends them messages,
// and they tell one another what they need through it.
package ui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/demoview"
	"github.com/redlock-tui/redlock-tui/ui/dialogs"
	"github.com/redlock-tui/redlock-tui/ui/drillview"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/lockcmd"
	"github.com/redlock-tui/redlock-tui/ui/panels"
	"github.com/redlock-tui/redlock-tui/ui/replayview"
)

// Options configures the dashboard.
type Options struct {
	// Monitor polls the masters; the dashboard runs its loop (Run) itself, until it quits. Nil: snapshots come
	// only as SnapshotMsg.
	Monitor *monitor.Monitor
	// Locker acquires, extends and releases our locks, and force-deletes others' (ReleaseToken). Nil: no write
	// command is possible.
	Locker *redlock.Client
	// Ownership is told of our locks as they are acquired and end, and of the force-deletions issued, so that
	// the monitor marks them as ours; nil: nobody is told.
	Ownership lockcmd.Ownership
	// Keys are the key bindings, built by the command's keymap.go.
	Keys kit.KeyMap
	// ReadOnly forbids every write command: acquire, extend, auto-extend, release, force-delete.
	ReadOnly bool
	// TTL is the default TTL of the acquire form (10s when zero).
	TTL time.Duration
	// Poll is the monitor's initial poll interval, shown in the header and changed by Faster and Slower
	// (monitor.DefaultInterval when zero).
	Poll time.Duration
	// Title describes the cluster in the header, e.g. "demo" or the masters' addresses.
	Title string
	// Profile is the name of the connection profile the masters come from, "" none. The header shows it at
	// any width, in ProfileColor, so that the cluster on screen is unmistakable.
	Profile string
	// ProfileColor is the profile name's colour: #RRGGBB, #RGB or an ANSI colour number, as the command line
	// checked it; "" the theme's (red for a production profile).
	ProfileColor string
	// Production marks the profile as production: the header shows a loud PROD badge before its name.
	Production bool
	// Now is the dashboard's clock (time.Now when nil); tests inject a fixed one.
	Now func() time.Time
	// Replay, when not nil, is a recording the dashboard shows instead of masters (Monitor and Locker are then
	// nil, and so is Demo): read-only, with a time cursor that ReplayKeyMap moves, the clock being the moment shown. It starts
	// paused at ReplayAt (the first poll when zero).
	Replay   *record.Player
	ReplayAt time.Time
	// Demo is the running demo in demo mode, nil otherwise. The dashboard shows its masters' faults and its
	// events, and the presenter's keys (KeyMap.Demo) inject faults, drive the workload and run scenarios; the
	// program that started the demo closes it. ReadOnly does not disable the presenter's keys: they act on the
	// embedded masters the program runs, not through the dashboard's lock commands.
	Demo *demo.Demo
	// Events receives a record of each of the dashboard's own actions (acquired, extended, released, lost,
	// force-deleted, ...), in the words the event log shows; nil: none.
	Events events.Sink
	// KeyFormat names the key of a resource typed in the acquire form, in a peer client's key convention
	// (monitor.KeyFormat: "billing" as malkusch/lock's "lock_billing"), so that the lock taken holds off that
	// client's jobs; nil: the resource is the key.
	KeyFormat func(resource string) string
	// Clipboard puts a text on the clipboard, for the copy keys; nil: the terminal's, by OSC 52 (base64, so
	// that no byte of the text reaches the terminal as it is). Tests record what is copied.
	Clipboard func(text string)
	// WhoHolds samples a lock's master to name the connection holding it (KeyMap.WhoHolds in a lock's view);
	// nil: the dashboard cannot (demo masters). A read-only or production dashboard asks before it samples.
	WhoHolds kit.WhoHolds
}

// defaultTTL is the acquire form's TTL when Options.TTL is zero.
const defaultTTL = 10 * time.Second

// pollSteps are the poll intervals Faster and Slower step through, from the shortest to the longest the
// program offers (which the command line checks too).
var pollSteps = []time.Duration{monitor.MinInterval, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, monitor.MaxInterval}

// quitState tracks quitting: releasing our locks, then the summary printed after the screen is restored.
type quitState struct {
	active  bool
	summary string
}

// Model is the dashboard. Create it with New; it implements tea.Model. It is the root of the components: it
// routes keys (to the modal first, if one is open, then its own global keys, then the focused panel, then the
// components that take a key whatever has the focus), sends every other message to all components, and lays
// the screen out for them.
type Model struct {
	sh   *kit.Shared
	keys kit.KeyTable // the global keys

	mon      *monitor.Monitor
	title    string
	profile  string // sanitized; "" none
	prod     bool   // the profile is production
	interval time.Duration
	paused   bool
	ctx      context.Context
	cancel   context.CancelFunc

	width, height int
	lay           layout
	focus         kit.PanelID
	logFull       bool // the event log fills the body: a small window's way to read it
	masters       *panels.MastersPanel
	locks         *panels.LocksPanel
	detail        *panels.DetailPanel
	ours          *panels.OursPanel
	log           *panels.EventLog
	ops           *lockcmd.LockOps     // the write commands
	demo          *demoview.DemoView   // nil outside demo mode
	replay        *replayview.Replayer // nil outside a replay
	// modal is the one form, confirmation, menu, text field, drill-down view or full help open, nil none:
	// it takes the keys, and says where it shows.
	modal  kit.Modal
	help   help.Model // the footer's
	status kit.Status // the status line, as statusMsg last set it
	quit   quitState
	// stopped are the files of the program's that a write error stopped, for the banner (OutputMsg).
	stopped []kit.WarningRow
}

// New returns the dashboard for o.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TTL <= 0 {
		o.TTL = defaultTTL
	}
	if o.Poll <= 0 {
		o.Poll = monitor.DefaultInterval
	}
	if o.Replay != nil {
		o.ReadOnly, o.Monitor, o.Locker, o.Demo = true, nil, nil, nil // a recording is only looked at
	}
	ctx, cancel := context.WithCancel(context.Background())
	keys := o.Keys
	th := kit.DefaultTheme().WithProfile(o.ProfileColor, o.Production)
	sh := &kit.Shared{St: kit.NewStyles(th), Keys: &keys, Now: o.Now, ReadOnly: o.ReadOnly, Log: &kit.Journal{}, Sink: o.Events,
		KeyOf: o.KeyFormat, Clipboard: o.Clipboard}
	if sh.Clipboard == nil {
		sh.Clipboard = termenv.Copy
	}
	sh.Who = &kit.WhoSampling{Sampler: o.WhoHolds, Confirm: o.ReadOnly || o.Production}
	m := &Model{sh: sh, mon: o.Monitor, title: kit.Sanitize(o.Title, kit.NameCap), interval: o.Poll, ctx: ctx,
		cancel: cancel, focus: kit.FocusLocks, profile: kit.Sanitize(o.Profile, kit.NameCap), prod: o.Production}
	m.masters = panels.NewMastersPanel(sh, o.Demo != nil)
	m.locks = panels.NewLocksPanel(sh)
	m.detail = &panels.DetailPanel{Shared: sh}
	m.ours = panels.NewOursPanel(sh)
	m.log = panels.NewEventLog(sh)
	m.ops = lockcmd.NewLockOps(sh, o.Locker, o.Ownership, ctx, o.Production, o.TTL)
	if o.Demo != nil {
		m.demo = demoview.NewDemoView(sh, ctx, o.Demo)
		if o.Monitor != nil {
			m.demo.PollNow = o.Monitor.PollNow
		}
	}
	if o.Replay != nil {
		m.replay = replayview.NewReplayer(sh, o.Replay, o.ReplayAt)
		sh.Now = func() time.Time { return m.replay.Clock }
	}
	m.keys = m.globalKeys()
	m.help = help.New()
	m.help.Styles = sh.St.Help
	if o.ReadOnly {
		sh.TellLog(kit.LogEntry{At: o.Now(), Level: monitor.SeverityInfo, // after what the components logged as they started
			Text: "read-only: acquiring, extending, releasing and deleting are disabled"})
	}
	m.settle()
	return m
}

// globalKeys are the keys that act whatever has the focus and belong to no panel: quit, help, opening the
// selection in full, moving the focus, and the polling. Quit gives way to the enlarged event log, which it
// closes (Close) as it closes every view before it quits.
func (m *Model) globalKeys() kit.KeyTable {
	k := m.sh.Keys
	do := func(f func()) func(tea.KeyMsg) tea.Cmd { return func(tea.KeyMsg) tea.Cmd { f(); return nil } }
	return kit.KeyTable{Shared: m.sh, Focused: true, Actions: []kit.Action{
		{Binding: &k.Quit, When: func() bool { return !m.mode().LogFull }, Do: func(tea.KeyMsg) tea.Cmd { return m.requestQuit() }},
		{Binding: &k.Interrupt, Do: func(tea.KeyMsg) tea.Cmd { return m.requestQuit() }},
		{Binding: &k.Help, Do: do(m.openHelp)},
		{Binding: &k.Open, Do: do(m.openDrill)},
		{Binding: &k.NextPanel, Do: do(func() { m.cycleFocus(1) })},
		{Binding: &k.PrevPanel, Do: do(func() { m.cycleFocus(-1) })},
		{Binding: &k.LogFull, Do: do(func() { m.setLogFull(!m.mode().LogFull) })},
		{Binding: &k.Pause, Do: func(tea.KeyMsg) tea.Cmd {
			if m.mode().Source == kit.SourceReplay {
				return m.replay.TogglePlay()
			}
			m.togglePause()
			return nil
		}},
		{Binding: &k.Faster, Do: do(func() { m.stepInterval(-1) })},
		{Binding: &k.Slower, Do: do(func() { m.stepInterval(1) })},
		// Listed in the full help only: the forms and views that take them handle them themselves.
		{Binding: &k.Confirm, When: kit.Never},
		{Binding: &k.Cancel, When: kit.Never},
		{Binding: &k.Close, When: kit.Never},
	}}
}

// components are the dashboard's components, the focused panel first, then the ones that take keys whatever
// has the focus, in the order a key not taken goes on through them. The lock commands (ops), a controller
// with no area, come right after the focused panel, whose selection they act on.
func (m *Model) components() []kit.Component {
	md := m.mode()
	out := []kit.Component{m.panel(md.Focus)}
	switch {
	case md.Source == kit.SourceReplay: // its keys before the panels'
		out = []kit.Component{m.replay, m.panel(md.Focus)}
	case md.Source == kit.SourceDemo && m.demo.StepsShown(): // the presenter's step key comes before the panels' paging
		out = []kit.Component{m.demo, m.panel(md.Focus)}
	case md.Source == kit.SourceDemo:
		out = append(out, m.demo)
	}
	for p := range kit.PanelCount {
		if p != md.Focus {
			out = append(out, m.panel(p))
		}
	}
	return append(out, m.detail)
}

// panel returns the focusable panel p.
func (m *Model) panel(p kit.PanelID) kit.Keyed {
	switch p {
	case kit.FocusMasters:
		return m.masters
	case kit.FocusOurs:
		return m.ours
	case kit.FocusLog:
		return m.log
	}
	return m.locks
}

// Init starts the monitor loop, the tick and the components' own commands (the demo's events).
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tick()}
	if m.mon != nil {
		cmds = append(cmds, startMonitor(m.ctx, m.mon))
	}
	for _, c := range m.components() {
		cmds = append(cmds, c.Init())
	}
	return tea.Batch(cmds...)
}

// Update routes a message: the size, then keys (to the modal first, if one is open, then the global keys, then
// the focused panel, then the components that take keys whatever has the focus) and the mouse, then snapshots,
// and every other message (results, the demo's news, ticks) to all components and the modal. Last, it delivers
// what the components told one another, lays the screen out again and tells everyone the new selection.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.route(msg)
	return m, tea.Batch(cmd, m.settle())
}

// route handles one message, the root's own or one a component told.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
	case tea.KeyMsg:
		return m.handleKeys(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	case SnapshotMsg:
		return m.apply(kit.Ingest(msg.Snapshot, m.sh.Data))
	case replayview.ReplayMsg:
		if !m.replay.Arrived(msg) {
			return nil // a poll the cursor has left
		}
		if msg.Jump {
			m.sh.Log.Replace(m.replay.LogUntil(msg.S))
			d, _ := kit.Ingest(msg.S, nil)
			return m.apply(d, nil)
		}
		return m.apply(kit.Ingest(msg.S, m.sh.Data))
	case monitorStartedMsg:
		return waitSnapshot(msg.ch, m.sh.Data)
	case monitorSnapshotMsg:
		return tea.Batch(m.apply(msg.data, msg.entries), waitSnapshot(msg.ch, m.sh.Data))
	case monitorClosedMsg:
		if !m.mode().Quitting {
			m.sh.Logf(monitor.SeverityWarning, "", "monitor stopped: no more snapshots")
		}
	case kit.TickMsg:
		m.sh.Frame++
		return tea.Batch(m.broadcast(msg), tick())
	case kit.CopiedMsg:
		what := msg.What
		if msg.Escaped {
			what += ", escaped as shown (no control character is pasted)"
		}
		m.sh.TellStatus(monitor.SeverityInfo, "copied "+what+" (OSC 52: if nothing is pasted, the terminal does not allow it)")
	case lockcmd.QuitMsg:
		m.quit.summary = m.ops.QuitReleased(msg)
		m.cancel()
		return tea.Quit
	case dialogs.ConfirmQuitMsg:
		return m.startQuit()
	case dialogs.QuitMsg:
		if !m.mode().Quitting {
			return m.startQuit()
		}
	case OutputMsg:
		m.takeOutput(msg)
	case kit.StatusMsg:
		m.status = kit.Status(msg)
	case kit.LogMsg:
		m.sh.Log.Add(msg.Entries...)
		if msg.Record != nil && m.sh.Sink != nil {
			m.sh.Sink.Emit(*msg.Record)
		}
	case kit.FocusMsg:
		m.focus = msg.Panel
	case kit.OpenMsg:
		m.openDrill()
	case kit.LogFullMsg:
		m.setLogFull(msg.On)
	case kit.StoryMsg:
		m.showStory(msg.ID)
	case kit.OpenModalMsg:
		m.openModal(msg.M)
	case kit.OpenHelpMsg:
		m.openHelp()
	case kit.FieldMsg:
		_, cmd := m.panel(msg.To).Update(msg)
		return cmd
	case kit.PanelKeyMsg:
		_, cmd := m.panel(msg.To).Update(msg)
		return cmd
	default:
		return m.broadcast(msg)
	}
	return nil
}

// broadcast sends msg to every component and the lock commands, in the order of components, and last to the
// modal.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	focused := kit.Component(m.panel(m.mode().Focus))
	for _, c := range m.components() {
		_, cmd := c.Update(msg)
		cmds = append(cmds, cmd)
		if c == focused {
			cmds = append(cmds, m.ops.Update(msg))
		}
	}
	if m.mode().Modal {
		cmds = append(cmds, m.updateModal(msg))
	}
	return tea.Batch(cmds...)
}

// openModal opens md in place of the modal open, sized to the body.
func (m *Model) openModal(md kit.Modal) {
	m.modal = md
	md.SetSize(m.lay.body.w, m.lay.body.h)
}

// updateModal hands msg to the modal, which closes when it returns nil.
func (m *Model) updateModal(msg tea.Msg) tea.Cmd {
	next, cmd := m.modal.Update(msg)
	m.modal, _ = next.(kit.Modal)
	return cmd
}

// settle delivers what the components told one another, in order, then lays the screen out again and tells
// every component the selection.
func (m *Model) settle() tea.Cmd {
	var cmds []tea.Cmd
	for len(m.sh.Outbox) > 0 {
		msg := m.sh.Outbox[0]
		m.sh.Outbox = m.sh.Outbox[1:]
		cmds = append(cmds, m.route(msg))
	}
	m.relayout()
	m.broadcast(m.state())
	return tea.Batch(cmds...)
}

// state is the root's view of the dashboard as the components are told it.
func (m *Model) state() kit.StateMsg {
	return kit.StateMsg{Mode: m.mode(), Row: m.locks.SelectedRow(), Own: m.ours.Selected(),
		Master: m.masters.Selected()}
}

// apply makes a snapshot taken in (see ingest) the current one, logged, and tells the components.
func (m *Model) apply(d *kit.Dashboard, entries []kit.LogEntry) tea.Cmd {
	m.sh.Data = d
	m.sh.Log.Add(entries...)
	return m.broadcast(kit.DataMsg{})
}

// handleKeys splits a run of characters that arrived in one message (Bubble Tea delivers fast typing, or
// keys sent by a script, that way) into single keys unless a text field is taking them, so "aq" acts as a
// then q instead of as no key at all. Each key settles as if it had come alone, so that "ab" opens the acquire
// form and types b into it.
func (m *Model) handleKeys(msg tea.KeyMsg) tea.Cmd {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.mode().Typing {
		return m.handleKey(msg)
	}
	cmds := make([]tea.Cmd, 0, 2*len(msg.Runes))
	for _, r := range msg.Runes {
		cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}), m.settle())
	}
	return tea.Batch(cmds...)
}

// handleKey routes a key: Interrupt to the quit, whatever is open; then to the modal, if one is open (which
// closes on Close, Quit's key among them, unless it takes text); then to the global keys, the focused panel,
// and the components that take keys whatever has the focus. The components are told the selection first, so
// that the key acts on what is on the screen. While quitting, only Interrupt acts: it stops waiting for the
// releases.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	interrupts := key.Matches(msg, m.sh.Keys.Interrupt)
	md := m.mode()
	switch {
	case md.Quitting:
		if interrupts {
			m.quit.summary = m.ops.Summary("quit before releases finished")
			return tea.Quit
		}
		return nil
	case interrupts:
		return m.requestQuit()
	case md.Modal && m.replayKeyInView(msg):
		if key.Matches(msg, m.sh.Keys.Pause) {
			return m.replay.TogglePlay()
		}
		return m.replay.Run(msg)
	case md.Modal:
		return m.updateModal(msg)
	}
	m.broadcast(m.state())
	if m.keys.Takes(msg) {
		return m.keys.Run(msg)
	}
	focused := kit.Component(m.panel(md.Focus))
	for _, c := range m.components() {
		if c, ok := c.(kit.Keyed); ok && c.Takes(msg) {
			_, cmd := c.Update(msg)
			return cmd
		}
		if c == focused && m.ops.Takes(msg) {
			return m.ops.Run(msg)
		}
	}
	return nil
}

// replayKeyInView reports whether msg is a replay's key that moves its time cursor (a step, a jump, play and
// pause) pressed in a drill-down view, which takes it so that the view follows the cursor. Seek opens a form
// in the view's place: the view does not take it.
func (m *Model) replayKeyInView(msg tea.KeyMsg) bool {
	if _, ok := m.modal.(*drillview.DrillView); !ok || m.replay == nil || key.Matches(msg, m.sh.Keys.Replay.Seek) {
		return false
	}
	return m.replay.Takes(msg) || key.Matches(msg, m.sh.Keys.Pause)
}

// setLogFull shows the event log in place of the panels, with the focus, or puts it back. The screen opens it
// when the log has no room of its own (a small window).
func (m *Model) setLogFull(on bool) {
	m.logFull = on
	if on {
		m.focus = kit.FocusLog
	} else if !m.visible(kit.FocusLog) {
		m.focus = kit.FocusLocks
	}
	m.relayout()
}

// cycleFocus moves the focus by dir among the panels on screen.
func (m *Model) cycleFocus(dir int) {
	if m.mode().LogFull {
		m.setLogFull(false)
	}
	for range kit.PanelCount {
		m.focus = (m.focus + kit.PanelID(dir) + kit.PanelCount) % kit.PanelCount
		if m.visible(m.focus) {
			return
		}
	}
}

// visible reports whether a panel is on screen in the current layout.
func (m *Model) visible(p kit.PanelID) bool { return m.lay.visible(p) }

// storyPaneMin is the least height of the event log's pane that shows a violation's story beside the panels;
// a smaller pane (3 lines of text at 100x30) gives the log the body instead.
const storyPaneMin = 8

// showStory focuses the event log, scrolled to the story of violation id; a small window, or a log pane too
// small to read the story in, gives the log the body until esc.
func (m *Model) showStory(id int) {
	if !m.visible(kit.FocusLog) || m.lay.panels[kit.FocusLog].h < storyPaneMin {
		m.setLogFull(true) // no room for the story beside the panels: it takes the screen until esc
	}
	i := m.sh.Log.LastIndex(demoview.StoryHead(id))
	if i < 0 {
		m.sh.TellStatus(monitor.SeverityWarning, fmt.Sprintf("the story of violation #%d has left the event log", id))
		return
	}
	m.focus = kit.FocusLog
	m.log.Update(kit.ScrollToMsg{Entry: i})
	back := ""
	if m.mode().LogFull {
		back = ", " + m.sh.Keys.Close.Help().Key + " closes"
	}
	k := m.sh.Keys
	m.sh.TellStatus(monitor.SeverityInfo, fmt.Sprintf("the story of violation #%d: %s/%s scroll, %s back to the newest%s", id,
		k.Up.Help().Key, k.Down.Help().Key, k.Bottom.Help().Key, back))
}

// togglePause pauses or resumes polling.
func (m *Model) togglePause() {
	m.paused = !m.paused
	if m.mon != nil {
		m.mon.SetPaused(m.paused)
	}
	if m.mode().Paused {
		m.sh.TellStatus(monitor.SeverityInfo, "polling paused")
	} else {
		m.sh.TellStatus(monitor.SeverityInfo, "polling resumed")
	}
}

// stepInterval moves the poll interval one step faster (dir < 0) or slower (dir > 0); in a replay, the speed.
func (m *Model) stepInterval(dir int) {
	if m.mode().Source == kit.SourceReplay {
		m.replay.ChangeSpeed(dir)
		return
	}
	next := m.interval
	if dir < 0 {
		for i := len(pollSteps) - 1; i >= 0; i-- {
			if pollSteps[i] < m.interval {
				next = pollSteps[i]
				break
			}
		}
	} else {
		for _, s := range pollSteps {
			if s > m.interval {
				next = s
				break
			}
		}
	}
	if next == m.interval {
		m.sh.TellStatus(monitor.SeverityInfo, "poll interval stays "+next.String())
		return
	}
	m.interval = next
	if m.mon != nil {
		m.mon.SetInterval(next)
	}
	m.sh.TellStatus(monitor.SeverityInfo, "polling every "+next.String())
}

// startQuit releases every lock we hold (bounded in time) and then quits; whatever runs is cancelled first.
func (m *Model) startQuit() tea.Cmd {
	m.quit.active = true
	m.broadcast(kit.QuittingMsg{})
	m.modal = nil
	if cmd := m.ops.ReleaseAll(); cmd != nil {
		return cmd
	}
	m.quit.summary = m.ops.Summary("")
	m.cancel()
	return tea.Quit
}

// Summary is one line for the terminal after the screen is restored: what happened to the locks we held.
func (m *Model) Summary() string {
	if m.quit.summary != "" {
		return m.quit.summary
	}
	return m.ops.Summary("")
}

// relayout computes the geometry for the current size and snapshot (arrange) and sizes the components by it.
func (m *Model) relayout() {
	md := m.mode()
	demoMode := md.Source == kit.SourceDemo
	in := layoutInput{w: m.width, h: m.height, masters: 1, demo: demoMode, logFull: md.LogFull, modal: md.Modal}
	if demoMode {
		in.violation = m.demo.ViolationLines(m.width)
	}
	if d := m.sh.Data; d != nil {
		in.masters = max(len(d.Masters), 1)
		in.note = m.masters.NoteWant(m.width)
	}
	in.warnings = len(m.bannerRows())
	if demoMode {
		in.story = m.demo.StoryLines(m.width)
	}
	l := arrange(in)
	m.lay = l
	m.masters.NoteH = l.noteH
	for p := range kit.PanelCount {
		m.panel(p).SetSize(l.size(p))
	}
	m.detail.SetSize(l.detail.w, l.detail.h)
	if demoMode {
		m.demo.SetSize(m.width, l.demoBarH+l.violationH)
		m.demo.StoryH = l.storyH
	}
	m.help.Width = m.width
	if md.Modal {
		m.modal.SetSize(l.body.w, l.body.h)
	}
	if !m.visible(md.Focus) {
		m.focus = kit.FocusLocks
	}
}

// mode derives the dashboard's mode from the root's state.
func (m *Model) mode() kit.Mode {
	md := kit.Mode{ReadOnly: m.sh.ReadOnly, Paused: m.paused, Quitting: m.quit.active, Focus: m.focus, LogFull: m.logFull}
	switch {
	case m.replay != nil:
		md.Source, md.Paused = kit.SourceReplay, !m.replay.Playing
	case m.demo != nil:
		md.Source = kit.SourceDemo
	}
	if m.modal != nil {
		md.Modal, md.Layer, md.Typing = true, m.modal.Layer(), m.modal.Typing()
	}
	return md
}

// openDrill opens the full view of the focused panel's selected row: a lock or a master.
func (m *Model) openDrill() {
	var v *drillview.DrillView
	if p, ok := m.panel(m.focus).(drillview.Drilling); ok {
		v = p.Drill()
	}
	if v == nil {
		m.sh.TellStatus(monitor.SeverityInfo, "select a lock or a master, then "+m.sh.Keys.Open.Help().Key+" shows it in full")
		return
	}
	m.openModal(v)
}

// OutputMsg tells the dashboard of one of the program's own events (events.SourceProgram): a file it writes
// (--record, --events) that a write error stopped, or SIGHUP reopening its files. The event log shows Record;
// the banner shows Stopped, the sentence of each file stopped by then, until a reopening resumes it.
type OutputMsg struct {
	Record  events.Record
	Stopped []string
}

// takeOutput logs msg's record and shows its stopped files in the banner, ahead of the monitor's warnings.
func (m *Model) takeOutput(msg OutputMsg) {
	m.sh.Log.Add(kit.EntryOf(msg.Record))
	m.stopped = m.stopped[:0]
	for _, text := range msg.Stopped {
		m.stopped = append(m.stopped, kit.WarningRow{Severity: monitor.SeverityError, Text: kit.Sanitize(text, kit.TextCap)})
	}
}

// bannerRows are the banner's lines: the files stopped, then the monitor's warnings, errors first.
func (m *Model) bannerRows() []kit.WarningRow {
	if d := m.sh.Data; d != nil {
		return append(m.stopped[:len(m.stopped):len(m.stopped)], d.Warnings...)
	}
	return m.stopped
}

// mouse routes a mouse event: the wheel scrolls the modal that takes the body or the panel under the pointer;
// a left click focuses the panel under it and hands it the click, at the row within the panel (the panel
// selects the row clicked, and asks to open the row already selected, as Open does). A dialog takes no mouse
// input. The panel under the pointer is found in the layout View draws.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	md := m.mode()
	if md.Quitting || m.lay.tooSmall || m.lay.compact {
		return nil
	}
	if md.Modal {
		switch md.Layer {
		case kit.LayerDialog:
			return nil
		case kit.LayerScreen:
			return m.updateModal(msg)
		}
	}
	if (kit.WheelRows(msg) == 0 && msg.Button != tea.MouseButtonLeft) || msg.Action != tea.MouseActionPress {
		return nil
	}
	p, row, ok := m.lay.panelAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	if kit.WheelRows(msg) == 0 {
		m.focus = p
	}
	msg.Y = row
	_, cmd := m.panel(p).Update(msg)
	return cmd
}

// openHelp opens the full help, composed from the global keys and every component's, at its top.
func (m *Model) openHelp() {
	k, md := m.sh.Keys, m.mode()
	offered := m.offeredKeys(true)
	closeKey := k.Close
	closeKey.SetHelp(closeKey.Help().Key, "close")
	v := &dialogs.HelpView{ModalBase: drillview.ScreenBase(m.sh, []key.Binding{closeKey, k.Up, k.Down, k.PageDown, drillview.ViewQuitKey(k)}),
		Box: kit.NewScrollBox(m.sh), HelpModel: m.help,
		Dashboard: kit.ColumnsInOrder(k.DashboardHelp(), offered), Blocked: m.ops.WriteBlocked("locking"), ReadOnly: md.ReadOnly}
	if md.Source == kit.SourceDemo {
		v.Demo = kit.ColumnsInOrder(k.Demo.FullHelp(), offered)
	}
	m.openModal(v)
}

// offeredKeys are the bindings the global keys, the lock commands and every component offer (the focused
// panel's own with them), in the short form (what acts now) or the full one (what can act in this mode).
func (m *Model) offeredKeys(full bool) []key.Binding {
	maps := []help.KeyMap{&m.keys, m.ops}
	for _, c := range m.components() {
		maps = append(maps, c)
	}
	var out []key.Binding
	for _, km := range maps {
		if full {
			out = append(out, kit.Flatten(km.FullHelp())...)
		} else {
			out = append(out, km.ShortHelp()...)
		}
	}
	return out
}

// requestQuit is the quit keys' action: it quits at once when the dashboard holds no lock it acquired, and
// otherwise asks first (a second Interrupt, or Confirm, then quits). Whatever modal is open gives way to the
// question.
func (m *Model) requestQuit() tea.Cmd {
	if _, asking := m.modal.(*dialogs.QuitConfirm); asking {
		return m.startQuit()
	}
	held := m.ops.HeldNames()
	if len(held) == 0 {
		return m.startQuit()
	}
	m.openModal(dialogs.NewQuitConfirm(m.sh, held))
	return nil
}
