package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// stepUntilOver runs scenario name step by step on d: at each announced step it checks the state and calls
// check (with the step just announced), then performs the step. It returns the run's result.
func stepUntilOver(t *testing.T, d *Demo, name string, check func(StepState)) ScenarioResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type outcome struct {
		res ScenarioResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := d.RunScenarioAs(ctx, name, StepByStep)
		done <- outcome{res, err}
	}()
	var st StepState
	deadline := time.Now().Add(30 * time.Second)
	for ok := false; !ok; st, ok = d.Stepping() { // the run opens its gate as it starts
		if time.Now().After(deadline) {
			t.Fatal("the stepped run never announced its first step")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for want := 1; ; want++ {
		// The first step is being announced: it shows as waiting just before its event is logged.
		for !st.Waiting || (want == 1 && countSteps(d, name) < 1) {
			time.Sleep(5 * time.Millisecond)
			st, _ = d.Stepping()
		}
		if st.Step != want || st.Scenario != name {
			t.Fatalf("announced step %d of %s, want step %d of %s", st.Step, st.Scenario, want, name)
		}
		check(st)
		next, more, err := d.Step(ctx)
		if err != nil {
			t.Fatalf("Step %d: %v", want, err)
		}
		if !more {
			break
		}
		st = next
	}
	o := <-done
	if o.err != nil {
		t.Fatalf("RunScenarioAs: %v\nsteps:\n%s", o.err, strings.Join(texts(o.res.Steps), "\n"))
	}
	return o.res
}

// Every story, run step by step, announces each step and performs it only when told, and ends as it does
// at the demo's pace.
func TestEveryScenarioRunsStepByStepAsItsStorySays(t *testing.T) {
	parallelUnlessRace(t)
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			parallelUnlessRace(t)
			d := startDemo(t, patient(Options{Paused: true, PresenterTTL: MaxTTL}))
			go collect(d, time.Hour, nil)
			res := stepUntilOver(t, d, sc.Name, func(st StepState) {
				if st.Steps != sc.Steps {
					t.Errorf("step %d: the story has %d steps, the state says %d", st.Step, sc.Steps, st.Steps)
				}
				// Each step is announced with what it is about to do and why that matters.
				what := strings.TrimPrefix(st.Text, fmt.Sprintf("%s %d: ", sc.Name, st.Step))
				if what == st.Text || what == "" || st.Why == "" || st.Why != stepWhy(sc, st.Step) {
					t.Errorf("step %d is announced as %q, why %q", st.Step, st.Text, st.Why)
				}
				// Waiting at step k, the run has logged k steps: nothing of the next was done.
				if logged := countSteps(d, sc.Name); logged != st.Step {
					t.Errorf("waiting at step %d, %d steps of the run are logged", st.Step, logged)
				}
			})
			if len(res.Steps) != sc.Steps || res.Violated == sc.Safe {
				t.Errorf("%d steps (want %d), violated=%v (want %v):\n%s", len(res.Steps), sc.Steps,
					res.Violated, !sc.Safe, strings.Join(texts(res.Steps), "\n"))
			}
			if _, ok := d.Stepping(); ok {
				t.Error("the run is over, but a step is still shown")
			}
			if _, _, err := d.Step(context.Background()); err == nil {
				t.Error("Step with no stepped run did not fail")
			}
		})
	}
}

// countSteps counts the steps of the latest run of scenario name in the demo's recent events.
func countSteps(d *Demo, name string) int {
	d.mu.Lock()
	from := d.storyFrom
	d.mu.Unlock()
	n := 0
	for _, e := range d.log.leadUp(ScenarioResource, historyLen, from) {
		if e.Kind == EventScenario && strings.HasPrefix(e.Text, name+" ") {
			n++
		}
	}
	return n
}

// After each step of crash-restart, a poll shows the state the step produced: A's key on masters 1-3, then
// master 3 down, then back without A's key, then B's token on masters 3-5 beside A's on 1 and 2.
func TestAPollAfterEachStepShowsWhatItDid(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{Paused: true, PresenterTTL: 20 * time.Second}))
	go collect(d, time.Hour, nil)
	conns := d.NewClients()
	defer closeAll(conns)
	mon, err := monitor.New(conns, d.Addrs(), monitor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	cells := func() (string, bool) { // the tokens of ledger:settle, "." for none, and whether master 3 answered
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s := mon.Poll(ctx)
		out := []string{".", ".", ".", ".", "."}
		for _, l := range s.Locks {
			if l.Resource != ScenarioResource {
				continue
			}
			for i, m := range l.Masters {
				if m.State == monitor.CellSeen {
					out[i] = m.Token[:4]
				}
			}
		}
		return strings.Join(out, " "), s.Masters[victim].Up
	}
	var seen []string
	stepUntilOver(t, d, "crash-restart", func(st StepState) {
		c, up := cells()
		seen = append(seen, c)
		t.Logf("before step %d (%s): %s, master 3 up %v", st.Step, st.Text, c, up)
		switch {
		case strings.Contains(st.Text, "master 3 crashes"): // after A acquired
			if f := strings.Fields(c); f[0] == "." || f[0] != f[1] || f[1] != f[2] || f[3] != "." || f[4] != "." {
				t.Errorf("after A's acquisition the poll shows %s, want A's token on masters 1-3 only", c)
			}
		case strings.Contains(st.Text, "master 3 restarts"):
			if up {
				t.Errorf("after the crash the poll still has master 3 answering (%s)", c)
			}
		case strings.Contains(st.Text, "B acquires"):
			if f := strings.Fields(c); !up || f[2] != "." {
				t.Errorf("after the restart the poll shows %s (master 3 up %v), want master 3 up without A's key", c, up)
			}
		case strings.Contains(st.Text, "A, still within its validity"):
			if f := strings.Fields(c); f[2] == "." || f[2] != f[3] || f[3] != f[4] || f[0] == f[2] {
				t.Errorf("after B's acquisition the poll shows %s, want B's token on masters 3-5 and A's on 1-2", c)
			}
		}
	})
	if len(seen) < 7 {
		t.Errorf("only %d steps were checked", len(seen))
	}
}

// In slow motion a story pauses SlowMotionPace between steps and its locks last the presenter's TTL, and it
// still ends as the story says.
func TestSlowMotionPausesBetweenStepsWithThePresentersTTL(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{Paused: true, PresenterTTL: 10 * time.Second}))
	go collect(d, time.Hour, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := d.RunScenarioAs(ctx, "clock-jump", SlowMotion)
	if err != nil {
		t.Fatalf("RunScenarioAs: %v\n%s", err, strings.Join(texts(res.Steps), "\n"))
	}
	if !res.Violated {
		t.Errorf("clock-jump in slow motion ended without its violation:\n%s", strings.Join(texts(res.Steps), "\n"))
	}
	// Three pauses: after A's acquisition, after the jump, after B's.
	if res.Duration < 3*SlowMotionPace {
		t.Errorf("the story took %v, less than three slow-motion pauses (%v)", res.Duration, 3*SlowMotionPace)
	}
	var jumped bool
	for _, e := range res.Steps {
		jumped = jumped || strings.Contains(e.Text, "clock jumps 10.5s forward")
	}
	if !jumped {
		t.Errorf("the clock did not jump past the presenter's TTL:\n%s", strings.Join(texts(res.Steps), "\n"))
	}
}

// Closing the demo while a stepped story waits for its next step ends the story: Close returns, and so does
// the run, with an error.
func TestCloseEndsAStoryWaitingForItsStep(t *testing.T) {
	d, err := Start(Options{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	go collect(d, time.Hour, nil)
	done := make(chan error, 1)
	go func() {
		_, err := d.RunScenarioAs(context.Background(), "crash-restart", StepByStep)
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for st, _ := d.Stepping(); !st.Waiting; st, _ = d.Stepping() {
		if time.Now().After(deadline) {
			t.Fatal("the stepped run never waited for its first step")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("a story cut short by Close reported success")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stepped run did not end after Close")
	}
}

// TestTheLongStepSaysWhatItWaitsForAndCountsDown: in crash-delayed-restart, the wait for A's validity to run
// out is the step that says master 3 stays down, after B's failed try; while it is performed the state says
// when it will be over (StepState.Until), and the next step is announced only once that time has come. Before,
// the step finished at once and the wait ran under the next step's words.
func TestTheLongStepSaysWhatItWaitsForAndCountsDown(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{Paused: true, PresenterTTL: MaxTTL}))
	go collect(d, time.Hour, nil)
	var (
		mu         sync.Mutex
		triedFirst bool
		until      time.Time
		longStep   int
		afterAt    time.Time
	)
	res := stepUntilOver(t, d, "crash-delayed-restart", func(st StepState) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(st.Text, "B tries to acquire while master 3 is down"):
			triedFirst = longStep == 0
		case strings.Contains(st.Text, "stays down for"):
			if !strings.Contains(st.Text, "A's validity runs out meanwhile") {
				t.Errorf("the long step does not say what it waits for: %q", st.Text)
			}
			longStep = st.Step
			go func() { // the step is performed once check returns: read its state meanwhile
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
					s, ok := d.Stepping()
					if !ok || s.Step != longStep {
						return
					}
					if !s.Waiting && !s.Until.IsZero() {
						mu.Lock()
						until = s.Until
						mu.Unlock()
						return
					}
				}
			}()
		case longStep != 0 && st.Step == longStep+1:
			afterAt = time.Now()
		}
	})
	mu.Lock()
	defer mu.Unlock()
	if res.Violated || !triedFirst || longStep == 0 {
		t.Fatalf("violated %v, B tried before the long step %v, long step %d:\n%s", res.Violated, triedFirst, longStep,
			strings.Join(texts(res.Steps), "\n"))
	}
	if until.IsZero() {
		t.Fatal("while the long step was performed its state never said when it would be over")
	}
	if afterAt.Before(until) {
		t.Errorf("the step after the long one was announced at %v, before the long step's end %v",
			afterAt.Format("15:04:05.000"), until.Format("15:04:05.000"))
	}
}
