package demo

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// startDemo starts a demo closed at the end of the test.
func startDemo(t *testing.T, opts Options) *Demo {
	t.Helper()
	d, err := Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

// patient returns o for a demo whose clients wait longer for a master (MaxTTL/4): beside other tests' demos,
// or under -race on a loaded machine, a starved client must not take a master for failed, so that a story's
// outcome does not hang on the machine's speed.
func patient(o Options) Options {
	o.NodeTimeout = MaxTTL / 4
	return o
}

// readers holds each test demo's subscription to its events, so that successive collects read on where the
// last stopped.
var readers sync.Map // *Demo -> <-chan Event

// collect reads events until stop returns true for one of them or within
// has passed, and returns all it read.
func collect(d *Demo, within time.Duration, stop func(Event) bool) []Event {
	ch, ok := readers.Load(d)
	if !ok {
		ch, _ = readers.LoadOrStore(d, d.Events())
	}
	var out []Event
	timeout := time.After(within)
	for {
		select {
		case e, ok := <-ch.(<-chan Event):
			if !ok {
				return out
			}
			out = append(out, e)
			if stop != nil && stop(e) {
				return out
			}
		case <-timeout:
			return out
		}
	}
}

func TestWorkloadWithoutFaultsHandsLocksAroundSafely(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{}))
	start := time.Now()
	// A quiet machine sees one within a second; a starved one (seen at a load average of 17) takes longer.
	first := collect(d, 10*time.Second, func(e Event) bool { return e.Kind == EventAcquired })
	if len(first) == 0 || first[len(first)-1].Kind != EventAcquired {
		t.Fatalf("no acquisition within 10s; events: %v", texts(first))
	}
	t.Logf("first acquisition after %v", time.Since(start).Round(time.Millisecond))

	events := append(first, collect(d, 6*time.Second, nil)...)
	holders := map[string]map[string]bool{} // resource -> clients that acquired it
	kinds := map[EventKind]int{}
	for i, e := range events {
		kinds[e.Kind]++
		if i > 0 && e.Seq <= events[i-1].Seq {
			t.Errorf("event %d has seq %d after %d: events out of order", i, e.Seq, events[i-1].Seq)
		}
		if e.Kind == EventAcquired {
			if holders[e.Resource] == nil {
				holders[e.Resource] = map[string]bool{}
			}
			holders[e.Resource][e.Client] = true
		}
	}
	t.Logf("events by kind: %v", kinds)
	changed := false
	for res, cs := range holders {
		if !strings.Contains(strings.Join(d.Resources(), " "), res) {
			t.Errorf("acquisition of %q, not a workload resource", res)
		}
		changed = changed || len(cs) >= 2
	}
	if !changed {
		t.Errorf("no resource was acquired by two different clients: %v", holders)
	}
	if kinds[EventWrite] == 0 || kinds[EventReleased] == 0 {
		t.Errorf("want writes and releases in the workload, got %v", kinds)
	}
	if vs := d.Violations(); len(vs) > 0 {
		t.Errorf("%d violations without faults; first: %s\nleading events:\n%s",
			len(vs), vs[0].Text, strings.Join(texts(vs[0].Events), "\n"))
	}
}

func texts(es []Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Kind) + ": " + e.Text
	}
	return out
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	d, err := Start(Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	collect(d, 1500*time.Millisecond, nil)
	if _, err := d.PauseClient(-1); err != nil {
		t.Fatalf("PauseClient: %v", err)
	}
	if err := d.RestartMaster(0, true); err != nil {
		t.Fatalf("RestartMaster: %v", err)
	}
	if err := d.SetMasterLatency(1, 10*time.Millisecond); err != nil {
		t.Fatalf("SetMasterLatency: %v", err)
	}
	go collect(d, time.Hour, nil) // a reader that ends when Close closes the channel
	time.Sleep(300 * time.Millisecond)
	during := runtime.NumGoroutine()
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	after := runtime.NumGoroutine()
	for after > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	t.Logf("goroutines: %d before Start, %d while running, %d after Close", before, during, after)
	if after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%d goroutines left after Close (%d before Start):\n%s", after-before, before, buf[:n])
	}
}

func TestStartIsFast(t *testing.T) {
	const limit = 2 * time.Second
	begin := time.Now()
	d, err := Start(Options{})
	took := time.Since(begin)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer d.Close()
	t.Logf("Start took %v (five masters, their network and %d clients)", took.Round(time.Microsecond), DefaultClients)
	if took > limit {
		t.Errorf("Start took %v, more than %v", took, limit)
	}
}

func BenchmarkStart(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		begin := time.Now()
		d, err := Start(Options{Paused: true})
		total += time.Since(begin)
		if err != nil {
			b.Fatalf("Start: %v", err)
		}
		b.StopTimer()
		d.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/start")
}

func TestOptionsAreCheckedAndDefaulted(t *testing.T) {
	for _, opts := range []Options{
		{Clients: -1}, {Clients: 51}, {Resources: -2}, {Rate: -1}, {ScenarioPace: time.Second},
		{NodeTimeout: -time.Millisecond}, {NodeTimeout: MaxTTL},
	} {
		if d, err := Start(opts); err == nil {
			d.Close()
			t.Errorf("Start(%+v) succeeded, want an error", opts)
		}
	}
	d := startDemo(t, Options{Clients: 2, Resources: 10, Rate: 100, Paused: true})
	if got := len(d.Resources()); got != 10 {
		t.Errorf("%d resources, want 10", got)
	}
	if names := d.Resources(); names[0] != "billing:nightly" || names[9] != "jobs:batch-10" {
		t.Errorf("resources %v: want the named ones first, then numbered ones", names)
	}
	if got := d.Rate(); got != MaxRate {
		t.Errorf("rate %v, want it clamped to %v", got, MaxRate)
	}
	if got := d.SetRate(0.01); got != MinRate {
		t.Errorf("SetRate(0.01) = %v, want %v", got, MinRate)
	}
	if !d.Paused() {
		t.Error("Options.Paused did not start the workload paused")
	}
	if addrs := d.Addrs(); len(addrs) != MasterCount {
		t.Errorf("%d addresses, want %d", len(addrs), MasterCount)
	}
}

func TestPausedWorkloadIsQuiet(t *testing.T) {
	d := startDemo(t, Options{Paused: true})
	if es := collect(d, 700*time.Millisecond, func(e Event) bool { return e.Kind == EventAcquired }); len(es) > 0 {
		t.Fatalf("events while paused: %v", texts(es))
	}
	d.SetPaused(false)
	es := collect(d, 2*time.Second, func(e Event) bool { return e.Kind == EventAcquired })
	if len(es) == 0 || es[len(es)-1].Kind != EventAcquired {
		t.Fatalf("no acquisition after resuming; events: %v", texts(es))
	}
}

func TestMastersAreReachableAndFaultsShow(t *testing.T) {
	d := startDemo(t, Options{Paused: true})
	ctx := context.Background()
	clients := d.NewClients()
	defer closeAll(clients)
	for i, c := range clients {
		if err := c.Ping(ctx).Err(); err != nil {
			t.Fatalf("master %d at %s: %v", i+1, d.Addrs()[i], err)
		}
	}
	locker, err := redlock.New(clients)
	if err != nil {
		t.Fatalf("redlock.New over NewClients: %v", err)
	}
	defer locker.Close()

	steps := []struct {
		name  string
		do    func() error
		check func(MasterState) bool
	}{
		{"stop", func() error { return d.StopMaster(1) }, func(m MasterState) bool { return m.Down }},
		{"start", func() error { return d.StartMaster(1) }, func(m MasterState) bool { return !m.Down }},
		{"pause", func() error { return d.SetMasterPaused(1, true) }, func(m MasterState) bool { return m.Paused }},
		{"resume", func() error { return d.SetMasterPaused(1, false) }, func(m MasterState) bool { return !m.Paused }},
		{"latency", func() error { return d.SetMasterLatency(1, 30*time.Millisecond) },
			func(m MasterState) bool { return m.Latency == 30*time.Millisecond }},
		{"partition", func() error { return d.SetMasterPartitioned(1, true) },
			func(m MasterState) bool { return m.Partitioned }},
		{"clock jump", func() error { return d.JumpMasterClock(1, time.Minute) },
			func(m MasterState) bool { return m.ClockOffset > 59*time.Second }},
		{"clock rate", func() error { return d.SetMasterClockRate(1, 3) },
			func(m MasterState) bool { return m.ClockRate == 3 }},
		{"delayed restart", func() error { return d.RestartMaster(1, true) },
			func(m MasterState) bool { return m.Down && time.Until(m.RestartAt) > RestartDelay-time.Second }},
		{"start cancels the delayed restart", func() error { return d.StartMaster(1) },
			func(m MasterState) bool { return !m.Down && m.RestartAt.IsZero() }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if m := d.Masters()[1]; !s.check(m) {
			t.Errorf("after %s, master 2 is %+v", s.name, m)
		}
		es := collect(d, time.Second, func(e Event) bool { return e.Kind == EventFault })
		if len(es) == 0 || es[len(es)-1].Master != 1 {
			t.Errorf("%s logged no fault event for master 2: %v", s.name, texts(es))
		}
	}
	// The dashboard's own path is not behind the clients' partition.
	if err := clients[1].Ping(ctx).Err(); err != nil {
		t.Errorf("master 2 unreachable on its own address while partitioned from the clients: %v", err)
	}
	if err := d.StopMaster(MasterCount); err == nil {
		t.Error("StopMaster accepted a master index out of range")
	}
	if err := d.SetMasterClockRate(0, -1); err == nil {
		t.Error("SetMasterClockRate accepted a negative rate")
	}
	if err := d.JumpMasterClock(0, -time.Second); err == nil {
		t.Error("JumpMasterClock accepted a backward jump")
	}
	if err := d.StopMaster(2); err != nil {
		t.Fatal(err)
	}
	if err := d.SetMasterPaused(2, true); err == nil {
		t.Error("pausing a stopped master succeeded")
	}
	if _, err := d.PauseClient(DefaultClients); err == nil {
		t.Error("PauseClient accepted a client index out of range")
	}
}

func TestGCPausedClientWritesLate(t *testing.T) {
	parallelUnlessRace(t)
	d := startDemo(t, patient(Options{Clients: 2, Resources: 1, Rate: 3}))
	deadline := time.Now().Add(3 * time.Second)
	for len(d.Beliefs()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	name, err := d.PauseClient(-1)
	if err != nil {
		t.Fatalf("PauseClient: %v", err)
	}
	var paused Event
	es := collect(d, 6*time.Second, func(e Event) bool {
		if e.Kind == EventClientPaused && e.Client == name {
			paused = e
		}
		return paused.Client != "" && e.Kind == EventWrite && e.Token == paused.Token
	})
	last := es[len(es)-1]
	if paused.Client == "" || last.Kind != EventWrite || last.Token != paused.Token {
		t.Fatalf("%s did not freeze and write when it resumed; events:\n%s", name, strings.Join(texts(es), "\n"))
	}
	if !strings.Contains(last.Text, "ago") {
		t.Errorf("the late write does not say how late it is: %s", last.Text)
	}
	for _, v := range d.Violations() {
		if v.Kind == ViolationStaleWrite && v.First.Client != name {
			t.Errorf("stale write blamed on %s, the frozen client was %s", v.First.Client, name)
		}
	}
	t.Logf("late write: %s; violations: %d", last.Text, len(d.Violations()))
}

func TestClosedDemoRefusesScenarios(t *testing.T) {
	d, err := Start(Options{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := d.RunScenario(context.Background(), "gc-pause"); !errors.Is(err, errClosed) {
		t.Errorf("RunScenario after Close: %v, want errClosed", err)
	}
	if err := d.RestartMaster(0, true); err == nil {
		t.Error("RestartMaster after Close succeeded")
	}
}

func TestEventTimesFollowTheirOrder(t *testing.T) {
	l := newEventLog()
	late := time.Now()
	early := late.Add(-time.Second) // stamped by a caller that was overtaken before it logged
	l.add(Event{Time: late, Text: "first"})
	second := l.add(Event{Time: early, Text: "second"})
	third := l.add(Event{Text: "third"})
	if second.Seq != 2 || second.Time.Before(late) || third.Time.Before(second.Time) {
		t.Errorf("times go back along the sequence: first %v, second #%d %v, third %v", late, second.Seq,
			second.Time, third.Time)
	}
}

// TestEveryReaderGetsEveryEvent: the screen, the event stream and the metrics each read the demo's events;
// each must get all of them (issue 23: one channel shared by two readers gave each only some).
func TestEveryReaderGetsEveryEvent(t *testing.T) {
	d := startDemo(t, Options{Paused: true})
	early := d.Events() // subscribed before anything happens
	for i := range 5 {
		d.log.add(Event{Kind: EventFault, Master: -1, Text: fmt.Sprintf("fault %d", i)})
	}
	late := d.Events() // subscribed after: gets the events so far too
	for i := 5; i < 40; i++ {
		d.log.add(Event{Kind: EventFault, Master: -1, Text: fmt.Sprintf("fault %d", i)})
	}
	d.Close()
	for name, ch := range map[string]<-chan Event{"early": early, "late": late} {
		var faults []string
		for e := range ch {
			if e.Kind == EventFault && strings.HasPrefix(e.Text, "fault ") {
				faults = append(faults, e.Text)
			}
		}
		if len(faults) != 40 || faults[0] != "fault 0" || faults[39] != "fault 39" {
			t.Errorf("the %s reader got %d of the 40 events (%q ... )", name, len(faults), faults[:min(3, len(faults))])
		}
	}
}
