package demo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// Scenario is a scripted failure story from the seeds, offered in a menu.
type Scenario struct {
	Name        string // what RunScenario takes, such as "crash-restart"
	Title       string // a short title for the menu
	Description string // the story: what happens and what it shows
	Safe        bool   // the safeguard is applied: the run should end without a violation
	Steps       int    // how many steps its story logs, the last ("over") included
}

// ScenarioResult is how a scenario run ended.
type ScenarioResult struct {
	Scenario   Scenario
	Violated   bool        // mutual exclusion was violated on the scenario's resource
	Expected   bool        // the run ended as the story says: a violation unless Scenario.Safe
	Violations []Violation // the violations on the scenario's resource during the run
	Steps      []Event     // the run's steps, as logged
	Duration   time.Duration
	// Store is every write the fenced store was asked for, accepted or refused, in the fenced stories; nil
	// in the others.
	Store []testbed.StoreWrite
}

// ScenarioResource is the resource the scenarios lock; the workload does not
// use it.
const ScenarioResource = "ledger:settle"

// scenarioTTL is the TTL of the scenarios' locks when they run at the demo's pace.
const scenarioTTL = MaxTTL

// driftFactor is the clock drift allowance of the scenarios' clients, as a
// fraction of the TTL (redlock's default, said explicitly since the clock
// scenarios depend on it).
const driftFactor = 0.01

// victim is the master the crash and clock scenarios break: master 3, the
// one A's and B's majorities share.
const victim = 2

// The masters A and B can reach in the crash and clock scenarios.
var (
	reachA   = []int{0, 1, 2}
	reachB   = []int{2, 3, 4}
	reachAll = []int{0, 1, 2, 3, 4}
)

// scripted is a scenario with its script.
type scripted struct {
	Scenario
	script func(*scenarioRun) error
}

// scenarios is the menu.
var scenarios = []scripted{
	{Scenario{
		Name:  "replication-race",
		Steps: 7,
		Title: "Replication race: one primary and its replica",
		Description: "The reason Redlock exists. A locks on one Redis primary (master 3) whose replica (master 4) " +
			"gets writes asynchronously. The primary crashes before sending A's key; the replica is promoted and " +
			"grants B the same lock while A still holds it: a violation. Embedded masters cannot replicate: the " +
			"demo copies the primary's keys to master 4 two seconds after each write, and the crash comes first.",
	}, func(r *scenarioRun) error { return r.replicationRace() }},
	{Scenario{
		Name:  "replication-race-redlock",
		Steps: 6,
		Title: "Replication race against Redlock on five masters (safe)",
		Description: "The same fault against Redlock: A holds the lock on all five masters; master 3 crashes " +
			"before replicating A's key and its replica takes its place without it (the demo brings master 3 " +
			"back empty). A's key lives on in masters 1, 2, 4, 5, so B cannot reach a majority: no violation.",
		Safe: true,
	}, func(r *scenarioRun) error { return r.replicationRaceRedlock() }},
	{Scenario{
		Name:  "crash-restart",
		Steps: 8,
		Title: "Crash, restart at once without persistence",
		Description: "A holds the lock on masters 1, 2, 3 (4 and 5 are cut off from it). Master 3 crashes and " +
			"restarts at once with its data lost, so A's key on it is gone. B, which reaches masters 3, 4, 5, " +
			"acquires the same lock while A still holds it: a violation (the page's persistence section).",
	}, func(r *scenarioRun) error { return r.crash(false) }},
	{Scenario{
		Name:  "crash-delayed-restart",
		Steps: 9,
		Title: "Crash, delayed restart (safe)",
		Description: "As crash-restart, but master 3 stays down longer than the longest TTL before it " +
			"restarts empty (the page's delayed-restart rule). By then A's lock has expired everywhere, so when " +
			"B acquires, A no longer believes it holds the lock: no violation.",
		Safe: true,
	}, func(r *scenarioRun) error { return r.crash(true) }},
	{Scenario{
		Name:  "crash-restart-fenced",
		Steps: 12,
		Title: "Crash, restart without persistence, fencing tokens (safe, but stuck)",
		Description: "As crash-restart, with fenced locks and a store that refuses tokens below the highest it " +
			"accepted. A takes the lock twice on masters 1, 2, 3, so its token is ahead of masters 4 and 5. " +
			"Master 3 restarts without persistence and its fence counter starts again from 0, so B, on masters " +
			"3, 4, 5, gets a token below A's: the store refuses B's writes (safe), and B cannot write until the " +
			"counters catch up. Fence counters need persistence.",
		Safe: true,
	}, func(r *scenarioRun) error { return r.crashFenced() }},
	{Scenario{
		Name:  "clock-jump",
		Steps: 7,
		Title: "Clock jump on a master",
		Description: "A holds the lock on masters 1, 2, 3. Master 3's clock jumps forward past the TTL (an NTP " +
			"step or an operator), so A's key on it expires early. B, which reaches masters 3, 4, 5, acquires " +
			"the lock while A still holds it: a violation (Kleppmann's clock-jump example).",
	}, func(r *scenarioRun) error { return r.clockJump(false) }},
	{Scenario{
		Name:  "clock-jump-small",
		Steps: 7,
		Title: "Clock jump within the drift allowance (safe)",
		Description: "As clock-jump, but master 3's clock jumps less than the drift allowance clients keep " +
			"back from their validity. B keeps trying and gets the lock only once A's validity is over: " +
			"no violation. Redlock is safe while clock errors stay within that bound.",
		Safe: true,
	}, func(r *scenarioRun) error { return r.clockJump(true) }},
	{Scenario{
		Name:  "gc-pause",
		Steps: 7,
		Title: "Client GC pause",
		Description: "A acquires the lock on all five masters and then freezes in a stop-the-world GC pause longer " +
			"than the TTL. The lock expires, B acquires it and writes. A resumes, unaware that time passed, and " +
			"writes too: a stale write (Kleppmann's GC-pause example).",
	}, func(r *scenarioRun) error { return r.gcPause(false) }},
	{Scenario{
		Name:  "gc-pause-checked",
		Steps: 6,
		Title: "Client GC pause, validity checked (safe)",
		Description: "As gc-pause, but A checks its lock's validity before writing, finds it ran out and does " +
			"not write: no violation. The check only narrows the window, since a pause can strike between the " +
			"check and the write; Kleppmann's fix is a fencing token checked by the storage.",
		Safe: true,
	}, func(r *scenarioRun) error { return r.gcPause(true) }},
	{Scenario{
		Name:  "gc-pause-fenced",
		Steps: 8,
		Title: "Client GC pause, fencing tokens (safe)",
		Description: "As gc-pause, with fenced locks and a store that refuses tokens below the highest it " +
			"accepted (Kleppmann's fix). A holds token 33 (on a first run) and freezes; B acquires with 34 " +
			"and writes. A resumes and writes with 33: the store refuses it, whatever A believes.",
		Safe: true,
	}, func(r *scenarioRun) error { return r.gcPauseFenced() }},
}

// Refused counts the stale writes the fenced store refused during the run.
func (r ScenarioResult) Refused() int {
	n := 0
	for _, w := range r.Store {
		if !w.Accepted {
			n++
		}
	}
	return n
}

// Scenarios returns the scripted scenarios, each unsafe story followed by its
// safe variant.
func Scenarios() []Scenario {
	out := make([]Scenario, len(scenarios))
	for i, s := range scenarios {
		out[i] = s.Scenario
	}
	return out
}

// errScenarioRunning is returned when a scenario is asked for while another
// one runs.
var errScenarioRunning = errors.New("demo: a scenario is already running")

// RunScenario runs the named scenario step by step on ScenarioResource,
// logging each step as an EventScenario, and returns how it ended. It blocks
// for the length of the story (1s to 4s at the default pace), so call it from
// a command. Only one scenario runs at a time. The workload goes on, on its
// own resources. Before it starts, the run brings every master back up,
// unfrozen and at real clock speed; faults between the simulated clients and
// the masters stay (the scenario's two clients have their own network paths).
// A clock jump it makes stays.
func (d *Demo) RunScenario(ctx context.Context, name string) (ScenarioResult, error) {
	return d.RunScenarioAs(ctx, name, AtPace)
}

// RunScenarioAs is RunScenario at the pace of mode: at the demo's pace, in slow motion, or step by step (see
// RunMode).
func (d *Demo) RunScenarioAs(ctx context.Context, name string, mode RunMode) (ScenarioResult, error) {
	i := slices.IndexFunc(scenarios, func(s scripted) bool { return s.Name == name })
	if i < 0 {
		return ScenarioResult{}, fmt.Errorf("demo: no scenario %q", name)
	}
	sc := scenarios[i]
	if !d.scenario.TryLock() {
		return ScenarioResult{}, errScenarioRunning
	}
	defer d.scenario.Unlock()
	if d.ctx.Err() != nil {
		return ScenarioResult{}, errClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()

	d.mu.Lock()
	firstID := d.nextID + 1
	d.mu.Unlock()
	r := d.newRun(ctx, sc.Scenario, mode)
	err := r.prepare()
	if err == nil {
		err = sc.script(r)
	}
	r.cleanup()
	defer r.endSteps()

	res := ScenarioResult{Scenario: sc.Scenario, Duration: time.Since(r.start)}
	if r.store != nil {
		res.Store = r.store.Log()
	}
	for _, v := range d.Violations() {
		if v.ID >= firstID && v.Resource == ScenarioResource {
			res.Violations = append(res.Violations, v)
		}
	}
	res.Violated = len(res.Violations) > 0
	res.Expected = res.Violated != sc.Safe
	if err != nil {
		r.tell("stopped: %v", err)
		res.Steps = r.steps
		return res, fmt.Errorf("demo: scenario %s: %w", sc.Name, err)
	}
	if res.Violated {
		r.tell("over: mutual exclusion was violated (%s)", res.Violations[0].Kind)
	} else {
		r.tell("over: no violation")
	}
	res.Steps = r.steps
	return res, nil
}

// actor is one of a scenario's two clients, with its own network path to
// each master, so that it can be cut off from some of them.
type actor struct {
	name   string
	paths  []*testbed.Proxy
	conns  []*redis.Client
	locker *redlock.Client
	lock   *redlock.Lock // the lock it holds, if any
	since  time.Time     // when it acquired lock
	until  time.Time     // when lock's validity ends
}

// scenarioRun is the state of one scenario run.
type scenarioRun struct {
	d       *Demo
	ctx     context.Context
	sc      Scenario
	start   time.Time
	steps   []Event
	actors  []*actor
	stopped bool          // the run crashed the victim
	ttl     time.Duration // the TTL of the actors' locks
	gap     time.Duration // the pause between steps
	stepped bool          // each step waits for the presenter (Demo.Step) once announced
	// store is the fenced store the actors write to, in the fenced stories; nil otherwise, when writes are
	// only recorded. Its actors' locks carry fencing tokens.
	store *testbed.FencedStore
}

// say logs a step and, in a stepped run, waits for the presenter to let it be performed. The step shows as
// waiting (announce) before its event leaves, so that whoever reads Stepping on the event sees it waiting.
func (r *scenarioRun) say(format string, args ...any) {
	text := r.stepText(format, args...)
	reached := r.announce(text)
	r.log(text)
	r.gate(reached)
}

// tell logs a step that no presenter waits at: how the run ended.
func (r *scenarioRun) tell(format string, args ...any) {
	r.log(r.stepText(format, args...))
}

// stepText is the log's text of the run's next step.
func (r *scenarioRun) stepText(format string, args ...any) string {
	return fmt.Sprintf("%s %d: %s", r.sc.Name, len(r.steps)+1, fmt.Sprintf(format, args...))
}

// log logs the run's next step.
func (r *scenarioRun) log(text string) {
	e := r.d.emit(Event{Kind: EventScenario, Resource: ScenarioResource, Master: -1, Text: text})
	if len(r.steps) == 0 {
		r.d.mu.Lock()
		r.d.storyFrom = e.Seq // the scenario's violations are explained from here
		r.d.mu.Unlock()
	}
	r.steps = append(r.steps, e)
}

// pace waits between steps so that people can follow.
func (r *scenarioRun) pace() error {
	return r.wait(r.gap)
}

// wait waits d or until the run is cancelled.
// waitUntil waits until t, telling a stepped run's presenter when the step will be over.
func (r *scenarioRun) waitUntil(t time.Time) error {
	r.performingUntil(t)
	return r.wait(time.Until(t))
}

func (r *scenarioRun) wait(d time.Duration) error {
	if !sleep(r.ctx, d) {
		return r.ctx.Err()
	}
	return nil
}

// prepare brings every master up, unfrozen and at real clock speed.
func (r *scenarioRun) prepare() error {
	r.say("begins: %s", r.sc.Title)
	for i, m := range r.d.Masters() {
		if m.Paused {
			if err := r.d.SetMasterPaused(i, false); err != nil {
				return err
			}
		}
		if m.Down {
			if err := r.d.StartMaster(i); err != nil {
				return err
			}
		}
		if m.ClockRate != 1 {
			if err := r.d.SetMasterClockRate(i, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// newActor returns a client named name that reaches only the masters in
// reach; the others are partitioned from it.
func (r *scenarioRun) newActor(name string, reach []int) (*actor, error) {
	a := &actor{name: name}
	r.actors = append(r.actors, a)
	addrs := make([]string, len(r.d.masters))
	for i, m := range r.d.masters {
		p, err := testbed.NewProxy(m.Addr())
		if err != nil {
			return nil, fmt.Errorf("path from %s to master %d: %w", name, i+1, err)
		}
		a.paths = append(a.paths, p)
		p.SetPartitioned(!slices.Contains(reach, i))
		addrs[i] = p.Addr()
	}
	opts := []redlock.Option{redlock.WithRetries(0),
		redlock.WithDriftFactor(driftFactor)}
	if r.store != nil {
		opts = append(opts, redlock.WithFencing())
	}
	var err error
	a.locker, a.conns, err = newLocker(addrs, r.d.opts.NodeTimeout, opts...)
	if err != nil {
		return nil, err
	}
	warmUp(r.ctx, a.conns)
	return a, nil
}

// newActors starts A and B with the masters each reaches.
func (r *scenarioRun) newActors(a, b []int) (*actor, *actor, error) {
	r.say("A reaches masters %s; B reaches masters %s", masterList(a), masterList(b))
	actA, err := r.newActor("A", a)
	if err != nil {
		return nil, nil, err
	}
	actB, err := r.newActor("B", b)
	return actA, actB, err
}

// masterList names masters by number: "1, 2, 3".
func masterList(idx []int) string {
	names := make([]string, len(idx))
	for i, m := range idx {
		names[i] = fmt.Sprint(m + 1)
	}
	return strings.Join(names, ", ")
}

// opening starts every story: A and B reaching the masters given, then A
// takes the lock (retrying for up to a TTL and a second, so that a slow first
// round, or a lock left by the story before, does not end the story) and writes.
func (r *scenarioRun) opening(reachOfA, reachOfB []int) (a, b *actor, err error) {
	if a, b, err = r.newActors(reachOfA, reachOfB); err != nil {
		return nil, nil, err
	}
	r.say("A acquires the lock and starts writing")
	if err := r.acquireWithin(a, r.ttl+time.Second); err != nil {
		return nil, nil, err
	}
	r.write(a, validityLeft(a))
	return a, b, nil
}

// tryAcquire has a try once for the lock, logging the outcome.
func (r *scenarioRun) tryAcquire(a *actor) error {
	l, err := a.locker.TryAcquire(r.ctx, ScenarioResource, r.ttl)
	if err != nil {
		r.d.emit(Event{Kind: EventAcquireFailed, Client: a.name, Resource: ScenarioResource, Master: -1,
			Text: fmt.Sprintf("%s failed to acquire %s: %s", a.name, ScenarioResource, failureText(err))})
		return err
	}
	r.acquired(a, l, "")
	return nil
}

// acquireWithin tries for the lock with random delays until it succeeds or
// within has passed, logging the first failure and the success.
func (r *scenarioRun) acquireWithin(a *actor, within time.Duration) error {
	deadline := time.Now().Add(within)
	for attempt := 1; ; attempt++ {
		l, err := a.locker.TryAcquire(r.ctx, ScenarioResource, r.ttl)
		if err == nil {
			how := ""
			if attempt > 1 {
				how = fmt.Sprintf(" after %d attempts", attempt)
			}
			r.acquired(a, l, how)
			return nil
		}
		if attempt == 1 {
			r.d.emit(Event{Kind: EventAcquireFailed, Client: a.name, Resource: ScenarioResource, Master: -1,
				Text: fmt.Sprintf("%s failed to acquire %s: %s; it retries with random delays", a.name,
					ScenarioResource, failureText(err))})
		}
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s could not acquire within %v: %w", a.name, within, err)
		}
		if err := r.wait(between(retryDelayMin, 3*retryDelayMin, 1)); err != nil {
			return err
		}
	}
}

// acquired logs a's new lock l and records a's belief.
func (r *scenarioRun) acquired(a *actor, l *redlock.Lock, how string) {
	a.lock = l
	fence := ""
	if l.Fence() > 0 {
		fence = fmt.Sprintf(" with fencing token %d", l.Fence())
	}
	r.d.emit(Event{Kind: EventAcquired, Client: a.name, Resource: ScenarioResource, Token: l.Token(), Master: -1,
		Text: fmt.Sprintf("%s acquired %s %s%s%s, valid for %v", a.name, ScenarioResource, nodesText(l.LastRound()),
			how, fence, vocab.ShortDuration(l.Validity()))})
	a.since, a.until = time.Now(), time.Now().Add(l.Validity())
	r.d.believe(a.name, ScenarioResource, l)
}

// write has a write under its lock, without checking anything but what the
// store checks: in the fenced stories the write goes to the fenced store with
// the lock's token, and why is left out (the store does not ask).
func (r *scenarioRun) write(a *actor, why string) {
	if r.store != nil {
		r.d.fencedWrite(a.name, ScenarioResource, a.lock, r.store, fmt.Sprintf("%s's data", a.name))
		return
	}
	r.d.wrote(a.name, ScenarioResource, a.lock.Token(), fmt.Sprintf("%s writes %s %s", a.name, ScenarioResource, why))
}

// validityLeft describes how much of a's lock is left.
func validityLeft(a *actor) string {
	return fmt.Sprintf("(validity left %v)", vocab.ShortDuration(a.lock.Validity()))
}

// dropWrite has a check its validity, find it ran out and stop believing.
func (r *scenarioRun) dropWrite(a *actor) {
	r.d.stopBelieving(a.lock.Token())
	r.d.emit(Event{Kind: EventWriteDropped, Client: a.name, Resource: ScenarioResource, Token: a.lock.Token(),
		Master: -1, Text: fmt.Sprintf("%s checks its lock before writing: its validity ran out %v ago, so it "+
			"does not write", a.name, vocab.ShortDuration(-a.lock.Validity()))})
}

// waitValidityOver waits until a's lock is no longer valid, and has a stop
// believing it holds it.
func (r *scenarioRun) waitValidityOver(a *actor) error {
	if err := r.waitUntil(time.Now().Add(a.lock.Validity() + time.Millisecond)); err != nil {
		return err
	}
	r.d.stopBelieving(a.lock.Token())
	r.say("A's validity is over: A no longer believes it holds the lock")
	return nil
}

// cleanup ends the actors' beliefs, releases their locks, closes their paths,
// and restarts the victim if the run left it down.
func (r *scenarioRun) cleanup() {
	for _, a := range r.actors {
		if a.lock != nil {
			r.d.stopBelieving(a.lock.Token())
			ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
			_ = a.lock.Release(ctx)
			cancel()
		}
		if a.locker != nil {
			a.locker.Close()
		}
		closeAll(a.conns)
		for _, p := range a.paths {
			_ = p.Close()
		}
	}
	if r.stopped {
		_ = r.d.StartMaster(victim)
	}
}

// crash is the crash-and-restart story: immediate restart, or delayed past
// the longest TTL.
func (r *scenarioRun) crash(delayed bool) error {
	a, b, err := r.opening(reachA, reachB)
	if err != nil {
		return err
	}
	if err := r.pace(); err != nil {
		return err
	}
	r.say("master 3 crashes; it runs without persistence")
	if err := r.d.StopMaster(victim); err != nil {
		return err
	}
	r.stopped = true
	if err := r.pace(); err != nil {
		return err
	}
	if !delayed {
		r.say("master 3 restarts at once, empty: A's key on it is gone")
		if err := r.d.StartMaster(victim); err != nil {
			return err
		}
		r.stopped = false
		if err := r.pace(); err != nil {
			return err
		}
		return r.bothWrite(a, b)
	}
	down := time.Now()
	r.say("B tries to acquire while master 3 is down, and cannot reach a majority")
	_ = r.tryAcquire(b) // fails: only masters 4 and 5 answer
	// The long wait is a step of its own, which says what it waits for; the story box counts it down.
	r.say("master 3 stays down for %v, longer than the longest TTL (%v): A's validity runs out meanwhile",
		r.restartDelay(), r.ttl)
	if err := r.waitValidityOver(a); err != nil {
		return err
	}
	if err := r.waitUntil(down.Add(r.restartDelay())); err != nil {
		return err
	}
	if err := r.d.start(victim, restartedText(victim, r.restartDelay())); err != nil {
		return err
	}
	r.stopped = false
	r.say("B acquires the lock on masters 3, 4, 5")
	// A's validity is over: B may retry (a master just restarted fails a first round on connections the crash
	// broke) without changing what the story shows.
	if err := r.acquireWithin(b, r.ttl); err != nil {
		return err
	}
	r.write(b, validityLeft(b))
	return nil
}

// bothWrite has B acquire the lock A still holds, and both write.
func (r *scenarioRun) bothWrite(a, b *actor) error {
	return r.bothWriteOn(a, b, "B acquires the lock on masters 3, 4, 5")
}

// clockJump is the clock-jump story: past the TTL, or within the drift
// allowance.
func (r *scenarioRun) clockJump(small bool) error {
	a, b, err := r.opening(reachA, reachB)
	if err != nil {
		return err
	}
	if err := r.pace(); err != nil {
		return err
	}
	if !small {
		jump := r.ttl + 500*time.Millisecond
		if err := r.jumpVictimClock(jump, "master 3's clock jumps %v forward: A's key on it expires at once", jump); err != nil {
			return err
		}
		return r.bothWrite(a, b)
	}
	allowance := redlock.DriftAllowance(r.ttl, driftFactor)
	jump := allowance / 4
	if err := r.jumpVictimClock(jump, "master 3's clock jumps %v forward, less than the %v drift allowance", jump,
		allowance); err != nil {
		return err
	}
	r.say("B tries to acquire the lock on masters 3, 4, 5 until it succeeds")
	if err := r.acquireWithin(b, r.ttl+time.Second); err != nil {
		return err
	}
	r.write(b, validityLeft(b))
	r.d.stopBelieving(a.lock.Token())
	if gap := b.since.Sub(a.until); gap > 0 {
		r.say("A's validity ended %v before B got the lock", vocab.ShortDuration(gap))
	} else {
		r.say("A's validity had not ended when B got the lock")
	}
	return nil
}

// jumpVictimClock tells the step, jumps the victim master's clock forward by
// jump and gives the audience a moment.
func (r *scenarioRun) jumpVictimClock(jump time.Duration, format string, args ...any) error {
	r.say(format, args...)
	if err := r.d.JumpMasterClock(victim, jump); err != nil {
		return err
	}
	return r.pace()
}

// gcPauseFenced is the GC-pause story with fenced locks and store: A writes
// when it resumes, and the store refuses its stale token.
func (r *scenarioRun) gcPauseFenced() error {
	if err := r.useFencing(); err != nil {
		return err
	}
	return r.gcPause(false)
}

// crashFenced is the crash-restart story with fenced locks and store: the
// restarted master's counter starts again, B draws a token below A's and
// the store refuses B's writes.
func (r *scenarioRun) crashFenced() error {
	if err := r.useFencing(); err != nil {
		return err
	}
	a, b, err := r.opening(reachA, reachB)
	if err != nil {
		return err
	}
	r.say("A releases the lock and takes it again: each acquisition raises the counters of masters 1, 2, 3; " +
		"masters 4 and 5, cut off from A, stay behind")
	first := a.lock
	if err := first.Release(r.ctx); err != nil && !errors.Is(err, redlock.ErrIncomplete) {
		return fmt.Errorf("%s's release: %w", a.name, err) // incomplete: masters 4 and 5, which A cannot reach, did not answer
	}
	r.d.stopBelieving(first.Token())
	r.d.emit(Event{Kind: EventReleased, Client: a.name, Resource: ScenarioResource, Token: first.Token(), Master: -1,
		Text: fmt.Sprintf("A released %s (fencing token %d)", ScenarioResource, first.Fence())})
	if err := r.acquireWithin(a, time.Second); err != nil {
		return err
	}
	r.write(a, validityLeft(a))
	// Three steps' time, so that a dashboard polling every 500ms reads the counters at A's token before they
	// are lost, and can say which master's counter went back.
	if err := r.wait(3 * r.gap); err != nil {
		return err
	}
	r.say("master 3 crashes; it runs without persistence: its keys and its fence counters are lost")
	if err := r.d.StopMaster(victim); err != nil {
		return err
	}
	r.stopped = true
	if err := r.pace(); err != nil {
		return err
	}
	r.say("master 3 restarts at once, empty: A's key and the fence counter on it are gone")
	if err := r.d.StartMaster(victim); err != nil {
		return err
	}
	r.stopped = false
	if err := r.pace(); err != nil {
		return err
	}
	r.say("B acquires the lock on masters 3, 4, 5 while A still holds it")
	if err := r.tryAcquire(b); err != nil {
		return err
	}
	r.say("B's token %d is below A's %d: master 3 counted again from 0, and masters 4 and 5 never saw A's "+
		"acquisitions", b.lock.Fence(), a.lock.Fence())
	r.write(b, validityLeft(b))
	if err := r.pace(); err != nil {
		return err
	}
	r.say("A, still within its validity, writes with token %d", a.lock.Fence())
	r.write(a, validityLeft(a))
	r.say("the store stayed consistent, but B cannot write until its token passes %d; had the counters been "+
		"level, B would have drawn A's token and the store would have taken both. Fence counters need "+
		"persistence (appendonly, fsync always)", a.lock.Fence())
	return nil
}

// fenceFloor is the least value the fenced stories set the fence counters
// to, so that a first run tells the tokens of Kleppmann's figure, 33 and 34.
const fenceFloor = 32

// levelFenceSource raises a fence counter to ARGV[1] unless it is higher.
const levelFenceSource = `local c = tonumber(redis.call("GET", KEYS[1]) or "0")
if c == nil or c < tonumber(ARGV[1]) then redis.call("SET", KEYS[1], ARGV[1]) end
return redis.call("GET", KEYS[1])`

// levelTimeout bounds the levelling of the fence counters before a fenced story.
const levelTimeout = 5 * time.Second

// useFencing makes the run a fenced story: a new fenced store, locks with
// fencing tokens, and the scenario resource's fence counters levelled on
// every master at the highest of them (at least fenceFloor), so that every
// story starts from the same counter everywhere. Counters are only raised,
// never lowered, as a fenced lock requires.
func (r *scenarioRun) useFencing() error {
	r.store = &testbed.FencedStore{}
	key := redlock.FenceKey(ScenarioResource, redlock.DefaultFenceSuffix)
	// Ten commands on fresh connections: a starved machine needs more than a second for them (seen at a load
	// average of 19 under -race); a presenter waits for this step anyway.
	ctx, cancel := context.WithTimeout(r.ctx, levelTimeout)
	defer cancel()
	conns := r.d.NewClients()
	for i, c := range conns { // their own dial and I/O timeouts, for faults to show at once, are far shorter
		o := *c.Options()
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout = levelTimeout, levelTimeout, levelTimeout
		_ = c.Close()
		conns[i] = redis.NewClient(&o)
	}
	defer closeAll(conns)
	level := uint64(fenceFloor)
	for i, c := range conns {
		n, err := c.Get(ctx, key).Uint64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("master %d's fence counter: %w", i+1, err)
		}
		level = max(level, n)
	}
	for i, c := range conns {
		if err := c.Eval(ctx, levelFenceSource, []string{key}, level).Err(); err != nil {
			return fmt.Errorf("master %d's fence counter: %w", i+1, err)
		}
	}
	r.say("A and B take fenced locks and write to a store that refuses a token below the highest it accepted; "+
		"the fence counter of %s stands at %d on every master", ScenarioResource, level)
	return nil
}

// gcPause is the GC-pause story: A writes when it resumes, or checks its
// validity first.
func (r *scenarioRun) gcPause(checked bool) error {
	a, b, err := r.opening(reachAll, reachAll)
	if err != nil {
		return err
	}
	frozen := time.Now()
	r.say("A freezes in a stop-the-world GC pause: nothing in A runs, not even a look at its clock")
	r.d.setBeliefPaused(a.lock.Token(), true)
	r.d.emit(Event{Kind: EventClientPaused, Client: a.name, Resource: ScenarioResource, Token: a.lock.Token(),
		Master: -1, Text: "A freezes (stop-the-world GC) holding " + ScenarioResource})
	if err := r.pace(); err != nil {
		return err
	}
	r.say("A's lock expires on every master; B tries until it gets the lock")
	if err := r.acquireWithin(b, r.ttl+time.Second); err != nil {
		return err
	}
	r.write(b, validityLeft(b))
	if err := r.pace(); err != nil {
		return err
	}
	r.d.setBeliefPaused(a.lock.Token(), false)
	r.d.emit(Event{Kind: EventClientResumed, Client: a.name, Resource: ScenarioResource, Token: a.lock.Token(),
		Master: -1, Text: fmt.Sprintf("A resumes after %v, unaware that time passed",
			vocab.ShortDuration(time.Since(frozen)))})
	if checked {
		r.dropWrite(a)
		return nil
	}
	if r.store != nil {
		r.say("A goes on where it stopped and writes with its token %d; B's token is %d", a.lock.Fence(),
			b.lock.Fence())
	} else {
		r.say("A goes on where it stopped and writes")
	}
	r.write(a, fmt.Sprintf("believing it still holds it (validity ran out %v ago)",
		vocab.ShortDuration(-a.lock.Validity())))
	return nil
}

// restartedText is the log line of a delayed restart of master i, down for delay.
func restartedText(i int, delay time.Duration) string {
	return fmt.Sprintf("master %d restarted empty after %v down: every lock it held has expired everywhere",
		i+1, delay)
}
