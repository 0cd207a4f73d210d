package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
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
	// Notify is told of each file that a write error stopped (an output-failed record, which the event stream
	// has been given unless the stream is what failed); nil: its text goes to Stderr. The dashboard shows it.
	Notify func(Notice)
}

// Notice is what the feed tells of the files it writes: one of the program's own events (output-failed,
// output-reopened), the files stopped by a write error after it, each as the sentence of its failure, and,
// for a reopening, the files that could not be reopened.
type Notice struct {
	Record      events.Record
	Stopped     []string
	NotReopened []string
}

// The flags of the files the feed writes, which name them in messages, events and metrics.
const (
	flagEvents = "--events"
	flagRecord = "--record"
)

// Feed hands every event to every output: after each poll, the monitor's snapshot to the metrics exporter and
// its events and warnings to the event stream; the demo's events; and the dashboard's actions (Emit).
// It runs on the monitor's and the demo's goroutines, never on the screen's.
type Feed struct {
	stream   *events.Writer // nil without --events
	file     *privateFile   // the stream's file; nil for stdout
	exporter *metrics.Exporter
	recorder *record.Writer // nil without --record
	notify   func(Notice)
	closers  []func()

	mu       sync.Mutex
	stopped  map[string]string // the outputs a write error stopped, by flag, until reopened: the sentence
	failures []outputFailure   // every write error that stopped an output, in order
}

// startFeed opens the outputs and starts feeding them from mon and d (nil outside demo mode); driftFactor is
// the monitor's (0: its default), from which the metrics tell the clock allowance, and header names the masters
// and the monitor's configuration in a recording.
func startFeed(out Outputs, mon *monitor.Monitor, d *demo.Demo, driftFactor float64, header record.Header) (*Feed, error) {
	f := &Feed{exporter: metrics.New(metrics.Options{Resources: out.MetricsLocks, Version: out.Release,
		DriftFactor: driftFactor}), notify: out.Notify, stopped: map[string]string{}}
	if f.notify == nil {
		f.notify = func(n Notice) { fmt.Fprintf(out.Stderr, "redlock-tui: %s\n", n.Record.Text) }
	}
	if out.Events != "" {
		if err := f.openEvents(out.Events, out.Stdout); err != nil {
			return nil, err
		}
		f.exporter.SetOutput(flagEvents, true)
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

// Failures returns every write error that stopped an output (--events, --record) while the program ran, each
// naming its flag, as one error; nil when none did.
func (f *Feed) Failures() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return joinFailures(f.failures)
}

// failed reports err, when not nil, as the failure of the output flag names, once until it is reopened: in the
// metrics, in the event stream (unless that is what failed) and to notify. The program goes on without it.
func (f *Feed) failed(flag string, err error) {
	if err == nil {
		return
	}
	r := events.Program(time.Now(), events.KindOutputFailed, fmt.Sprintf("%s stopped: %v; the program goes on "+
		"without it (SIGHUP reopens it; the exit status will say it failed)", flag, err))
	f.mu.Lock()
	if f.stopped[flag] != "" {
		f.mu.Unlock()
		return
	}
	f.stopped[flag] = r.Text
	f.failures = append(f.failures, outputFailure{flag: flag, err: err})
	f.mu.Unlock()
	f.exporter.SetOutput(flag, false)
	if flag != flagEvents && f.stream != nil {
		f.stream.Emit(r)
		f.failed(flagEvents, f.stream.Err())
	}
	f.notify(Notice{Record: r, Stopped: f.Stopped()})
}

// resumed marks the output flag names as written again, after a reopen.
func (f *Feed) resumed(flag string) {
	f.mu.Lock()
	delete(f.stopped, flag)
	f.mu.Unlock()
	f.exporter.SetOutput(flag, true)
}

// Stopped returns the sentence of each output a write error stopped and no reopening has resumed, by flag.
func (f *Feed) Stopped() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	flags := slices.Sorted(maps.Keys(f.stopped))
	out := make([]string, len(flags))
	for i, flag := range flags {
		out[i] = f.stopped[flag]
	}
	return out
}

// reopen reopens the event stream's file and the recording at their paths (App.Reopen), and returns what was
// reopened and what could not be, each naming its flag; what could not be is an output failure.
func (f *Feed) reopen() (done, failed []string) {
	if f.file != nil {
		if err := f.file.reopen(); err != nil {
			failed = append(failed, err.Error())
			f.failed(flagEvents, err)
		} else {
			f.stream.SetOutput(f.file)
			f.resumed(flagEvents)
			done = append(done, flagEvents+" "+f.file.name)
		}
	}
	if f.recorder != nil {
		if err := f.recorder.Reopen(); err != nil {
			failed = append(failed, flagRecord+": "+err.Error())
			f.failed(flagRecord, err)
		} else {
			f.resumed(flagRecord)
			done = append(done, flagRecord+" "+f.recorder.Path())
		}
	}
	return done, failed
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
	f.exporter.SetOutput(flagRecord, true)
	f.closers = append(f.closers, func() { f.failed(flagRecord, w.Close()) }) // ending the stream may fail too
	mon.ObservePolls(func(p monitor.Poll) { f.failed(flagRecord, w.WritePoll(p)) })
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
			f.failed(flagEvents, f.stream.Err())
		}
		if f.recorder != nil && (r.Source == events.SourceDashboard || r.Source == events.SourceDemo) {
			f.failed(flagRecord, f.recorder.WriteEvent(r))
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
// tokens; see openPrivate), which App.Reopen reopens.
func (f *Feed) openEvents(name string, stdout io.Writer) error {
	if name == "-" {
		f.stream = events.NewWriter(stdout)
		return nil
	}
	file, err := openPrivateFile(flagEvents, name)
	if err != nil {
		return err
	}
	f.file, f.stream = file, events.NewWriter(file)
	f.closers = append(f.closers, file.close) // an error closing an append-only file loses nothing already written
	return nil
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
