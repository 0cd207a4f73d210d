package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

func TestScenariosEndAsTheStorySays(t *testing.T) {
	parallelUnlessRace(t)
	wantKind := map[string]ViolationKind{
		"replication-race": ViolationOverlap,
		"crash-restart":    ViolationOverlap,
		"clock-jump":       ViolationOverlap,
		"gc-pause":         ViolationStaleWrite,
	}
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			parallelUnlessRace(t)
			d := startDemo(t, patient(Options{ScenarioPace: 50 * time.Millisecond}))
			go collect(d, time.Hour, nil) // keep the channel drained, as the dashboard would
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := d.RunScenario(ctx, sc.Name)
			if err != nil {
				t.Fatalf("RunScenario: %v\nsteps:\n%s", err, strings.Join(texts(res.Steps), "\n"))
			}
			t.Logf("%s took %v in %d steps", sc.Name, res.Duration.Round(time.Millisecond), len(res.Steps))
			if ms := d.Masters(); ms[victim].Down {
				t.Errorf("master %d left down after the story", victim+1)
			}
			if len(res.Steps) != sc.Steps {
				t.Errorf("%d steps logged, the menu says %d:\n%s", len(res.Steps), sc.Steps,
					strings.Join(texts(res.Steps), "\n"))
			}
			if !res.Expected || res.Violated == sc.Safe {
				t.Fatalf("violated=%v, want %v\nsteps:\n%s\nviolations: %v", res.Violated, !sc.Safe,
					strings.Join(texts(res.Steps), "\n"), res.Violations)
			}
			if sc.Safe {
				return
			}
			v := res.Violations[0]
			if v.Kind != wantKind[sc.Name] || v.First.Client != "A" || v.Second.Client != "B" {
				t.Errorf("violation %s between %s and %s, want %s between A and B: %s",
					v.Kind, v.First.Client, v.Second.Client, wantKind[sc.Name], v.Text)
			}
			if v.Resource != ScenarioResource || v.First.Token == v.Second.Token || v.First.Token == "" {
				t.Errorf("violation does not name the resource and two tokens: %+v", v)
			}
			var sawStep, sawAcquire bool
			for _, e := range v.Events {
				sawStep = sawStep || e.Kind == EventScenario
				sawAcquire = sawAcquire || (e.Kind == EventAcquired && e.Client == "B")
			}
			if !sawStep || !sawAcquire {
				t.Errorf("the violation's story lacks the steps or B's acquisition:\n%s",
					strings.Join(texts(v.Events), "\n"))
			}
		})
	}
}

func TestRunScenarioRejectsUnknownAndConcurrentRuns(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{Paused: true, ScenarioPace: 50 * time.Millisecond}))
	if _, err := d.RunScenario(context.Background(), "no-such-story"); err == nil {
		t.Error("an unknown scenario ran")
	}
	done := make(chan error, 1)
	go func() {
		_, err := d.RunScenario(context.Background(), "gc-pause-checked")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := d.RunScenario(context.Background(), "crash-restart"); err != errScenarioRunning {
		t.Errorf("a second scenario while one runs: %v, want errScenarioRunning", err)
	}
	if err := <-done; err != nil {
		t.Errorf("the first scenario: %v", err)
	}
}

func TestScenarioStopsWhenCancelled(t *testing.T) {
	d := startDemo(t, Options{Paused: true, ScenarioPace: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := d.RunScenario(ctx, "crash-delayed-restart")
	if err == nil {
		t.Fatal("a cancelled scenario reported success")
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("cancelled scenario took %v to stop", took)
	}
	if d.Masters()[victim].Down {
		t.Error("the cancelled scenario left master 3 down")
	}
	if bs := d.Beliefs(); len(bs) > 0 {
		t.Errorf("beliefs left after the scenario: %+v", bs)
	}
}

// fencedRun runs one fenced story on a new demo and returns its result, the
// demo's count of refused writes, and the events logged.
func fencedRun(t *testing.T, name string) (ScenarioResult, int, []Event) {
	t.Helper()
	d := startDemo(t, patient(Options{Paused: true, ScenarioPace: 50 * time.Millisecond}))
	var mu sync.Mutex
	var events []Event
	go func() {
		for e := range d.Events() {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := d.RunScenario(ctx, name)
	if err != nil {
		t.Fatalf("RunScenario: %v\nsteps:\n%s", err, strings.Join(texts(res.Steps), "\n"))
	}
	if res.Violated || !res.Expected {
		t.Fatalf("violations %v; steps:\n%s", res.Violations, strings.Join(texts(res.Steps), "\n"))
	}
	refused := d.RefusedWrites()
	d.Close()
	mu.Lock()
	defer mu.Unlock()
	return res, refused, append([]Event(nil), events...)
}

// storeLine describes a store write for failure messages.
func storeLines(ws []redlocktest.StoreWrite) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "%s token %d accepted=%v (highest %d)\n", w.Value, w.Token, w.Accepted, w.Highest)
	}
	return b.String()
}

func TestGCPauseFencedStoreRefusesTheStaleWrite(t *testing.T) {
	parallelUnlessRace(t)
	res, refused, events := fencedRun(t, "gc-pause-fenced")
	// On new masters the counters start at fenceFloor: A draws 33 and B, on its first round, 34, as in
	// Kleppmann's figure. A round that fails (a loaded machine) still draws on the masters it reached, so B's
	// may be higher: what the story shows is B's above A's, and A's stale write refused.
	if len(res.Store) != 3 {
		t.Fatalf("store log:\n%s", storeLines(res.Store))
	}
	a, b, stale := res.Store[0], res.Store[1], res.Store[2]
	if a.Value != "A's data" || a.Token < 33 || !a.Accepted || b.Value != "B's data" || b.Token <= a.Token || !b.Accepted ||
		stale.Value != "A's data" || stale.Token != a.Token || stale.Accepted {
		t.Fatalf("want A's write with a token from 33 accepted, B's with a higher one accepted, A's again refused; store log:\n%s", storeLines(res.Store))
	}
	if refused != 1 {
		t.Errorf("the detector counted %d refused stale writes, want 1", refused)
	}
	var shown bool
	for _, e := range events {
		if e.Kind == EventWriteRefused {
			shown = e.Client == "" || strings.Contains(e.Text, fmt.Sprintf("token %d", a.Token)) &&
				strings.Contains(e.Text, fmt.Sprintf("token %d", b.Token))
		}
	}
	if !shown {
		t.Errorf("no write-refused event naming both tokens among:\n%s", strings.Join(texts(events), "\n"))
	}
}

func TestCrashRestartFencedGivesBALowerTokenThatTheStoreRefuses(t *testing.T) {
	parallelUnlessRace(t)
	res, refused, _ := fencedRun(t, "crash-restart-fenced")
	var a, b []redlocktest.StoreWrite
	for _, w := range res.Store {
		switch w.Value {
		case "A's data":
			a = append(a, w)
		case "B's data":
			b = append(b, w)
		}
	}
	if len(a) != 3 || len(b) != 1 {
		t.Fatalf("want A to write 3 times and B once; store log:\n%s", storeLines(res.Store))
	}
	// A's two acquisitions raise its token; B's, after master 3 lost its counter, is below A's second.
	if a[1].Token != a[0].Token+1 || b[0].Token >= a[1].Token || b[0].Accepted || !a[2].Accepted {
		t.Errorf("tokens: A %d then %d, B %d (accepted=%v), A again accepted=%v\nstore log:\n%s",
			a[0].Token, a[1].Token, b[0].Token, b[0].Accepted, a[2].Accepted, storeLines(res.Store))
	}
	if refused != 1 {
		t.Errorf("the detector counted %d refused stale writes, want 1", refused)
	}
}

func TestCrashRestartFencedShowsOnTheMonitorAsACounterThatWentBack(t *testing.T) {
	d := startDemo(t, patient(Options{Paused: true})) // the default pace, as a presenter runs it
	go collect(d, time.Hour, nil)
	conns := d.NewClients()
	defer closeAll(conns)
	// Polls five times as often as the dashboard, so that a loaded machine still reads A's counters in the
	// story's window before the crash.
	mon, err := monitor.New(conns, d.Addrs(), monitor.Config{Interval: monitor.DefaultInterval / 5})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snaps := mon.Run(ctx)
	var backwards []monitor.Event
	done, seen := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for s := range snaps {
			for _, e := range s.Events {
				if e.Kind == monitor.EventFenceBackwards {
					if backwards = append(backwards, e); len(backwards) == 1 {
						close(seen)
					}
				}
			}
		}
	}()
	if _, err := d.RunScenario(ctx, "crash-restart-fenced"); err != nil {
		t.Fatal(err)
	}
	// The restarted master's counter is read in a poll or two: on a loaded machine, later.
	select {
	case <-seen:
	case <-time.After(time.Minute):
	}
	cancel()
	<-done
	victimAddr := d.Addrs()[victim]
	if len(backwards) == 0 || backwards[0].Master != victimAddr || backwards[0].Resource != ScenarioResource {
		t.Errorf("fence-backwards events %+v; want one naming master %d (%s) and %s", backwards, victim+1,
			victimAddr, ScenarioResource)
	}
}
