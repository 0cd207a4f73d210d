package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/metrics"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Deadlines of the metrics server: a scrape renders a snapshot already in memory, so these are generous.
const (
	metricsReadTimeout     = 10 * time.Second
	metricsWriteTimeout    = 30 * time.Second
	metricsShutdownTimeout = 5 * time.Second
)

// runHeadless polls the masters with no screen until SIGINT or SIGTERM, serving --metrics and writing
// --events from every snapshot.
func runHeadless(mon *monitor.Monitor, masters *masterSet, cfg Config, sys system) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var stream *events.Writer
	if cfg.Events != "" {
		w, closeEvents, err := openEvents(cfg.Events, sys.stdout)
		if err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return exitFailure
		}
		defer closeEvents()
		stream = events.NewWriter(w)
	}
	exporter := metrics.New(metrics.Options{Resources: cfg.MetricsLocks, Version: buildVersion()})
	if cfg.Metrics != "" {
		shutdown, err := serveMetrics(cfg.Metrics, exporter, sys)
		if err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return exitFailure
		}
		defer shutdown()
	}
	if masters.demo != nil {
		go followDemo(masters.demo, exporter, stream)
	}

	mon.Observe(feed(exporter, stream))
	for range mon.Run(ctx) {
		if stream != nil {
			if err := stream.Err(); err != nil {
				fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
				return exitFailure
			}
		}
	}
	return exitOK
}

// feed returns the monitor observer that hands every poll's snapshot to the exporter and, when there is one,
// to the event stream: the monitor's events, and warnings raised and cleared.
func feed(exporter *metrics.Exporter, stream *events.Writer) func(prev *monitor.Snapshot, s monitor.Snapshot) {
	return func(prev *monitor.Snapshot, s monitor.Snapshot) {
		fresh := s.EventsSince(prev)
		exporter.Observe(s, fresh)
		if stream == nil {
			return
		}
		for _, r := range events.FromMonitor(fresh) {
			stream.Emit(r)
		}
		for _, r := range events.Warnings(prev, s) {
			stream.Emit(r)
		}
	}
}

// observeForOthers serves --metrics and writes --events while the dashboard runs: the monitor feeds them after
// every poll, from its own goroutine, never from the screen's event loop. It returns the event stream (nil
// without --events), for the dashboard's own actions. stop shuts them down and reports a failed event stream
// on stderr, once the screen is gone.
func observeForOthers(mon *monitor.Monitor, masters *masterSet, cfg Config, sys system) (stop func(), stream *events.Writer, err error) {
	closeEvents := func() {}
	if cfg.Events != "" {
		w, c, err := openEvents(cfg.Events, sys.stdout)
		if err != nil {
			return nil, nil, err
		}
		stream, closeEvents = events.NewWriter(w), c
	}
	exporter := metrics.New(metrics.Options{Resources: cfg.MetricsLocks, Version: buildVersion()})
	shutdown := func() {}
	if cfg.Metrics != "" {
		if shutdown, err = serveMetrics(cfg.Metrics, exporter, sys); err != nil {
			closeEvents()
			return nil, nil, err
		}
	}
	if masters.demo != nil {
		go followDemo(masters.demo, exporter, stream)
	}
	mon.Observe(feed(exporter, stream))
	return func() {
		shutdown()
		if stream != nil && stream.Err() != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: --events: %v\n", stream.Err())
		}
		closeEvents()
	}, stream, nil
}

// dashboardActions writes the dashboard's own acquisitions, extensions and releases to the event stream, as
// the Redlock client reports them.
func dashboardActions(stream *events.Writer) redlock.Option {
	return redlock.WithObserver(func(a redlock.Action) {
		r := events.Record{Time: time.Now(), Source: events.SourceDashboard, Resource: a.Resource, Token: a.Token}
		summary := fmt.Sprintf("%d of %d masters (quorum %d)", a.Round.OK, len(a.Round.Nodes), a.Round.Quorum)
		switch {
		case a.Op == redlock.OpAcquire && a.Err == nil:
			r.Kind, r.Text = events.KindAcquired, "acquired on "+summary
		case a.Op == redlock.OpAcquire:
			r.Kind, r.Text = events.KindAcquireFailed, a.Err.Error()
		case a.Op == redlock.OpExtend && a.Err == nil:
			r.Kind, r.Text = events.KindExtended, "extended on "+summary
		case a.Op == redlock.OpExtend && errors.Is(a.Err, redlock.ErrLost):
			r.Kind, r.Text = events.KindLost, a.Err.Error()
		case a.Op == redlock.OpExtend:
			r.Kind, r.Text = events.KindExtendFailed, a.Err.Error()
		case a.Err == nil:
			r.Kind, r.Text = events.KindReleased, "released on "+summary
		default:
			r.Kind, r.Text = events.KindReleaseUnconfirmed, a.Err.Error()
		}
		if a.Fence != 0 {
			r.Text += fmt.Sprintf(", fence %d", a.Fence)
		}
		stream.Emit(r)
	})
}

// openEvents opens the event stream: "-" is stdout, anything else a file appended to (created private: it
// names lock tokens). It returns the writer and what closes it.
func openEvents(name string, stdout io.Writer) (io.Writer, func(), error) {
	if name == "-" {
		return stdout, func() {}, nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("--events: %w", err)
	}
	return f, func() { f.Close() }, nil // an error closing an append-only file loses nothing already written
}

// serveMetrics listens on addr and serves the exporter at /metrics in the background; the address it listens
// on goes to stderr (useful with port 0). It returns what stops the server.
func serveMetrics(addr string, exporter *metrics.Exporter, sys system) (shutdown func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", exporter.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsReadTimeout, ReadTimeout: metricsReadTimeout,
		WriteTimeout: metricsWriteTimeout}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(sys.stderr, "redlock-tui: metrics server: %v\n", err)
		}
	}()
	fmt.Fprintf(sys.stderr, "redlock-tui: metrics at http://%s/metrics\n", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), metricsShutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(ctx) // past the deadline the process exits anyway
		<-done
	}, nil
}

// followDemo passes the demo's events on to the stream and counts its violations, until the demo closes.
// In headless mode nothing else reads them.
func followDemo(d *demo.Demo, exporter *metrics.Exporter, stream *events.Writer) {
	addrs := d.Addrs()
	for e := range d.Events() {
		if e.Kind == demo.EventViolation {
			exporter.AddViolations(1)
		}
		if stream == nil {
			continue
		}
		r := events.Record{Time: e.Time, Source: events.SourceDemo, Kind: string(e.Kind), Resource: e.Resource,
			Token: e.Token, Client: e.Client, Text: e.Text}
		if e.Master >= 0 && e.Master < len(addrs) {
			r.Master = addrs[e.Master]
		}
		stream.Emit(r)
	}
}
