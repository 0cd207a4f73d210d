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
	"strings"
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

// layout is the screen's geometry for the current size and snapshot.
type layout struct {
	tooSmall                     bool
	demoBarH, violationH         int // demo mode's line under the header; the violation banner
	bannerH, footerH, mastersH   int
	midH, bottomH                int // locks (and detail) row; our locks and log row (0: hidden)
	locksW, detailW, oursW, logW int // detailW 0: hidden
	bannerMore                   int // warnings not shown in the banner
}

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
	locker   *redlock.Client
	readOnly bool
	ttl      time.Duration
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
	form          *acquireForm
	confirm       *deleteConfirm
	demo          *demoView  // nil outside demo mode
	drill         *drillView // the full view of a lock or master, nil when closed
	showHelp      bool
	helpBox       *scrollBox // the full help, scrolling
	help          help.Model
	frame         int
	status        status
	reqs          uint64 // request counter: every acquire and delete request has its own id
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
		all: o.Keys, keys: o.Keys, mon: o.Monitor, locker: o.Locker, readOnly: o.ReadOnly, ttl: o.TTL,
		title: sanitize(o.Title, nameCap), interval: o.Poll, ctx: ctx, cancel: cancel, focus: focusLocks,
		profile: sanitize(o.Profile, nameCap), prod: o.Production,
	}
	th := defaultTheme().withProfile(o.ProfileColor, o.Production)
	m.sh = &shared{st: newStyles(th), keys: &m.keys, now: o.Now, readOnly: o.ReadOnly}
	m.masters = &mastersPanel{sh: m.sh}
	m.locks = newLocksPanel(m.sh)
	m.detail = &detailPanel{sh: m.sh}
	m.ours = &oursPanel{sh: m.sh}
	m.log = newEventLog(m.sh)
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
		m.log.add(logEntry{at: o.Now(), level: levelInfo,
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
			m.logf(levelWarn, "", "monitor stopped: no more snapshots")
		}
	case tickMsg:
		m.frame++
		m.refreshOurs()
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
		if !m.quit.active {
			m.logf(levelWarn, "", "demo stopped: no more demo events")
		}
	case demoActionMsg:
		cmd = m.onDemoAction(msg)
	case scenarioResultMsg:
		m.onScenario(msg)
	case acquireProgressMsg:
		cmd = m.onAcquireProgress(msg)
	case acquireResultMsg:
		m.onAcquired(msg)
	case extendResultMsg:
		m.onExtended(msg)
	case releaseResultMsg:
		m.onReleased(msg)
	case keeperMsg:
		cmd = m.onKeeper(msg)
	case keeperEndedMsg:
		m.onKeeperEnded(msg)
	case deleteResultMsg:
		m.onDeleted(msg)
	case copiedMsg:
		m.setStatus(levelInfo, "copied "+msg.what+" (OSC 52: if nothing is pasted, the terminal does not allow it)")
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
	m.log.add(entries...)
	m.locks.rebuild()
	m.relayout()
	m.refreshDrill()
	if c := m.confirm; c != nil && !c.running {
		row := m.findRow(c.resource)
		switch {
		case row == nil:
			m.confirm = nil
			m.setStatus(levelWarn, "the lock is gone (released or expired): nothing deleted")
		case row.primary != c.primary:
			m.confirm = nil
			m.setStatus(levelWarn, "the lock changed holder while you confirmed: nothing deleted")
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

// refreshOurs copies our locks' state (in memory) and logs what their keepers did. A lock whose release was
// not confirmed ends here when its validity runs out: its keys expire with their TTL.
func (m *Model) refreshOurs() {
	now := m.sh.now()
	var ended []*ownLock
	for _, o := range m.ours.locks {
		m.log.add(o.refresh(now)...)
		if o.unconfirmed != "" && o.busy == "" && o.left(now) == 0 {
			ended = append(ended, o)
		}
	}
	for _, o := range ended {
		m.endOwn(o)
		m.logf(levelWarn, o.lock.Resource(), "%s: its release was never confirmed and its validity ran out: the "+
			"lock has ended, keys left on masters expire with their TTL", o.name)
	}
}

// endOwn drops one of our locks that has ended (released, or run out), here and in the monitor.
func (m *Model) endOwn(o *ownLock) {
	m.ours.remove(o.lock)
	if m.mon != nil {
		m.mon.ForgetOwn(o.lock.Resource(), o.lock.Token())
	}
}

// handleKeys splits a run of characters that arrived in one message (Bubble Tea delivers fast typing, or
// keys sent by a script, that way) into single keys unless a text field is taking them, so "aq" acts as a
// then q instead of as no key at all.
func (m *Model) handleKeys(msg tea.KeyMsg) tea.Cmd {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.form != nil || m.confirm != nil ||
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
	case m.form != nil:
		return m.formKey(msg)
	case m.confirm != nil:
		return m.confirmKey(msg)
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
	case key.Matches(msg, k.Acquire):
		m.openAcquire()
	case key.Matches(msg, k.Extend):
		return m.extend()
	case key.Matches(msg, k.Release):
		return m.release()
	case key.Matches(msg, k.AutoExtend):
		return m.toggleAuto()
	case key.Matches(msg, k.Delete):
		m.openDelete()
	case key.Matches(msg, k.Filter) && m.focus == focusLog:
		m.log.searching = true
	case key.Matches(msg, k.Filter):
		m.focus = focusLocks
		m.locks.filtering = true
	case key.Matches(msg, k.Reverse):
		m.locks.reverse = !m.locks.reverse
		m.locks.rebuild()
		m.setStatus(levelInfo, "locks sorted by "+m.locks.sortName())
	case key.Matches(msg, k.Copy, k.CopyToken):
		return m.copySelected(key.Matches(msg, k.CopyToken))
	case key.Matches(msg, k.LogLevel):
		m.log.cycleLevel()
		if n := m.log.narrowed(); n != "" {
			m.setStatus(levelInfo, "event log: "+n)
		} else {
			m.setStatus(levelInfo, "event log: every entry")
		}
	case key.Matches(msg, k.Cancel) && m.focus == focusLog && m.log.query != "":
		m.log.search.set("")
		m.log.setQuery("")
	case key.Matches(msg, k.Sort):
		m.locks.cycleSort()
		m.setStatus(levelInfo, "locks sorted by "+m.locks.sortName())
	case key.Matches(msg, k.Pause):
		m.togglePause()
	case key.Matches(msg, k.Faster):
		m.stepInterval(-1)
	case key.Matches(msg, k.Slower):
		m.stepInterval(1)
	case key.Matches(msg, k.Cancel):
		if m.locks.query != "" {
			m.locks.filter.set("")
			m.locks.setFilter("")
		}
	default:
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

// cycleFocus moves the focus by dir among the panels on screen.
func (m *Model) cycleFocus(dir int) {
	for range panelCount {
		m.focus = (m.focus + panelID(dir) + panelCount) % panelCount
		if m.visible(m.focus) {
			return
		}
	}
}

// visible reports whether a panel is on screen in the current layout.
func (m *Model) visible(p panelID) bool {
	switch p {
	case focusOurs, focusLog:
		return m.lay.bottomH > 0
	}
	return true
}

// formKey routes a key to the acquire form.
func (m *Model) formKey(msg tea.KeyMsg) tea.Cmd {
	f, k := m.form, &m.all
	switch {
	case key.Matches(msg, k.Quit) && msg.Type != tea.KeyRunes:
		return m.startQuit()
	case key.Matches(msg, k.Cancel):
		if f.running {
			f.cancel()
			m.logf(levelInfo, f.resource.String(), "acquire of %s cancelled", sanitize(f.resource.String(), nameCap))
		}
		m.form = nil
	case f.running:
	case key.Matches(msg, k.Confirm):
		return m.submitAcquire()
	case f.edit(msg):
		f.err = ""
	case key.Matches(msg, k.NextPanel, k.PrevPanel, k.Up, k.Down):
		f.focus = 1 - f.focus
	}
	return nil
}

// confirmKey routes a key to the delete confirmation.
func (m *Model) confirmKey(msg tea.KeyMsg) tea.Cmd {
	c, k := m.confirm, &m.all
	switch {
	case key.Matches(msg, k.Quit) && msg.Type != tea.KeyRunes:
		return m.startQuit()
	case key.Matches(msg, k.Cancel):
		m.confirm = nil
	case c.running:
	case key.Matches(msg, k.Confirm):
		if !c.matches() {
			c.err = "the name does not match: nothing deleted"
			return nil
		}
		cmd := m.issue("force-deleting", deleteCmd(m.ctx, c.req, c.resource, c.tokens, c.hash))
		if cmd == nil {
			m.confirm = nil
			return nil
		}
		c.running = true
		m.logf(levelInfo, c.resource, "force-deleting %s (%s)…", c.name, strings.Join(c.shown, ", "))
		return cmd
	case c.input.Update(msg):
		c.err = ""
	}
	return nil
}

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

// targetOwn is the lock of ours that Extend, Release and AutoExtend act on: the one under the cursor of our
// locks panel, or ours for the resource under the locks panel's cursor. It says why when there is none.
func (m *Model) targetOwn() (*ownLock, string) {
	switch m.focus {
	case focusOurs:
		if o := m.ours.selected(); o != nil {
			return o, ""
		}
		return nil, "we hold no lock"
	case focusLocks:
		if row := m.locks.selectedRow(); row != nil {
			if o := m.ours.byResource(row.lv.Resource); o != nil {
				return o, ""
			}
			return nil, "the selected lock is not ours: select one of ours (" + m.all.NextPanel.Help().Key +
				" to our locks)"
		}
	}
	return nil, "select one of our locks first"
}

// openAcquire opens the acquire form.
func (m *Model) openAcquire() {
	if why := m.writeBlocked("acquiring"); why != "" {
		m.setStatus(levelWarn, why)
		return
	}
	m.form = newAcquireForm(m.sh, m.ttl)
}

// submitAcquire validates the form and issues the acquire request.
func (m *Model) submitAcquire() tea.Cmd {
	f := m.form
	resource, ttl, err := f.values()
	if err != nil {
		f.err = err.Error()
		return nil
	}
	m.reqs++
	ctx, cancel := context.WithCancel(m.ctx)
	progress := make(chan acquireProgressMsg, 1)
	cmd := m.issue("acquiring", acquireCmd(ctx, m.reqs, resource, ttl, progress))
	if cmd == nil {
		cancel()
		return nil
	}
	f.running, f.req, f.started, f.cancel, f.err, f.round = true, m.reqs, m.sh.now(), cancel, "", roundView{}
	f.attempt = 0
	m.ttl = ttl
	m.logf(levelInfo, resource, "acquiring %s for %v…", sanitize(resource, nameCap), ttl)
	return tea.Batch(cmd, waitAcquireProgress(progress))
}

// onAcquireProgress shows a failed round on the form that is still waiting for it, and waits for the next.
func (m *Model) onAcquireProgress(msg acquireProgressMsg) tea.Cmd {
	if f := m.form; f != nil && f.running && f.req == msg.req {
		f.attempt, f.round = msg.attempt, msg.round
	}
	return waitAcquireProgress(msg.next)
}

// onAcquired applies an acquire result to the form that asked for it; a lock won for a form since closed is
// still recorded as ours, so it is never forgotten.
func (m *Model) onAcquired(msg acquireResultMsg) {
	name := sanitize(msg.resource, nameCap)
	f := m.form
	current := f != nil && f.running && f.req == msg.req
	if current {
		f.running = false
		f.cancel()
	}
	switch {
	case msg.lock == nil && msg.cancelled:
		m.logf(levelInfo, msg.resource, "acquire of %s cancelled; nothing held", name)
		return
	case msg.lock == nil:
		reason, rv := failure(msg.err)
		m.logf(levelError, msg.resource, "acquire %s failed: %s%s", name, reason, prefixed(" · ", rv.detail()))
		if current {
			f.err, f.round = "not acquired: "+reason, rv
		} else {
			m.setStatus(levelError, "acquire "+name+" failed: "+reason)
		}
		return
	}
	now := m.sh.now()
	o := newOwnLock(msg.lock, now)
	m.ours.locks = append(m.ours.locks, o)
	if m.mon != nil {
		m.mon.RegisterOwn(msg.lock.Resource(), msg.lock.Token(), now)
	}
	if current {
		m.form = nil
	}
	if msg.cancelled { // won as it was cancelled, and the release that followed was not confirmed
		o.validUntil = now.Add(msg.validity)
		m.releaseUnconfirmed(o, msg.releaseErr, "acquire of "+name+" cancelled, but the lock was won and ")
		return
	}
	m.logf(levelInfo, msg.resource, "acquired %s, valid %s: %s · %s", name, dur(o.last.validity), o.last.summary(),
		o.last.detail())
	m.setStatus(levelInfo, fmt.Sprintf("acquired %s (valid %s)", name, dur(o.last.validity)))
}

// extend issues an extension of the target lock by its TTL.
func (m *Model) extend() tea.Cmd {
	if why := m.writeBlocked("extending"); why != "" {
		m.setStatus(levelWarn, why)
		return nil
	}
	o, why := m.targetOwn()
	if o == nil {
		m.setStatus(levelWarn, "extend: "+why)
		return nil
	}
	if o.busy != "" {
		m.setStatus(levelWarn, o.name+" is already "+o.busy)
		return nil
	}
	if why := o.unextendable(m.sh.now(), m.all.Release.Help().Key); why != "" {
		m.setStatus(levelWarn, "extend: "+why)
		return nil
	}
	cmd := m.issue("extending", extendCmd(m.ctx, o.lock, o.ttl))
	if cmd != nil {
		o.busy = "extending"
	}
	return cmd
}

// onExtended applies an extension result to the lock it was issued for, wherever the cursor is now.
func (m *Model) onExtended(msg extendResultMsg) {
	o := m.ours.find(msg.lock)
	if o == nil {
		m.logf(levelInfo, msg.lock.Resource(), "extend result for %s arrived after it was released; ignored",
			sanitize(msg.lock.Resource(), nameCap))
		return
	}
	o.busy = ""
	m.log.add(o.refresh(m.sh.now())...)
	switch {
	case msg.err == nil:
		o.extendFailed = ""
		m.logf(levelInfo, msg.lock.Resource(), "extended %s, valid %s: %s · %s", o.name, dur(o.last.validity),
			o.last.summary(), o.last.detail())
		m.setStatus(levelInfo, "extended "+o.name)
	case errors.Is(msg.err, redlock.ErrExtendLimit):
		reason, _ := failure(msg.err)
		m.logf(levelWarn, msg.lock.Resource(), "extend %s refused: %s", o.name, reason)
		m.setStatus(levelWarn, "extend "+o.name+" refused: "+reason)
	default:
		m.extendFailure(o, "extend", msg.err)
	}
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

// extendFailure applies a failed extension (what: "extend", "auto-extend") of lock o: lost when the masters'
// answers prove it, and otherwise still ours, with the validity it had, since its keys may still hold.
func (m *Model) extendFailure(o *ownLock, what string, err error) {
	reason, rv := failure(err)
	if extendLost(err) {
		o.lost = reason
		m.logf(levelError, o.lock.Resource(), "%s %s failed, LOST: %s%s", what, o.name, reason,
			prefixed(" · ", rv.detail()))
		m.setStatus(levelError, "lost "+o.name+": "+reason)
		return
	}
	now := m.sh.now()
	why := "failed"
	if rv.n > 0 {
		why = fmt.Sprintf("failed (%d of %d renewed, %d errors or timeouts)", rv.ok, rv.n, unanswered(rv))
	}
	o.extendFailed = why
	m.logf(levelWarn, o.lock.Resource(), "%s %s %s; not lost: its keys may still hold, valid %s more%s", what,
		o.name, why, dur(o.left(now)), prefixed(" · ", rv.detail()))
	m.setStatus(levelWarn, fmt.Sprintf("%s %s %s: not lost, valid %s more", what, o.name, why, dur(o.left(now))))
}

// release issues the release of the target lock.
func (m *Model) release() tea.Cmd {
	if why := m.writeBlocked("releasing"); why != "" {
		m.setStatus(levelWarn, why)
		return nil
	}
	o, why := m.targetOwn()
	if o == nil {
		m.setStatus(levelWarn, "release: "+why)
		return nil
	}
	if o.busy == "releasing" {
		m.setStatus(levelWarn, o.name+" is already releasing")
		return nil
	}
	cmd := m.issue("releasing", releaseCmd(m.ctx, o.lock, o.keeper))
	if cmd != nil {
		o.busy = "releasing"
	}
	return cmd
}

// onReleased applies a release to the lock it was issued for: a confirmed release ends the lock, an
// unconfirmed one keeps it ours, with its validity counting down, until a retry is confirmed or it runs out.
func (m *Model) onReleased(msg releaseResultMsg) {
	l := msg.lock
	name := sanitize(l.Resource(), nameCap)
	o := m.ours.find(l)
	if o == nil {
		m.logf(levelInfo, l.Resource(), "release result for %s arrived after it ended; ignored", name)
		return
	}
	o.busy, o.keeper = "", nil // the release stopped the keeper
	m.log.add(o.refresh(m.sh.now())...)
	if !releaseEnded(msg.err) {
		m.releaseUnconfirmed(o, msg.err, "")
		return
	}
	m.endOwn(o)
	rv := viewRound(l.LastRound())
	if r, ok := errRound(msg.err); ok {
		rv = viewRound(r)
	}
	switch {
	case msg.err == nil:
		m.logf(levelInfo, l.Resource(), "released %s: %s · %s", name, rv.summary(), rv.detail())
		m.setStatus(levelInfo, "released "+name)
	case errors.Is(msg.err, redlock.ErrNotHeld) && o.unconfirmed != "":
		m.logf(levelInfo, l.Resource(), "released %s: no master holds it any more (the unconfirmed release went "+
			"through, or it expired): %s", name, rv.detail())
		m.setStatus(levelInfo, "released "+name+": no master holds it any more")
	case errors.Is(msg.err, redlock.ErrNotHeld):
		m.logf(levelWarn, l.Resource(), "released %s: it was not held any more (expired): %s", name, rv.detail())
		m.setStatus(levelWarn, "released "+name+": it had already expired")
	default:
		m.logf(levelWarn, l.Resource(), "released %s: enough masters confirmed that it holds no quorum; "+
			"keys left on the other %s expire with their TTL: %s · %s", name, plural(unanswered(rv), "master"),
			rv.summary(), rv.detail())
		m.setStatus(levelWarn, fmt.Sprintf("released %s (%s did not confirm: keys there expire with their TTL)",
			name, plural(unanswered(rv), "master")))
	}
}

// releaseUnconfirmed records that the release of lock o was not confirmed: it stays ours until a retry is
// confirmed or its validity runs out. lead starts the log line ("acquire of x cancelled, but ...").
func (m *Model) releaseUnconfirmed(o *ownLock, err error, lead string) {
	reason := "not confirmed"
	var rv roundView
	if err != nil {
		reason, rv = failure(err)
	}
	o.unconfirmed = reason
	key := m.all.Release.Help().Key
	left := dur(o.left(m.sh.now()))
	m.logf(levelWarn, o.lock.Resource(), "%srelease of %s unconfirmed: %s; it may hold for %s more: %s retries%s",
		lead, o.name, reason, left, key, prefixed(" · ", rv.detail()))
	m.setStatus(levelWarn, fmt.Sprintf("release of %s unconfirmed: it may hold for %s more; %s retries", o.name,
		left, key))
}

// toggleAuto starts or stops auto-extension of the target lock.
func (m *Model) toggleAuto() tea.Cmd {
	if why := m.writeBlocked("auto-extending"); why != "" {
		m.setStatus(levelWarn, why)
		return nil
	}
	o, why := m.targetOwn()
	switch {
	case o == nil:
		m.setStatus(levelWarn, "auto-extend: "+why)
		return nil
	case o.autoBusy:
		m.setStatus(levelWarn, "auto-extension of "+o.name+" is already changing")
		return nil
	case o.keeper != nil:
		o.autoBusy = true
		return stopKeeper(o.lock, o.keeper)
	case !o.held || o.lost != "" || o.busy == "releasing":
		why := o.unextendable(m.sh.now(), m.all.Release.Help().Key)
		if why == "" {
			why = o.name + " is not held"
		}
		m.setStatus(levelWarn, "auto-extend: "+why)
		return nil
	}
	cmd := m.issue("auto-extending", startKeeperCmd(o.lock))
	if cmd != nil {
		o.autoBusy = true
	}
	return cmd
}

// onKeeper records a keeper started or stopped for the lock it belongs to.
func (m *Model) onKeeper(msg keeperMsg) tea.Cmd {
	o := m.ours.find(msg.lock)
	if o == nil {
		if msg.started { // the lock was released meanwhile: its keeper has no work
			return stopKeeper(msg.lock, msg.keeper)
		}
		return nil
	}
	o.autoBusy = false
	if msg.started {
		o.keeper = msg.keeper
		m.logf(levelInfo, msg.lock.Resource(), "auto-extend on for %s", o.name)
		m.setStatus(levelInfo, "auto-extend on for "+o.name)
		return watchKeeper(msg.lock, msg.keeper)
	}
	if o.keeper == msg.keeper {
		o.keeper = nil
	}
	m.logf(levelInfo, msg.lock.Resource(), "auto-extend off for %s", o.name)
	m.setStatus(levelInfo, "auto-extend off for "+o.name)
	return nil
}

// onKeeperEnded applies the failed extension its keeper reports, if any: lost only when the masters prove it.
func (m *Model) onKeeperEnded(msg keeperEndedMsg) {
	o := m.ours.find(msg.lock)
	if o == nil || o.keeper != msg.keeper {
		return
	}
	o.keeper = nil
	if msg.err == nil {
		return
	}
	m.log.add(o.refresh(m.sh.now())...)
	m.extendFailure(o, "auto-extend", msg.err)
}

// openDelete opens the confirmation to force-delete the selected lock, which must not be ours.
func (m *Model) openDelete() {
	row := m.locks.selectedRow()
	if row == nil || m.focus != focusLocks {
		m.setStatus(levelWarn, "delete: select a lock in the locks panel first")
		return
	}
	if why := m.writeBlocked("force-deleting"); why != "" {
		m.setStatus(levelWarn, why)
		return
	}
	tokens := m.foreignTokens(row)
	if len(tokens) == 0 {
		m.setStatus(levelWarn, "delete: "+row.name+" is ours: "+m.all.Release.Help().Key+" releases it")
		return
	}
	m.reqs++
	m.confirm = newDeleteConfirm(m.sh, m.reqs, row, tokens)
}

// foreignTokens are the distinct tokens of a lock row that are not ours.
func (m *Model) foreignTokens(row *lockRow) []string {
	var tokens []string
	for _, c := range row.lv.Masters {
		if !c.Present() {
			continue
		}
		mine := false
		for _, o := range m.ours.locks {
			if o.lock.Resource() == row.lv.Resource && o.lock.Token() == c.Token {
				mine = true
			}
		}
		seen := false
		for _, t := range tokens {
			seen = seen || t == c.Token
		}
		if !mine && !seen {
			tokens = append(tokens, c.Token)
		}
	}
	return tokens
}

// onDeleted logs a force-delete's rounds and closes its confirmation.
func (m *Model) onDeleted(msg deleteResultMsg) {
	if m.confirm != nil && m.confirm.req == msg.req {
		m.confirm = nil
	}
	name := sanitize(msg.resource, nameCap)
	deleted, gone := 0, 0
	for i, r := range msg.rounds {
		rv := viewRound(r)
		token := strings.TrimRight(fit(sanitize(msg.tokens[i], nameCap), shortToken), " ")
		deleted += r.OK
		switch err := msg.errs[i]; {
		case err == nil:
			m.logf(levelInfo, msg.resource, "deleted %s token %s from %s: %s", name, token,
				plural(r.OK, "master"), rv.detail())
		case errors.Is(err, redlock.ErrNotHeld):
			gone++
			m.logf(levelWarn, msg.resource, "delete %s token %s: no master held it any more", name, token)
		default:
			reason, _ := failure(err)
			m.logf(levelWarn, msg.resource, "delete %s token %s: %s · %s", name, token, reason, rv.detail())
		}
	}
	switch {
	case gone == len(msg.rounds):
		m.setStatus(levelWarn, "force-delete "+name+": nothing deleted: no master held those tokens any more")
	default:
		m.setStatus(levelInfo, fmt.Sprintf("force-delete %s: %s deleted", name, plural(deleted, "key")))
	}
}

// togglePause pauses or resumes polling.
func (m *Model) togglePause() {
	m.paused = !m.paused
	if m.mon != nil {
		m.mon.SetPaused(m.paused)
	}
	if m.paused {
		m.setStatus(levelInfo, "polling paused")
	} else {
		m.setStatus(levelInfo, "polling resumed")
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
		m.setStatus(levelInfo, "poll interval stays "+next.String())
		return
	}
	m.interval = next
	if m.mon != nil {
		m.mon.SetInterval(next)
	}
	m.setStatus(levelInfo, "polling every "+next.String())
}

// startQuit releases every lock we hold (bounded in time) and then quits.
func (m *Model) startQuit() tea.Cmd {
	m.quit.active = true
	if m.form != nil && m.form.running {
		m.form.cancel() // an acquire won as it is cancelled is released again (see acquireCmd)
	}
	m.form, m.confirm, m.showHelp, m.drill = nil, nil, false, nil
	if m.demo != nil {
		m.demo.menu = nil
	}
	if len(m.ours.locks) == 0 {
		m.quit.summary = m.summaryNow("")
		m.cancel()
		return tea.Quit
	}
	cmd := m.issue("releasing", releaseAllCmd(m.ours.locks, m.sh.now()))
	if cmd == nil {
		m.quit.summary = m.summaryNow("")
		m.cancel()
		return tea.Quit
	}
	m.setStatus(levelInfo, fmt.Sprintf("releasing %s before quitting…", plural(len(m.ours.locks), "lock")))
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
		case releaseEnded(res.err):
			m.endOwn(o)
			if errors.Is(res.err, redlock.ErrNotHeld) {
				gone++
			} else {
				released++
			}
		case o.left(now) == 0:
			m.endOwn(o)
			gone++
		default:
			reason, _ := failure(res.err)
			o.unconfirmed = reason
			m.logf(levelWarn, res.lock.Resource(), "release of %s unconfirmed after %s: %s", o.name,
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

// setStatus shows a message on the status line.
func (m *Model) setStatus(l level, text string) {
	m.status = status{at: m.sh.now(), level: l, text: text}
}

// logf adds a log entry about a raw resource ("" for none); args must already be sanitized.
func (m *Model) logf(l level, resource, format string, args ...any) {
	m.log.add(logEntry{at: m.sh.now(), level: l, resource: resource, text: fmt.Sprintf(format, args...)})
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
	write := m.writeBlocked("") == ""
	o, _ := m.targetOwn()
	row := m.locks.selectedRow()
	k.Acquire.SetEnabled(write)
	k.Extend.SetEnabled(write && o != nil)
	k.Release.SetEnabled(write && o != nil)
	k.AutoExtend.SetEnabled(write && o != nil)
	k.Delete.SetEnabled(write && m.focus == focusLocks && row != nil && len(m.foreignTokens(row)) > 0)
	if m.demo != nil {
		k.Demo.Dismiss.SetEnabled(m.demo.banner != nil)
		k.Demo.Story.SetEnabled(m.demo.banner != nil)
	}
}

// relayout computes the geometry for the current size and snapshot and sizes the panels.
func (m *Model) relayout() {
	w, h := m.width, m.height
	l := layout{tooSmall: w < minWidth || h < minHeight}
	if !l.tooSmall {
		nMasters, nWarn := 1, 0
		if d := m.sh.data; d != nil {
			nMasters, nWarn = max(len(d.masters), 1), len(d.warnings)
		}
		l.bannerH = min(nWarn, 3)
		if m.demo != nil {
			l.demoBarH = 1
			if m.demo.banner != nil {
				l.violationH = 3
			}
		}
		l.footerH = 1
		if h >= 24 {
			l.footerH = 2
		}
		l.mastersH = min(nMasters, 6) + 3
		rest := h - 1 - l.demoBarH - l.violationH - l.bannerH - l.footerH - l.mastersH
		for rest < 6 && l.mastersH > 4 {
			l.mastersH--
			rest++
		}
		for rest < 6 && l.bannerH > 1 {
			l.bannerH--
			rest++
		}
		for rest < 6 && l.violationH > 1 {
			l.violationH--
			rest++
		}
		l.bannerMore = nWarn - l.bannerH
		minBottom := 13 // room for the locks row before our locks and the log get a row
		if m.demo != nil {
			minBottom = 11 // the demo's log is half the show
		}
		if rest >= minBottom {
			l.bottomH = min(max(rest/3, 5), 12)
		}
		l.midH = rest - l.bottomH
		if w >= wideWidth {
			l.detailW = min(max(w/3, 40), 60)
		}
		l.locksW = w - l.detailW
		l.oursW = w / 2
		if m.demo != nil { // the demo's events are the story: the log gets more room
			l.oursW = w / 3
		}
		l.logW = w - l.oursW
	}
	m.lay = l
	m.masters.SetSize(w, l.mastersH)
	m.locks.SetSize(l.locksW, l.midH)
	m.detail.SetSize(l.detailW, l.midH)
	m.ours.SetSize(l.oursW, l.bottomH)
	m.log.SetSize(l.logW, l.bottomH)
	m.help.Width = w
	bodyH := l.mastersH + l.midH + l.bottomH
	m.helpBox.SetSize(w, bodyH)
	if m.showHelp {
		m.helpBox.SetLines(m.helpLines())
	}
	if m.drill != nil {
		m.drill.SetSize(w, bodyH)
		m.refreshDrill()
	}
	if !m.visible(m.focus) {
		m.focus = focusLocks
	}
}
