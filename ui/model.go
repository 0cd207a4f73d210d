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
package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Options configures the dashboard.
type Options struct {
	// Monitor polls the masters; the dashboard runs its loop (Run) itself, until it quits. Nil: snapshots come
	// only as SnapshotMsg.
	Monitor *monitor.Monitor
	// Locker acquires, extends and releases our locks, and force-deletes others' (ReleaseToken). Nil: no write
	// command is possible.
	Locker *redlock.Client
	// Keys are the key bindings, built by the command's keymap.go.
	Keys KeyMap
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
	// Demo is the running demo in demo mode, nil otherwise. The dashboard shows its masters' faults and its
	// events, and the presenter's keys (KeyMap.Demo) inject faults, drive the workload and run scenarios; the
	// program that started the demo closes it. ReadOnly does not disable the presenter's keys: they act on the
	// embedded masters the program runs, not through the dashboard's lock commands.
	Demo *demo.Demo
}

// Screen size limits: below the minimum, the dashboard asks for a larger window.
const (
	minWidth  = 64
	minHeight = 16
	wideWidth = 110 // from this width the detail panel sits beside the locks
)

// defaultTTL is the acquire form's TTL when Options.TTL is zero.
const defaultTTL = 10 * time.Second

// MinPoll and MaxPoll bound the poll interval: the fastest and slowest of the steps Faster and Slower take,
// which the command line checks too.
const (
	MinPoll = 100 * time.Millisecond
	MaxPoll = 30 * time.Second
)

// pollSteps are the poll intervals Faster and Slower step through, from MinPoll to MaxPoll.
var pollSteps = []time.Duration{MinPoll, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, MaxPoll}

// panelID names a focusable panel.
type panelID int

// The focusable panels, in the order NextPanel visits them.
const (
	focusMasters panelID = iota
	focusLocks
	focusOurs
	focusLog
	panelCount
)

// status is the one-line message under the panels: the outcome of the last action, or why it was refused.
type status struct {
	at    time.Time
	level level
	text  string
}

// quitState tracks quitting: releasing our locks, then the summary printed after the screen is restored.
type quitState struct {
	active  bool
	summary string
}

// Model is the dashboard. Create it with New; it implements tea.Model.
type Model struct {
	sh       *shared
	keys     KeyMap // live bindings: disabled while they would do nothing, so help shows what works now
	all      KeyMap // the bindings as given, to recognise a key whose binding is disabled and say why
	formKeys bindingList
	menuKeys bindingList

	mon      *monitor.Monitor
	readOnly bool
	title    string
	profile  string // sanitized; "" none
	prod     bool   // the profile is production
	interval time.Duration
	paused   bool
	ctx      context.Context
	cancel   context.CancelFunc

	width, height int
	lay           layout
	focus         panelID
	masters       *mastersPanel
	locks         *locksPanel
	detail        *detailPanel
	ours          *oursPanel
	log           *eventLog
	ops           *lockOps   // the write commands, with their form and confirmation
	demo          *demoView  // nil outside demo mode
	drill         *drillView // the full view of a lock or master, nil when closed
	logFull       bool       // the event log fills the body: a small window's way to read it
	showHelp      bool
	helpBox       *scrollBox // the full help, scrolling
	help          help.Model
	frame         int
	quit          quitState
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
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{
		all: o.Keys, keys: o.Keys, mon: o.Monitor, readOnly: o.ReadOnly,
		title: sanitize(o.Title, nameCap), interval: o.Poll, ctx: ctx, cancel: cancel, focus: focusLocks,
		profile: sanitize(o.Profile, nameCap), prod: o.Production,
	}
	th := defaultTheme().withProfile(o.ProfileColor, o.Production)
	m.sh = &shared{st: newStyles(th), keys: &m.keys, now: o.Now, readOnly: o.ReadOnly}
	m.masters = &mastersPanel{sh: m.sh}
	m.locks = newLocksPanel(m.sh)
	m.detail = &detailPanel{sh: m.sh}
	m.ours = &oursPanel{sh: m.sh}
	m.sh.log = &journal{}
	m.log = newEventLog(m.sh)
	m.ops = &lockOps{sh: m.sh, all: &m.all, locker: o.Locker, mon: o.Monitor, ctx: ctx, readOnly: o.ReadOnly,
		production: o.Production,
		ttl:        o.TTL, ours: m.ours, locks: m.locks, focus: &m.focus}
	m.help = help.New()
	m.help.Styles = m.sh.st.help
	m.helpBox = newScrollBox(m.sh)
	next := o.Keys.NextPanel
	next.SetHelp(next.Help().Key, "next field")
	m.formKeys = bindingList{o.Keys.Confirm, o.Keys.Cancel, next}
	run := o.Keys.Confirm
	run.SetHelp(run.Help().Key, "run")
	m.menuKeys = bindingList{run, o.Keys.Up, o.Keys.Down, o.Keys.Cancel}
	if o.Demo != nil {
		m.demo = newDemoView(o.Demo)
		m.sh.demo = m.demo
	} else {
		for _, b := range m.all.Demo.all() {
			b.SetEnabled(false) // never matched, never in help
		}
	}
	if o.ReadOnly {
		m.sh.log.add(logEntry{at: o.Now(), level: levelInfo,
			text: "read-only: acquiring, extending, releasing and deleting are disabled"})
	}
	m.syncKeys()
	return m
}

// Init starts the monitor loop, the tick and, in demo mode, the reading of the demo's events.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tick()}
	if m.mon != nil {
		cmds = append(cmds, startMonitor(m.ctx, m.mon))
	}
	if v := m.demo; v != nil {
		cmds = append(cmds, waitDemo(m.ctx, v.d, v.events, v.seen))
	}
	return tea.Batch(cmds...)
}

// Update routes a message: the size, then keys (to the open form or confirmation first, then the global keys,
// then the focused panel), then results and snapshots, each applied to the request or lock it answers.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
	case tea.KeyMsg:
		cmd = m.handleKeys(msg)
	case tea.MouseMsg:
		m.mouse(msg)
	case SnapshotMsg:
		m.apply(ingest(msg.Snapshot, m.sh.data))
	case monitorStartedMsg:
		cmd = waitSnapshot(msg.ch, m.sh.data)
	case monitorSnapshotMsg:
		m.apply(msg.data, msg.entries)
		cmd = waitSnapshot(msg.ch, m.sh.data)
	case monitorClosedMsg:
		if !m.quit.active {
			m.sh.logf(levelWarn, "", "monitor stopped: no more snapshots")
		}
	case tickMsg:
		m.frame++
		m.ops.refreshOurs()
		m.expireBanner()
		m.refreshDrill()
		cmd = tick()
	case DemoMsg:
		if m.demo != nil {
			m.applyDemo(msg)
		}
	case demoNewsMsg:
		m.applyDemo(msg.DemoMsg)
		cmd = waitDemo(m.ctx, m.demo.d, msg.ch, m.demo.seen)
	case demoClosedMsg:
		if p := m.demo.pending; p != nil { // no more events will come: the result waits no longer
			m.demo.pending = nil
			m.scenarioOver(p.name, p.res)
		}
		if !m.quit.active {
			m.sh.logf(levelWarn, "", "demo stopped: no more demo events")
		}
	case demoActionMsg:
		cmd = m.onDemoAction(msg)
	case scenarioResultMsg:
		m.onScenario(msg)
	case acquireProgressMsg, acquireResultMsg, extendResultMsg, releaseResultMsg, keeperMsg, keeperEndedMsg,
		deleteResultMsg:
		cmd, _ = m.ops.Update(msg)
	case copiedMsg:
		m.sh.setStatus(levelInfo, "copied "+msg.what+" (OSC 52: if nothing is pasted, the terminal does not allow it)")
	case quitMsg:
		cmd = m.onQuitReleased(msg)
	}
	m.syncKeys()
	return m, cmd
}

// apply makes a snapshot taken in (see ingest) the current one: logged, the locks panel re-sorted, and a
// pending delete confirmation withdrawn if its lock changed.
func (m *Model) apply(d *dashboard, entries []logEntry) {
	m.sh.data = d
	m.sh.log.add(entries...)
	m.locks.rebuild()
	m.relayout()
	m.refreshDrill()
	if c := m.ops.confirm; c != nil && !c.running {
		row := m.findRow(c.resource)
		switch {
		case row == nil:
			m.ops.confirm = nil
			m.sh.setStatus(levelWarn, "the lock is gone (released or expired): nothing deleted")
		case row.primary != c.primary:
			m.ops.confirm = nil
			m.sh.setStatus(levelWarn, "the lock changed holder while you confirmed: nothing deleted")
		}
	}
}

// findRow returns the current row of a raw resource, or nil.
func (m *Model) findRow(resource string) *lockRow {
	if m.sh.data == nil {
		return nil
	}
	locks := m.sh.data.locks
	lo, hi := 0, len(locks)
	for lo < hi { // rows are sorted by resource, as the monitor sorts them
		mid := (lo + hi) / 2
		if locks[mid].lv.Resource < resource {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(locks) && locks[lo].lv.Resource == resource {
		return &locks[lo]
	}
	for i := range locks { // a snapshot not sorted by resource
		if locks[i].lv.Resource == resource {
			return &locks[i]
		}
	}
	return nil
}

// handleKeys splits a run of characters that arrived in one message (Bubble Tea delivers fast typing, or
// keys sent by a script, that way) into single keys unless a text field is taking them, so "aq" acts as a
// then q instead of as no key at all.
func (m *Model) handleKeys(msg tea.KeyMsg) tea.Cmd {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.ops.form != nil || m.ops.confirm != nil ||
		m.locks.filtering || m.log.searching {
		return m.handleKey(msg)
	}
	cmds := make([]tea.Cmd, 0, len(msg.Runes))
	for _, r := range msg.Runes {
		cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// handleKey routes a key: an open form or confirmation first, then the filter field, help, the global keys,
// and finally the focused panel's navigation.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.all
	switch {
	case m.quit.active:
		if key.Matches(msg, k.Quit) && msg.Type != tea.KeyRunes {
			m.quit.summary = m.summaryNow("quit before releases finished")
			return tea.Quit
		}
		return nil
	case (m.ops.form != nil || m.ops.confirm != nil) && key.Matches(msg, k.Quit) && msg.Type != tea.KeyRunes:
		return m.startQuit() // ctrl+c quits from a dialog too; q is a letter there
	case m.ops.form != nil:
		return m.ops.formKey(msg)
	case m.ops.confirm != nil:
		return m.ops.confirmKey(msg)
	case m.demo != nil && m.demo.menu != nil:
		return m.menuKey(msg)
	case m.locks.filtering:
		return m.filterKey(msg)
	case m.log.searching:
		return m.searchKey(msg)
	case m.drill != nil:
		return m.drillKey(msg)
	case m.showHelp:
		switch {
		case key.Matches(msg, k.Quit):
			return m.startQuit()
		case key.Matches(msg, k.Help, k.Cancel):
			m.showHelp = false
		default:
			m.helpBox.Update(msg)
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.startQuit()
	case key.Matches(msg, k.Help):
		m.openHelp()
	case key.Matches(msg, k.Open):
		m.openDrill()
	case key.Matches(msg, k.NextPanel):
		m.cycleFocus(1)
	case key.Matches(msg, k.PrevPanel):
		m.cycleFocus(-1)
	case key.Matches(msg, k.Copy, k.CopyToken):
		return m.copySelected(key.Matches(msg, k.CopyToken))
	case key.Matches(msg, k.LogLock):
		m.toggleLogLock()
	case key.Matches(msg, k.Cancel) && m.logFull && !(m.focus == focusLog && m.log.query != ""):
		m.setLogFull(false)
	case m.log.key(msg, m.focus == focusLog):
	case m.locks.key(msg):
		if m.locks.filtering {
			m.focus = focusLocks // the filter takes the keyboard there
		}
	case key.Matches(msg, k.Pause):
		m.togglePause()
	case key.Matches(msg, k.Faster):
		m.stepInterval(-1)
	case key.Matches(msg, k.Slower):
		m.stepInterval(1)
	default:
		if cmd, ok := m.ops.key(msg); ok {
			return cmd
		}
		if cmd, ok := m.demoKey(msg); ok {
			return cmd
		}
		switch m.focus {
		case focusMasters:
			m.masters.Update(msg)
		case focusLocks:
			m.locks.Update(msg)
		case focusOurs:
			m.ours.Update(msg)
		case focusLog:
			m.log.Update(msg)
		}
	}
	return nil
}

// toggleLogLock narrows the event log to the selected lock's entries, or widens it to every lock's again.
func (m *Model) toggleLogLock() {
	if m.log.resource != "" {
		m.log.setResource("")
		m.sh.setStatus(levelInfo, "event log: every lock's entries")
		return
	}
	row := m.locks.selectedRow()
	if row == nil {
		m.sh.setStatus(levelWarn, "select a lock first: the event log narrows to the selected lock")
		return
	}
	m.log.setResource(row.lv.Resource)
	m.sh.setStatus(levelInfo, "event log: "+m.log.narrowed()+" ("+m.all.LogLock.Help().Key+" shows all again)")
}

// setLogFull shows the event log in place of the panels, with the focus, or puts it back. The screen opens it
// when the log has no room of its own (a small window).
func (m *Model) setLogFull(on bool) {
	m.logFull = on
	if on {
		m.focus = focusLog
	} else if !m.visible(focusLog) {
		m.focus = focusLocks
	}
	m.relayout()
}

// cycleFocus moves the focus by dir among the panels on screen.
func (m *Model) cycleFocus(dir int) {
	if m.logFull {
		m.setLogFull(false)
	}
	for range panelCount {
		m.focus = (m.focus + panelID(dir) + panelCount) % panelCount
		if m.visible(m.focus) {
			return
		}
	}
}

// visible reports whether a panel is on screen in the current layout.
func (m *Model) visible(p panelID) bool { return m.lay.visible(p) }

// filterKey routes a key to the filter field; the filter applies as it is typed.
func (m *Model) filterKey(msg tea.KeyMsg) tea.Cmd {
	p := m.locks
	return m.liveFieldKey(msg, &p.filter, &p.filtering, p.setFilter, p.Update)
}

// searchKey routes a key to the event log's search field; the search applies as it is typed.
func (m *Model) searchKey(msg tea.KeyMsg) tea.Cmd {
	l := m.log
	return m.liveFieldKey(msg, &l.search, &l.searching, l.setQuery, l.Update)
}

// liveFieldKey routes a key to a text field whose text applies as it is typed: Confirm keeps the text and
// gives the keyboard back, Cancel clears it, a key the field does not take goes to the panel (rest), and the
// quit keys still quit.
func (m *Model) liveFieldKey(msg tea.KeyMsg, f *field, editing *bool, apply func(string), rest func(tea.KeyMsg)) tea.Cmd {
	k := &m.all
	switch {
	case key.Matches(msg, k.Quit) && msg.Type != tea.KeyRunes:
		return m.startQuit()
	case key.Matches(msg, k.Confirm):
		*editing = false
	case key.Matches(msg, k.Cancel):
		*editing = false
		f.set("")
		apply("")
	case f.Update(msg):
		apply(f.String())
	default:
		rest(msg)
	}
	return nil
}

// unextendable says why lock o cannot be extended at now ("" when it can): its release was asked for, or the
// Redlock client gave it up after an extension failed with errors while its keys may still hold. releaseKey
// names the key that releases it.
func (o *ownLock) unextendable(now time.Time, releaseKey string) string {
	switch {
	case o.unconfirmed != "":
		return o.name + " is being released (release unconfirmed): " + releaseKey + " tries the release again"
	case o.extendFailed != "" && !o.held && o.left(now) > 0:
		return fmt.Sprintf("%s cannot be extended after its failed extension; it may hold for %s more: %s releases it",
			o.name, dur(o.left(now)), releaseKey)
	}
	return ""
}

// togglePause pauses or resumes polling.
func (m *Model) togglePause() {
	m.paused = !m.paused
	if m.mon != nil {
		m.mon.SetPaused(m.paused)
	}
	if m.paused {
		m.sh.setStatus(levelInfo, "polling paused")
	} else {
		m.sh.setStatus(levelInfo, "polling resumed")
	}
}

// stepInterval moves the poll interval one step faster (dir < 0) or slower (dir > 0).
func (m *Model) stepInterval(dir int) {
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
		m.sh.setStatus(levelInfo, "poll interval stays "+next.String())
		return
	}
	m.interval = next
	if m.mon != nil {
		m.mon.SetInterval(next)
	}
	m.sh.setStatus(levelInfo, "polling every "+next.String())
}

// startQuit releases every lock we hold (bounded in time) and then quits.
func (m *Model) startQuit() tea.Cmd {
	m.quit.active = true
	if m.ops.form != nil && m.ops.form.running {
		m.ops.form.cancel() // an acquire won as it is cancelled is released again (see acquireCmd)
	}
	m.ops.form, m.ops.confirm, m.showHelp, m.drill = nil, nil, false, nil
	if m.demo != nil {
		m.demo.menu = nil
	}
	if len(m.ours.locks) == 0 {
		m.quit.summary = m.summaryNow("")
		m.cancel()
		return tea.Quit
	}
	cmd := m.ops.issue("releasing", releaseAllCmd(m.ours.locks, m.sh.now()))
	if cmd == nil {
		m.quit.summary = m.summaryNow("")
		m.cancel()
		return tea.Quit
	}
	m.sh.setStatus(levelInfo, fmt.Sprintf("releasing %s before quitting…", plural(len(m.ours.locks), "lock")))
	return cmd
}

// onQuitReleased writes the summary and quits. A lock whose release was not confirmed and whose validity has
// not run out is still held: it stays ours, and the summary counts it.
func (m *Model) onQuitReleased(msg quitMsg) tea.Cmd {
	now := m.sh.now()
	released, gone := 0, 0
	for _, res := range msg.results {
		o := m.ours.find(res.lock)
		switch {
		case o == nil: // ended on a tick while quitting
			gone++
		case redlock.ProvesReleased(res.err):
			m.ops.endOwn(o)
			if errors.Is(res.err, redlock.ErrNotHeld) {
				gone++
			} else {
				released++
			}
		case o.left(now) == 0:
			m.ops.endOwn(o)
			gone++
		default:
			reason, _ := failure(res.err)
			o.unconfirmed = reason
			m.sh.logf(levelWarn, res.lock.Resource(), "release of %s unconfirmed after %s: %s", o.name,
				plural(res.attempts, "attempt"), reason)
		}
	}
	held, left := 0, time.Duration(0) // also counts a lock won by an acquire cancelled as the quit began
	for _, o := range m.ours.locks {
		if o.left(now) > 0 {
			held++
			left = max(left, o.left(now))
		}
	}
	s := "released " + plural(released, "lock")
	if gone > 0 {
		s += fmt.Sprintf(" (%d no longer held)", gone)
	}
	s += fmt.Sprintf("; %d still held", held)
	if held > 0 {
		s += fmt.Sprintf(": release unconfirmed, held until the TTL runs out (at most %s)", dur(left))
	}
	m.quit.summary = s
	m.cancel()
	return tea.Quit
}

// summaryNow describes the locks that may still hold, for a quit that released nothing; why explains a forced
// quit.
func (m *Model) summaryNow(why string) string {
	now := m.sh.now()
	held, unconfirmed := 0, 0
	for _, o := range m.ours.locks {
		if o.left(now) > 0 {
			held++
			if o.unconfirmed != "" {
				unconfirmed++
			}
		}
	}
	var s string
	switch {
	case m.readOnly:
		s = "read-only: no locks taken"
	case held == 0:
		s = "no locks held"
	default:
		s = fmt.Sprintf("released 0 locks; %d still held until the TTL runs out", held)
		if unconfirmed > 0 {
			s += fmt.Sprintf(", %d of them with the release unconfirmed", unconfirmed)
		}
	}
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}

// Summary is one line for the terminal after the screen is restored: what happened to the locks we held.
func (m *Model) Summary() string {
	if m.quit.summary != "" {
		return m.quit.summary
	}
	return m.summaryNow("")
}

// prefixed returns sep+s, or "" for an empty s.
func prefixed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// syncKeys enables the bindings that would do something now and disables the rest, so help lists what works.
func (m *Model) syncKeys() {
	m.keys = m.all
	k := &m.keys
	write := m.ops.writeBlocked("") == ""
	o, _ := m.ops.targetOwn()
	row := m.locks.selectedRow()
	k.Acquire.SetEnabled(write)
	k.Extend.SetEnabled(write && o != nil)
	k.Release.SetEnabled(write && o != nil)
	k.AutoExtend.SetEnabled(write && o != nil)
	k.Delete.SetEnabled(write && m.focus == focusLocks && row != nil && len(m.ops.foreignTokens(row)) > 0)
	if m.demo != nil {
		k.Demo.Dismiss.SetEnabled(m.demo.banner != nil)
		k.Demo.Story.SetEnabled(m.demo.banner != nil)
	}
}

// relayout computes the geometry for the current size and snapshot (arrange) and sizes the panels by it.
func (m *Model) relayout() {
	in := layoutInput{w: m.width, h: m.height, masters: 1, demo: m.demo != nil,
		violation: m.demo != nil && m.demo.banner != nil, logFull: m.logFull}
	if d := m.sh.data; d != nil {
		in.masters, in.warnings = max(len(d.masters), 1), len(d.warnings)
	}
	l := arrange(in)
	m.lay = l
	m.masters.SetSize(m.lay.size(focusMasters))
	m.locks.SetSize(m.lay.size(focusLocks))
	m.detail.SetSize(l.detail.w, l.detail.h)
	m.ours.SetSize(m.lay.size(focusOurs))
	m.log.SetSize(m.lay.size(focusLog))
	m.help.Width = m.width
	m.helpBox.SetSize(l.body.w, l.body.h)
	if m.showHelp {
		m.helpBox.SetLines(m.helpLines())
	}
	if m.drill != nil {
		m.drill.SetSize(l.body.w, l.body.h)
		m.refreshDrill()
	}
	if !m.visible(m.focus) {
		m.focus = focusLocks
	}
}
