package demo

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestScenariosEndAsTheStorySays(t *testing.T) {
	d := startDemo(t, Options{ScenarioPace: 50 * time.Millisecond})
	go collect(d, time.Hour, nil) // keep the channel drained, as the dashboard would
	wantKind := map[string]ViolationKind{
		"crash-restart": ViolationOverlap,
		"clock-jump":    ViolationOverlap,
		"gc-pause":      ViolationStaleWrite,
	}
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := d.RunScenario(ctx, sc.Name)
			if err != nil {
				t.Fatalf("RunScenario: %v\nsteps:\n%s", err, strings.Join(texts(res.Steps), "\n"))
			}
			t.Logf("%s took %v in %d steps", sc.Name, res.Duration.Round(time.Millisecond), len(res.Steps))
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
	if ms := d.Masters(); ms[victim].Down {
		t.Errorf("master %d left down after the scenarios", victim+1)
	}
}

func TestRunScenarioRejectsUnknownAndConcurrentRuns(t *testing.T) {
	d := startDemo(t, Options{Paused: true, ScenarioPace: 50 * time.Millisecond})
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
