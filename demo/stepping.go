package demo

import (
	"context"
	"errors"
	"time"
)

// RunMode is how a scenario runs: at the demo's pace, in slow motion, or step by step. At the demo's pace
// the story takes seconds and its locks MaxTTL; the presenter's modes give its locks PresenterTTL, so that
// the audience can follow while a story still holds, and the steps that wait for a lock to run out wait
// that long.
type RunMode int

// The run modes.
const (
	AtPace     RunMode = iota // Options.ScenarioPace between steps
	SlowMotion                // SlowMotionPace between steps
	StepByStep                // each step is announced and waits for Step
)

// SlowMotionPace is the pause between the steps of a scenario run in slow motion.
const SlowMotionPace = 2 * time.Second

// DefaultPresenterTTL is Options.PresenterTTL's default.
const DefaultPresenterTTL = 30 * time.Second

// StepState is a stepped scenario run as the presenter sees it: the step announced last, its number among
// the story's steps, and whether it waits for Step.
type StepState struct {
	Scenario string // the scenario's name
	Title    string // its menu title
	Story    string // its story: what happens and what it shows (Scenario.Description)
	Step     int    // the number of the step announced, from 1
	Steps    int    // how many steps the story has
	Text     string // what the step is about to do, as logged
	Why      string // why the step matters; for the first step, the story
	Waiting  bool   // the step waits for Step; false while it is being performed
	// Until is when the step being performed will be over, for one that waits a time it knows (a lock's
	// validity, a master kept down); zero otherwise. The story box counts down to it.
	Until time.Time
}

// errNoStep is returned by Step when no step waits.
var errNoStep = errors.New("demo: no scenario step waits")

// stepGate is a stepped run's gate: the step announced, the channel Step lets it go by, and the channel
// closed when the run reaches its next gate or ends.
type stepGate struct {
	state   StepState
	next    chan struct{}
	reached chan struct{}
}

// newRun returns a run of sc in mode, with the TTL and pause the mode gives; a stepped run opens its gate.
func (d *Demo) newRun(ctx context.Context, sc Scenario, mode RunMode) *scenarioRun {
	r := &scenarioRun{d: d, ctx: ctx, sc: sc, start: time.Now(), ttl: scenarioTTL, gap: d.opts.ScenarioPace}
	switch mode {
	case SlowMotion:
		r.ttl, r.gap = d.opts.PresenterTTL, SlowMotionPace
	case StepByStep:
		r.ttl, r.gap, r.stepped = d.opts.PresenterTTL, 0, true
		d.mu.Lock()
		d.step = &stepGate{state: StepState{Scenario: sc.Name, Title: sc.Title, Story: sc.Description, Steps: sc.Steps},
			next: make(chan struct{}, 1), reached: make(chan struct{})}
		d.mu.Unlock()
	}
	return r
}

// restartDelay is how long the delayed-restart story keeps its master down: a bit more than the run's TTL.
func (r *scenarioRun) restartDelay() time.Duration { return r.ttl + 500*time.Millisecond }

// announce, in a stepped run, shows the step about to be logged as text as the step waiting for Step, and
// opens the next gate; it returns the channel of the gate passed, which gate closes once the step is logged
// (nil outside a stepped run).
func (r *scenarioRun) announce(text string) chan struct{} {
	if !r.stepped {
		return nil
	}
	k := len(r.steps) + 1
	r.d.mu.Lock()
	defer r.d.mu.Unlock()
	g := r.d.step
	g.state.Step, g.state.Text, g.state.Waiting, g.state.Until = k, text, true, time.Time{}
	g.state.Why = stepWhy(r.sc, k)
	reached := g.reached
	g.reached = make(chan struct{})
	return reached
}

// performingUntil tells, while a stepped run performs a step, when the step will be over: a wait of a known
// length (StepState.Until).
func (r *scenarioRun) performingUntil(until time.Time) {
	if !r.stepped {
		return
	}
	r.d.mu.Lock()
	if g := r.d.step; g != nil {
		g.state.Until = until
	}
	r.d.mu.Unlock()
}

// gate, after a step was announced and logged (reached not nil), tells a Step waiting for the announcement
// that it came, and waits for the next Step (or the end of the run).
func (r *scenarioRun) gate(reached chan struct{}) {
	if reached == nil {
		return
	}
	close(reached)
	r.d.mu.Lock()
	next := r.d.step.next
	r.d.mu.Unlock()
	select {
	case <-next:
	case <-r.ctx.Done():
	}
}

// endSteps closes a stepped run's gate: a Step waiting for the run learns that it ended.
func (r *scenarioRun) endSteps() {
	if !r.stepped {
		return
	}
	r.d.mu.Lock()
	g := r.d.step
	r.d.step = nil
	r.d.mu.Unlock()
	close(g.reached)
}

// Stepping returns the stepped scenario run's state, and false when none runs.
func (d *Demo) Stepping() (StepState, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.step == nil {
		return StepState{}, false
	}
	return d.step.state, true
}

// Step performs the step a stepped scenario run announced and waits, and returns once it is done: when the
// run has announced its next step (the state returned), or ended (false). It fails when no step waits, or
// when ctx ends first.
func (d *Demo) Step(ctx context.Context) (StepState, bool, error) {
	d.mu.Lock()
	g := d.step
	if g == nil || !g.state.Waiting {
		d.mu.Unlock()
		return StepState{}, false, errNoStep
	}
	g.state.Waiting = false
	reached := g.reached
	d.mu.Unlock()
	g.next <- struct{}{}
	select {
	case <-reached:
	case <-ctx.Done():
		return StepState{}, false, ctx.Err()
	}
	s, ok := d.Stepping()
	return s, ok, nil
}
