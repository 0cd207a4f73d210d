package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v3"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/metrics"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
)

// Deadlines of the metrics server: a scrape renders a snapshot already in memory, so these are generous.
const (
	metricsReadTimeout     = 10 * time.Second
	metricsWriteTimeout    = 30 * time.Second
	metricsShutdownTimeout = 5 * time.Second
)

// Outputs are where the feed sends what happens, besides the screen.
type Outputs struct {
	Events       string    // --events: the file to append the event stream to, "-" Stdout, "" none
	Metrics      string    // --metrics: the address to serve Prometheus metrics on, "" none
	WebConfig    string    // --web.config.file: the exporter toolkit's TLS and basic auth configuration, "" none
	MetricsLocks []string  // resources with series of their own in the metrics
	Release      string    // the program's release, in the metrics' build information
	Stdout       io.Writer // the event stream's destination for "-"
	Stderr       io.Writer // where the metrics server says its address, and reports a failure
	Record       string    // --record: the file to record every poll and event to, "" none
	RecordMax    int64     // --record-max: the size at which the recording begins a new file (0: the default)
}

// Feed hands every event to every output: after each poll, the monitor's snapshot to the metrics exporter and
// its events and warnings to the event stream; the demo's events; and the dashboard's actions (Emit).
// It runs on the monitor's and the demo's goroutines, never on the screen's.
type Feed struct {
	stream   *events.Writer // nil without --events
	exporter *metrics.Exporter
	recorder *record.Writer // nil without --record
	closers  []func()
}

// startFeed opens the outputs and starts feeding them from mon and d (nil outside demo mode); driftFactor is
// the monitor's (0: its default), from which the metrics tell the clock allowance, and header names the masters
// and the monitor's configuration in a recording.
func startFeed(out Outputs, mon *monitor.Monitor, d *demo.Demo, driftFactor float64, header record.Header) (*Feed, error) {
	f := &Feed{exporter: metrics.New(metrics.Options{Resources: out.MetricsLocks, Version: out.Release,
		DriftFactor: driftFactor})}
	if out.Events != "" {
		w, closeEvents, err := openEvents(out.Events, out.Stdout)
		if err != nil {
			return nil, err
		}
		f.stream = events.NewWriter(w)
		f.closers = append(f.closers, closeEvents)
	}
	if out.Metrics != "" {
		shutdown, err := serveMetrics(out.Metrics, out.WebConfig, f.exporter, healthAge(header.Config), out.Stderr)
		if err != nil {
			f.close()
			return nil, err
		}
		f.closers = append(f.closers, shutdown)
	}
	if out.Record != "" {
		if err := f.startRecording(out, mon, header); err != nil {
			f.close()
			return nil, err
		}
	}
	if d != nil {
		go f.followDemo(d)
	}
	mon.Observe(f.poll)
	return f, nil
}

// Err returns the first error that stopped the event stream or the recording, or nil.
func (f *Feed) Err() error {
	if f.recorder != nil {
		if err := f.recorder.Err(); err != nil {
			return err
		}
	}
	if f.stream == nil {
		return nil
	}
	return f.stream.Err()
}

// startRecording records every poll of mon, and the events the polls do not remake, to out.Record, with
// header (the masters, the monitor's configuration).
func (f *Feed) startRecording(out Outputs, mon *monitor.Monitor, header record.Header) error {
	header.Started = time.Now()
	w, err := record.Create(out.Record, out.RecordMax, header, mon.ReadWholeNext)
	if err != nil {
		return err
	}
	f.recorder = w
	f.closers = append(f.closers, func() { _ = w.Close() }) // its first error is Err's
	mon.ObservePolls(func(p monitor.Poll) { _ = w.WritePoll(p) })
	return nil
}

// close stops the metrics server and closes the event stream.
func (f *Feed) close() {
	for i := len(f.closers) - 1; i >= 0; i-- {
		f.closers[i]()
	}
	f.closers = nil
}

// emit writes records to the event stream, if there is one, and those the polls do not remake (the
// dashboard's, the demo's) to the recording, if there is one.
func (f *Feed) emit(rs ...events.Record) {
	for _, r := range rs {
		if f.stream != nil {
			f.stream.Emit(r)
		}
		if f.recorder != nil && (r.Source == events.SourceDashboard || r.Source == events.SourceDemo) {
			_ = f.recorder.WriteEvent(r) // its first error is Err's
		}
	}
}

// poll is the monitor observer: every poll's snapshot to the exporter, its new events and the warnings raised
// and cleared to the stream.
func (f *Feed) poll(prev *monitor.Snapshot, s monitor.Snapshot) {
	fresh := s.EventsSince(prev)
	f.exporter.Observe(s, fresh)
	if prev == nil { // the locks held before the watcher started, which no change tells
		f.emit(events.AlreadyHeld(s)...)
	}
	f.emit(events.FromPoll(prev, s, fresh)...)
	f.emit(events.Warnings(prev, s)...)
}

// Emit writes a record of the dashboard's own to the event stream, if there is one: the dashboard's actions,
// in the words its event log shows. Feed is the dashboard's events.Sink.
func (f *Feed) Emit(r events.Record) { f.emit(r) }

// followDemo passes the demo's events on to the stream and counts them, and its violations, in the metrics,
// until the demo closes.
func (f *Feed) followDemo(d *demo.Demo) {
	addrs := d.Addrs()
	for e := range d.Events() {
		f.exporter.AddDemoEvent(string(e.Kind))
		if e.Kind == demo.EventViolation {
			f.exporter.AddViolations(1)
		}
		f.emit(e.Record(addrs))
	}
}

// openEvents opens the event stream: "-" is stdout, anything else a file appended to (private: it names lock
// tokens; see openPrivate). It returns the writer and what closes it.
func openEvents(name string, stdout io.Writer) (io.Writer, func(), error) {
	if name == "-" {
		return stdout, func() {}, nil
	}
	f, err := openPrivate("--events", name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil // an error closing an append-only file loses nothing already written
}

// loopback reports whether a listener's address is on the loopback interface alone: what it serves stays on
// this host. Every interface (0.0.0.0, ::) and a host's own addresses are not.
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// healthAge is how long after the last poll /healthz says the process no longer polls: three polls and their
// timeouts, and never less than 30s.
func healthAge(cfg monitor.RecordedConfig) time.Duration {
	return max(3*(cfg.Interval+cfg.Timeout), 30*time.Second)
}

// serveMetrics listens on addr and serves, in the background, the exporter at /metrics, whether it polls at
// /healthz (a poll within maxAge) and whether a quorum answered at /readyz, with TLS and basic auth when
// webConfig (the Prometheus exporter toolkit's web configuration file) sets them; the address it listens on
// goes to stderr (useful with port 0), with a warning when it is not the loopback interface alone and webConfig
// sets no authentication. An unreadable or invalid webConfig is an error before anything is served. It returns
// what stops the server.
func serveMetrics(addr, webConfig string, exporter *metrics.Exporter, maxAge time.Duration, stderr io.Writer) (shutdown func(), err error) {
	auth, tlsOn, err := checkWebConfig(webConfig)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", exporter.Handler())
	mux.Handle("/healthz", exporter.Healthz(maxAge))
	mux.Handle("/readyz", exporter.Readyz())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsReadTimeout, ReadTimeout: metricsReadTimeout,
		WriteTimeout: metricsWriteTimeout}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})) // the toolkit's notes are not the user's
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := web.Serve(ln, srv, &web.FlagConfig{WebConfigFile: &webConfig}, logger); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "redlock-tui: metrics server: %v\n", err)
		}
	}()
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	fmt.Fprintf(stderr, "redlock-tui: metrics at %s://%s/metrics\n", scheme, ln.Addr())
	if !loopback(ln.Addr()) && !auth {
		fmt.Fprintf(stderr, "redlock-tui: WARNING: --metrics %s: the metrics are served to the network without "+
			"authentication: anyone who can reach %s reads the masters' and the locks' names; listen on "+
			"127.0.0.1 or [::1], set basic_auth_users in a --web.config.file, or serve behind a proxy that "+
			"authenticates\n", addr, ln.Addr())
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), metricsShutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(ctx) // past the deadline the process exits anyway
		<-done
	}, nil
}

// webConfigFile is what checkWebConfig reads of a web configuration file, beyond the toolkit's own checks.
type webConfigFile struct {
	TLS struct {
		CertFile string `yaml:"cert_file"`
		Cert     string `yaml:"cert"`
	} `yaml:"tls_server_config"`
	Users map[string]string `yaml:"basic_auth_users"`
}

// checkWebConfig validates the web configuration file name, as the toolkit will read it (its certificates
// and its users' bcrypt hashes included), and says whether it sets basic auth and TLS; "" sets neither.
func checkWebConfig(name string) (auth, tlsOn bool, err error) {
	if name == "" {
		return false, false, nil
	}
	if err := web.Validate(name); err != nil {
		return false, false, fmt.Errorf("--web.config.file %s: %w", name, err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return false, false, fmt.Errorf("--web.config.file: %w", err)
	}
	var c webConfigFile
	if err := yaml.Unmarshal(data, &c); err != nil {
		return false, false, fmt.Errorf("--web.config.file %s: %w", name, err)
	}
	return len(c.Users) > 0, c.TLS.CertFile != "" || c.TLS.Cert != "", nil
}
