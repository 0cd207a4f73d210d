package demoview

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/panels"
)

// Demo mode (Options.Demo) shows the embedded masters' fault state and the simulated workload's events, and
// gives the presenter keys that break things on purpose. Nothing here calls the demo inside Update or View: its
// events arrive through a command re-armed after each batch, and every fault runs in a command of its own.
//
// Read-only mode (--read-only) does not apply to the demo's faults, workload and scenarios: they act on the
// embedded masters the program itself runs, not through the dashboard's lock commands, which stay blocked.

// The presenter's faults, as the keys apply them.
var (
	// latencySteps are the latencies the Latency key steps through: slow (each round trip well within a
	// simulated client's 150ms node timeout, so the master still counts, with less validity left), then past
	// it (the master fails every round), then none.
	latencySteps = []time.Duration{0, 50 * time.Millisecond, 200 * time.Millisecond}
	// rateSteps are the workload speeds the Faster and Slower keys step through.
	rateSteps = []float64{0.25, 0.5, 1, 2, 4, 8}
)

const (
	// clockJump is how far the ClockJump key moves a master's clock: past the longest TTL, so that every key
	// on it expires at once (Kleppmann's clock jump).
	clockJump = demo.MaxTTL + 500*time.Millisecond
	// fastClock is the clock rate of a master made fast: its keys expire twice as soon.
	fastClock = 2.0
	// bannerLinger is how long the violation banner stays once a scenario ends without a violation.
	bannerLinger = 5 * time.Second
	// maxDemoBatch bounds the events taken in by one message.
	maxDemoBatch = 128
)

// DemoMsg hands the dashboard news from the demo: its events in order, the violations found since the last
// message, and its state when the message was made (At): each master's faults, and whether the workload is
// paused and at what rate, and how many stale writes were refused. With Options.Demo set the dashboard reads the demo itself and needs none; a test
// sends constructed ones to show a fixed state. Outside demo mode it is ignored.
type DemoMsg struct {
	Events     []demo.Event
	Violations []demo.Violation
	Masters    []demo.MasterState
	Paused     bool
	Rate       float64
	Refused    int // stale writes the demo's fenced stores refused, as its detector counted them
	// Step is the step a scenario run step by step announced, nil when no such run is on.
	Step *demo.StepState
	// Ended is a scenario run step by step that has ended since, nil none: the story box shows its last step
	// (which the run only logs) until the presenter moves on. The dashboard sets it from the runs it starts.
	Ended *demo.ScenarioResult
	At    time.Time
}

// demoNewsMsg is a DemoMsg read from the demo's event channel; reading the next batch re-arms the command.
type demoNewsMsg struct {
	DemoMsg
	ch <-chan demo.Event
}

// demoClosedMsg tells that the demo's event channel closed: the demo stopped.
type demoClosedMsg struct{}

// demoAct is a presenter's fault or workload change. It runs in a command, against the demo as it is then (a
// toggle looks at the live state, so that keys pressed in a row each see the one before), and says what it did.
type demoAct func(d *demo.Demo) (string, error)

// refusal is an action that did nothing, and why: a warning, not an error.
type refusal string

// Error returns the reason.
func (r refusal) Error() string { return string(r) }

// demoActionMsg answers a presenter's fault or workload change: what it did, or why it failed, and the demo's
// state right after.
type demoActionMsg struct {
	done  string
	err   error
	state DemoMsg
}

// scenarioResultMsg answers a scenario run.
type scenarioResultMsg struct {
	name  string
	res   demo.ScenarioResult
	err   error
	state DemoMsg
}

// DemoView is the demo as the dashboard shows it, and the presenter's keys: the line under the header (the
// masters' addresses, the workload, the scenario running, the violations so far) and the violation banner,
// the faults it tells the masters panel, and a table from each presenter's binding to its action. Strings that
// reach the screen are sanitized when they enter.
type DemoView struct {
	kit.KeyTable
	d         *demo.Demo
	ctx       context.Context
	events    <-chan demo.Event
	masters   []demo.MasterState
	addrs     []string // sanitized
	at        time.Time
	paused    bool
	rate      float64
	clients   int
	resources int
	queue     []demoAct // actions waiting for the one running, in the order of the keys
	acting    bool      // an action is running

	seen        int // ID of the last violation taken in
	violations  int // how many were taken in
	refused     int // stale writes a fenced store refused (the detector's count): violations that fencing stopped
	banner      *violationBanner
	running     string             // the scenario running, "" for none
	mode        demo.RunMode       // how it runs
	step        *demo.StepState    // the step a stepped run announced (texts sanitized), nil none
	final       *demo.StepState    // a stepped run's last step, once it is over, until the presenter moves on
	stepping    bool               // the presenter's step is being performed
	stepStarted time.Time          // when the presenter's step began
	StoryH      int                // the lines the layout gives the stepped run's story
	PollNow     func()             // asks the monitor for a poll at once; nil without one
	routine     routineFailures    // the workload's routine failures of the last minute, left out of the log
	lastSeq     uint64             // the newest demo event taken in
	pending     *scenarioResultMsg // a run's result waiting for its last steps' events, so it is logged after them
	runSince    time.Time          // when it started
	outcomes    map[string]string  // how the last run of each scenario ended, by name
	master      int                // the selected master: the masters panel's cursor
	quitting    bool
	w, h        int
}

// NewDemoView reads the demo's initial state; New calls it once, before the program runs. Its commands run
// within ctx.
func NewDemoView(sh *kit.Shared, ctx context.Context, d *demo.Demo) *DemoView {
	v := &DemoView{KeyTable: kit.KeyTable{Shared: sh}, d: d, ctx: ctx, events: d.Events(), clients: len(d.Clients()),
		resources: len(d.Resources()), outcomes: map[string]string{}}
	v.Actions = append(v.faultActions(), v.otherActions()...)
	v.Actions = append(v.Actions, v.closeStoryAction())
	v.setState(readDemo(d))
	return v
}

// Init starts reading the demo's events.
func (v *DemoView) Init() tea.Cmd { return waitDemo(v.ctx, v.d, v.events, v.seen) }

// SetSize sets the size of the demo's lines: the first for the demo line, the others for the banner.
func (v *DemoView) SetSize(w, h int) { v.w, v.h = w, h }

// Update applies the presenter's keys, takes in the demo's news and the results of the presenter's actions
// and scenarios, lets the banner go when its time is up, and takes in the selected master.
func (v *DemoView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v, v.Run(msg)
	case kit.StateMsg:
		v.master = msg.Master
	case kit.QuittingMsg:
		v.quitting = true
	case kit.TickMsg:
		v.expireBanner()
		v.routine.prune(v.Shared.Now())
	case DemoMsg:
		v.applyDemo(msg)
	case demoNewsMsg:
		v.applyDemo(msg.DemoMsg)
		return v, waitDemo(v.ctx, v.d, msg.ch, v.seen)
	case demoClosedMsg:
		if p := v.pending; p != nil { // no more events will come: the result waits no longer
			v.pending = nil
			v.scenarioOver(p.name, p.res)
		}
		if !v.quitting {
			v.Shared.Logf(monitor.SeverityWarning, "", "demo stopped: no more demo events")
		}
	case demoActionMsg:
		return v, v.onDemoAction(msg)
	case scenarioResultMsg:
		v.onScenario(msg)
	case kit.RunScenarioMsg:
		return v, v.runScenario(msg.Name, msg.Mode)
	case stepDoneMsg:
		v.onStepDone(msg)
	}
	return v, nil
}

// Violated reports whether the violation banner is up: the header never says OK beside it.
func (v *DemoView) Violated() bool { return v.banner != nil }

// readDemo reads the demo's state.
func readDemo(d *demo.Demo) DemoMsg {
	msg := DemoMsg{Masters: d.Masters(), Paused: d.Paused(), Rate: d.Rate(), Refused: d.RefusedWrites(), At: time.Now()}
	if s, ok := d.Stepping(); ok {
		msg.Step = &s
	}
	return msg
}

// setState takes in the state part of msg, and tells the masters panel their faults.
func (v *DemoView) setState(msg DemoMsg) {
	v.masters, v.paused, v.rate, v.refused, v.at = msg.Masters, msg.Paused, msg.Rate, msg.Refused, msg.At
	v.step = sanitizeStep(msg.Step)
	v.addrs = make([]string, len(msg.Masters))
	for i, s := range msg.Masters {
		v.addrs[i] = kit.Sanitize(s.Addr, kit.NameCap)
	}
	v.Shared.Tell(kit.FaultsMsg{Masters: msg.Masters, At: msg.At})
}

// demoMaster returns the state of master i, or nil.
func (v *DemoView) demoMaster(i int) *demo.MasterState {
	if i < 0 || i >= len(v.masters) {
		return nil
	}
	return &v.masters[i]
}

// waitDemo reads the next batch of demo events: it waits for one, takes those already queued behind it, and
// reads the demo's state and the violations after since (the last one taken in). The dashboard re-arms it
// after each batch; it ends with the dashboard's context.
func waitDemo(ctx context.Context, d *demo.Demo, ch <-chan demo.Event, since int) tea.Cmd {
	return func() tea.Msg {
		var first demo.Event
		select {
		case e, ok := <-ch:
			if !ok {
				return demoClosedMsg{}
			}
			first = e
		case <-ctx.Done():
			return nil
		}
		events := []demo.Event{first}
	batch:
		for len(events) < maxDemoBatch {
			select {
			case e, ok := <-ch:
				if !ok {
					break batch
				}
				events = append(events, e)
			default:
				break batch
			}
		}
		msg := readDemo(d)
		msg.Events = events
		for _, e := range events {
			if e.Kind == demo.EventViolation { // the demo keeps a violation before it logs it
				msg.Violations = violationsAfter(d, since)
				break
			}
		}
		return demoNewsMsg{DemoMsg: msg, ch: ch}
	}
}

// violationsAfter returns the demo's violations numbered after id.
func violationsAfter(d *demo.Demo, id int) []demo.Violation {
	var out []demo.Violation
	for _, v := range d.Violations() {
		if v.ID > id {
			out = append(out, v)
		}
	}
	return out
}

// demoAction is the one place the presenter's faults and workload changes leave the dashboard. Each runs in a
// command, since some block briefly, one at a time in the order of the keys, so that a toggle pressed twice
// undoes itself. Read-only mode does not stop them (see the top of this file).
func (v *DemoView) demoAction(act demoAct) tea.Cmd {
	v.queue = append(v.queue, act)
	if v.acting {
		return nil
	}
	return v.nextAction()
}

// nextAction starts the first queued action, if any.
func (v *DemoView) nextAction() tea.Cmd {
	if len(v.queue) == 0 || v.quitting {
		v.acting, v.queue = false, nil
		return nil
	}
	act, d := v.queue[0], v.d
	v.queue, v.acting = v.queue[1:], true
	return func() tea.Msg {
		done, err := act(d)
		return demoActionMsg{done: done, err: err, state: readDemo(d)}
	}
}

// scenarioCmd runs a scenario in mode; it blocks for the length of the story, and ends early when ctx does.
func scenarioCmd(ctx context.Context, d *demo.Demo, name string, mode demo.RunMode) tea.Cmd {
	return func() tea.Msg {
		res, err := d.RunScenarioAs(ctx, name, mode)
		return scenarioResultMsg{name: name, res: res, err: err, state: readDemo(d)}
	}
}

// applyDemo takes in news from the demo: its state, its events as log entries, and new violations.
func (v *DemoView) applyDemo(msg DemoMsg) {
	v.setState(msg)
	if msg.Ended != nil {
		v.final = finalStep(*msg.Ended)
	}
	entries := make([]kit.LogEntry, 0, len(msg.Events))
	for _, e := range msg.Events {
		v.lastSeq = max(v.lastSeq, e.Seq)
		if !v.routine.countIfRoutine(e) {
			entries = append(entries, demoEntry(e))
		}
	}
	v.routine.prune(v.Shared.Now())
	v.Shared.TellLog(entries...)
	for _, vi := range msg.Violations {
		v.takeViolation(vi)
	}
	if p := v.pending; p != nil && v.lastSeq >= lastStep(p.res) {
		v.pending = nil
		v.scenarioOver(p.name, p.res)
	}
}

// lastStep is the sequence number of a scenario run's last step, 0 when it logged none.
func lastStep(res demo.ScenarioResult) uint64 {
	if len(res.Steps) == 0 {
		return 0
	}
	return res.Steps[len(res.Steps)-1].Seq
}

// demoEntry is the log entry of a demo event: its record's (the demo's masters are named in its text).
func demoEntry(e demo.Event) kit.LogEntry { return kit.EntryOf(e.Record(nil)) }

// violationBanner is the violation shown at the top of the screen until dismissed; its strings are sanitized.
type violationBanner struct {
	id                   int
	kind, resource, text string
	first, second        string // client names
	firstTok, secondTok  string // short tokens
	at                   time.Time
	clearAt              time.Time // zero: stays until dismissed
}

// takeViolation shows a violation not seen before in the banner and logs the story that led to it.
func (v *DemoView) takeViolation(vi demo.Violation) {
	if vi.ID <= v.seen {
		return
	}
	v.seen = vi.ID
	v.violations++
	short := func(tok string) string {
		return strings.TrimRight(kit.Fit(kit.Sanitize(tok, kit.NameCap), kit.ShortToken), " ")
	}
	v.banner = &violationBanner{
		id: vi.ID, kind: kit.Sanitize(string(vi.Kind), kit.NameCap), resource: kit.Sanitize(vi.Resource, kit.NameCap),
		text: kit.Sanitize(vi.Text, kit.TextCap), first: kit.Sanitize(vi.First.Client, kit.NameCap),
		second: kit.Sanitize(vi.Second.Client, kit.NameCap), firstTok: short(vi.First.Token),
		secondTok: short(vi.Second.Token), at: vi.Time,
	}
	b := v.banner
	v.Shared.TellLog(kit.LogEntry{At: vi.Time, Level: monitor.SeverityError, Resource: vi.Resource,
		Text: StoryHead(b.id) + fmt.Sprintf("(%s) on %s: %s and %s; how it came about (%s, oldest first):", b.kind,
			b.resource, b.first, b.second, kit.Plural(len(vi.Events), "event"))})
	for _, e := range vi.Events {
		entry := demoEntry(e)
		entry.Resource = "" // the lock's own entries are already in the log
		entry.Text = fmt.Sprintf("#%d │ %s", b.id, entry.Text)
		v.Shared.TellLog(entry)
	}
}

// StoryHead starts the log entry that heads the story of violation id.
func StoryHead(id int) string { return fmt.Sprintf("violation #%d ", id) }

// masterFault is a presenter key that acts on one master of the demo: given its state, its index and its
// number (from 1), it changes it and says what it did.
type masterFault func(d *demo.Demo, s demo.MasterState, i, n int) (string, error)

// masterFaults is the table from each presenter's binding that acts on the selected master to what it does.
func masterFaults(k *kit.DemoKeyMap) []struct {
	binding *key.Binding
	act     masterFault
} {
	crashKey, freezeKey := k.Crash.Help().Key, k.Freeze.Help().Key
	return []struct {
		binding *key.Binding
		act     masterFault
	}{
		{&k.Crash, func(d *demo.Demo, s demo.MasterState, i, n int) (string, error) {
			if s.Down {
				return fmt.Sprintf("master %d started at once, empty", n), d.StartMaster(i)
			}
			return fmt.Sprintf("master %d crashed: its keys are lost; %s starts it, empty", n, crashKey), d.StopMaster(i)
		}},
		{&k.Restart, func(d *demo.Demo, _ demo.MasterState, i, n int) (string, error) {
			return fmt.Sprintf("master %d restarted at once, empty: the locks it held lost a vote", n), d.RestartMaster(i, false)
		}},
		{&k.DelayedRestart, func(d *demo.Demo, s demo.MasterState, i, n int) (string, error) {
			if !s.RestartAt.IsZero() {
				return "", refusal(fmt.Sprintf("master %d is already waiting to restart", n))
			}
			return fmt.Sprintf("master %d crashed; it restarts empty in %v, once every lock it held has expired", n,
				demo.RestartDelay), d.RestartMaster(i, true)
		}},
		{&k.Freeze, func(d *demo.Demo, s demo.MasterState, i, n int) (string, error) {
			switch {
			case s.Down:
				return "", refusal(fmt.Sprintf("master %d is down: there is nothing to freeze", n))
			case s.Paused:
				return fmt.Sprintf("master %d thawed: what queued up is answered now", n), d.SetMasterPaused(i, false)
			}
			return fmt.Sprintf("master %d frozen: nothing is answered until %s thaws it", n, freezeKey),
				d.SetMasterPaused(i, true)
		}},
		{&k.Latency, func(d *demo.Demo, s demo.MasterState, i, n int) (string, error) {
			next := latencySteps[0]
			for _, l := range latencySteps {
				if l > s.Latency {
					next = l
					break
				}
			}
			if next == 0 {
				return fmt.Sprintf("master %d: latency removed", n), d.SetMasterLatency(i, 0)
			}
			return fmt.Sprintf("master %d: %v latency each way to the clients", n, next), d.SetMasterLatency(i, next)
		}},
		{&k.Partition, func(d *demo.Demo, s demo.MasterState, i, n int) (string, error) {
			if s.Partitioned {
				return fmt.Sprintf("master %d: partition healed", n), d.SetMasterPartitioned(i, false)
			}
			return fmt.Sprintf("master %d partitioned from the clients", n), d.SetMasterPartitioned(i, true)
		}},
		{&k.ClockJump, func(d *demo.Demo, _ demo.MasterState, i, n int) (string, error) {
			return fmt.Sprintf("master %d's clock jumped %v ahead: its keys expired", n, clockJump),
				d.JumpMasterClock(i, clockJump)
		}},
		{&k.ClockFast, func(d *demo.Demo, s demo.MasterState, i, n int) (string, error) {
			rate := fastClock
			if s.ClockRate != 1 {
				rate = 1
			}
			return fmt.Sprintf("master %d's clock runs at %g× real time", n, rate), d.SetMasterClockRate(i, rate)
		}},
	}
}

// faultActions are the presenter's keys that act on the selected master: the masters panel's cursor, which
// the number keys move.
func (v *DemoView) faultActions() []kit.Action {
	var out []kit.Action
	for _, f := range masterFaults(&v.Shared.Keys.Demo) {
		out = append(out, kit.Action{Binding: f.binding,
			Can: func() string {
				if v.demoMaster(v.target()) == nil {
					return "no master to act on"
				}
				return ""
			},
			Do: func(tea.KeyMsg) tea.Cmd {
				i := v.target()
				return v.demoAction(func(d *demo.Demo) (string, error) {
					ms := d.Masters()
					if i >= len(ms) {
						return "", refusal(fmt.Sprintf("there is no master %d", i+1))
					}
					return f.act(d, ms[i], i, i+1)
				})
			}})
	}
	return out
}

// target is the master the faults hit: the selected one, within the demo's masters.
func (v *DemoView) target() int { return min(max(v.master, 0), max(len(v.masters)-1, 0)) }

// otherActions are the presenter's other keys, each with what it does.
func (v *DemoView) otherActions() []kit.Action {
	k := &v.Shared.Keys.Demo
	rate := func(msg tea.KeyMsg) tea.Cmd {
		faster := key.Matches(msg, k.Faster)
		return v.demoAction(func(d *demo.Demo) (string, error) {
			cur := d.Rate()
			next, ok := stepRate(cur, faster)
			if !ok {
				return "", refusal(fmt.Sprintf("workload rate stays %g×", cur))
			}
			return fmt.Sprintf("workload rate %g×", d.SetRate(next)), nil
		})
	}
	return []kit.Action{
		{Binding: &k.Pick, Do: v.pick},
		{Binding: &k.GCPause, Do: func(tea.KeyMsg) tea.Cmd {
			return v.demoAction(func(d *demo.Demo) (string, error) {
				name, err := d.PauseClient(-1)
				return kit.Sanitize(name, kit.NameCap) + " will freeze holding its lock, past its TTL (a GC pause)", err
			})
		}},
		{Binding: &k.Workload, Do: func(tea.KeyMsg) tea.Cmd {
			return v.demoAction(func(d *demo.Demo) (string, error) {
				if d.Paused() {
					d.SetPaused(false)
					return "workload resumed", nil
				}
				d.SetPaused(true)
				return "workload paused: clients finish what they hold, then wait", nil
			})
		}},
		{Binding: &k.Faster, Do: rate},
		{Binding: &k.Slower, Do: rate},
		{Binding: &k.Scenarios, Do: func(tea.KeyMsg) tea.Cmd {
			v.Shared.Tell(kit.OpenModalMsg{M: newScenarioMenu(v.Shared, v.scenarios())})
			return nil
		}},
		v.stepAction(),
		{Binding: &k.Reset, Do: func(tea.KeyMsg) tea.Cmd {
			return v.demoAction(func(d *demo.Demo) (string, error) {
				return "every master back to normal: up, thawed, reachable, no latency, clocks at real time",
					d.ResetFaults()
			})
		}},
		{Binding: &k.Story, Can: func() string {
			if v.banner == nil {
				return "no violation in the banner"
			}
			return ""
		}, Do: func(tea.KeyMsg) tea.Cmd {
			v.Shared.Tell(kit.StoryMsg{ID: v.banner.id})
			return nil
		}},
		{Binding: &k.Dismiss, When: func() bool { return v.banner != nil }, Do: func(tea.KeyMsg) tea.Cmd {
			v.banner = nil
			v.Shared.TellStatus(monitor.SeverityInfo, "violation banner dismissed; the story stays in the event log")
			return nil
		}},
	}
}

// pick selects a master by its number: the first of the Pick keys picks the first master.
func (v *DemoView) pick(msg tea.KeyMsg) tea.Cmd {
	p := slices.Index(v.Shared.Keys.Demo.Pick.Keys(), msg.String())
	if p < 0 || p >= len(v.masters) {
		v.Shared.TellStatus(monitor.SeverityWarning, fmt.Sprintf("there is no master %d", p+1))
		return nil
	}
	v.Shared.Tell(kit.PickMasterMsg{I: p})
	v.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("master %d selected (%s): faults act on it", p+1, v.addrs[p]))
	return nil
}

// stepRate returns the workload rate one step faster or slower than cur, and false at the end of the steps.
func stepRate(cur float64, faster bool) (float64, bool) {
	if faster {
		for _, r := range rateSteps {
			if r > cur {
				return r, true
			}
		}
		return cur, false
	}
	for j := len(rateSteps) - 1; j >= 0; j-- {
		if rateSteps[j] < cur {
			return rateSteps[j], true
		}
	}
	return cur, false
}

// onDemoAction applies the result of a fault or workload change, and starts the next one queued.
func (v *DemoView) onDemoAction(msg demoActionMsg) tea.Cmd {
	v.setState(msg.state)
	var r refusal
	switch {
	case errors.As(msg.err, &r):
		v.Shared.TellStatus(monitor.SeverityWarning, kit.Sanitize(r.Error(), kit.TextCap))
	case msg.err != nil:
		text := kit.Sanitize(msg.err.Error(), kit.TextCap)
		v.Shared.Logf(monitor.SeverityError, "", "demo: %s", text)
		v.Shared.TellStatus(monitor.SeverityError, text)
	default:
		v.Shared.TellStatus(monitor.SeverityInfo, msg.done)
	}
	return v.nextAction()
}

// runScenario starts the scenario the menu chose in mode (the menu runs none while one runs), with the event
// log showing its newest entries, where the steps come.
func (v *DemoView) runScenario(name string, mode demo.RunMode) tea.Cmd {
	v.running, v.mode, v.runSince, v.final = name, mode, v.Shared.Now(), nil
	v.Shared.Tell(v.scenarios())
	v.Shared.Tell(kit.LogNewestMsg{})
	v.Shared.TellStatus(monitor.SeverityInfo, "scenario "+name+" "+modeText(mode, v.Shared.Keys.Demo.Step.Help().Key))
	return scenarioCmd(v.ctx, v.d, name, mode)
}

// scenarios is what the scenario menu shows of the runs: the one running, and how the last of each ended.
func (v *DemoView) scenarios() kit.ScenariosMsg {
	return kit.ScenariosMsg{Running: v.running, Outcomes: maps.Clone(v.outcomes)}
}

// onScenario shows how a scenario run ended: the violation in the banner, or its absence, which lets a
// banner from before go after a few seconds.
func (v *DemoView) onScenario(msg scenarioResultMsg) {
	v.running, v.stepping = "", false
	v.Shared.Tell(v.scenarios())
	v.setState(msg.state)
	if v.mode == demo.StepByStep && !v.quitting {
		v.final = finalStep(msg.res)
	}
	if msg.err != nil {
		if v.quitting {
			return
		}
		text := kit.Sanitize(msg.err.Error(), kit.TextCap)
		v.Shared.Logf(monitor.SeverityError, demo.ScenarioResource, "%s", text)
		v.Shared.TellStatus(monitor.SeverityError, text)
		return
	}
	if lastStep(msg.res) > v.lastSeq { // its last steps are still on their way through the event channel
		v.pending = &msg
		return
	}
	v.scenarioOver(msg.name, msg.res)
}

// scenarioOver logs how a scenario run ended, once its steps are in the log, and shows it in the status line.
func (v *DemoView) scenarioOver(name string, res demo.ScenarioResult) {
	for _, vi := range res.Violations {
		v.takeViolation(vi)
	}
	outcome := "no violation"
	if n := res.Refused(); n > 0 {
		outcome += fmt.Sprintf(" (the store refused %s)", kit.Plural(n, "stale write"))
	}
	if res.Violated {
		outcome = fmt.Sprintf("VIOLATION (%s)", kit.Sanitize(string(res.Violations[0].Kind), kit.NameCap))
	}
	v.outcomes[name] = outcome
	v.Shared.Tell(v.scenarios())
	story := "as the story says"
	if !res.Expected {
		story = "NOT as the story says"
	}
	text := fmt.Sprintf("scenario %s over in %s: %s, %s", name, vocab.ShortDuration(res.Duration), outcome, story)
	lvl := monitor.SeverityInfo
	if res.Violated || !res.Expected {
		lvl = monitor.SeverityError
	}
	if !res.Violated && v.banner != nil {
		v.banner.clearAt = v.Shared.Now().Add(bannerLinger)
	}
	v.Shared.Logf(lvl, demo.ScenarioResource, "%s", text)
	v.Shared.TellStatus(lvl, text)
}

// expireBanner hides the violation banner once its time after a clean scenario is up.
func (v *DemoView) expireBanner() {
	if v.banner != nil && !v.banner.clearAt.IsZero() && !v.Shared.Now().Before(v.banner.clearAt) {
		v.banner = nil
	}
}

// ScenarioMenu is the small list of scripted scenarios, with the story of the one under the cursor and how
// the last run of each ended: a modal dialog. It runs the scenario chosen (runScenarioMsg) unless one runs.
type ScenarioMenu struct {
	kit.ModalBase
	list     []demo.Scenario
	cursor   int
	running  string            // the scenario running, "" none
	outcomes map[string]string // how the last run of each scenario ended, by name
}

// newScenarioMenu returns the menu with the cursor on the first scenario, showing the runs as in s.
func newScenarioMenu(sh *kit.Shared, s kit.ScenariosMsg) *ScenarioMenu {
	run := sh.Keys.Confirm
	run.SetHelp(run.Help().Key, "run")
	step, slow := sh.Keys.Demo.Step, sh.Keys.Demo.Slower
	step.SetHelp(step.Help().Key, "step by step")
	slow.SetHelp(slow.Help().Key, "slow motion")
	keys := []key.Binding{run, step, slow, sh.Keys.Up, sh.Keys.Down, sh.Keys.Close}
	return &ScenarioMenu{ModalBase: kit.ModalBase{Shared: sh, Where: kit.LayerDialog, Keys: keys}, list: demo.Scenarios(),
		running: s.Running, outcomes: s.Outcomes}
}

// selected returns the scenario under the cursor.
func (s *ScenarioMenu) selected() demo.Scenario { return s.list[s.cursor] }

// Update moves the cursor, runs the scenario under it (closing the menu) or closes, and keeps up with the runs.
func (s *ScenarioMenu) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case kit.ScenariosMsg:
		s.running, s.outcomes = msg.Running, msg.Outcomes
	case tea.KeyMsg:
		k := s.Shared.Keys
		switch {
		case key.Matches(msg, k.Close, k.Demo.Scenarios):
			return nil, nil
		case key.Matches(msg, k.Confirm, k.Demo.Step, k.Demo.Slower) && s.running != "":
			s.Shared.TellStatus(monitor.SeverityWarning, "scenario "+s.running+" is still running")
		case key.Matches(msg, k.Confirm, k.Demo.Step, k.Demo.Slower):
			s.Shared.Tell(kit.RunScenarioMsg{Name: s.selected().Name, Mode: menuMode(k, msg)})
			return nil, nil
		default:
			s.cursor = panels.MoveCursor(k, msg, s.cursor, len(s.list), len(s.list))
		}
	}
	return s, nil
}
