package demo

import (
	"context"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// BenchmarkStepAndPoll measures what a presenter waits for after space: a step of a stepped story performed
// (the demo's part) and the poll the dashboard then asks for (the monitor's). One op is one step of
// crash-restart, the story's steps taken in turn.
func BenchmarkStepAndPoll(b *testing.B) {
	d, err := Start(Options{Paused: true, PresenterTTL: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	go collect(d, time.Hour, nil)
	conns := d.NewClients()
	defer closeAll(conns)
	mon, err := monitor.New(conns, d.Addrs(), monitor.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer mon.Close()
	ctx := context.Background()
	run := func() chan error {
		done := make(chan error, 1)
		go func() { _, err := d.RunScenarioAs(ctx, "crash-restart", StepByStep); done <- err }()
		for st, _ := d.Stepping(); !st.Waiting; st, _ = d.Stepping() {
			time.Sleep(time.Millisecond)
		}
		return done
	}
	done := run()
	b.ResetTimer()
	for range b.N {
		_, more, err := d.Step(ctx)
		if err != nil {
			b.Fatal(err)
		}
		mon.Poll(ctx)
		if !more {
			b.StopTimer()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			done = run()
			b.StartTimer()
		}
	}
	b.StopTimer()
	d.Close()
	<-done
}
