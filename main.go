// Command redlock-tui is a terminal dashboard for Redis distributed locks
// (Redlock) across N independent masters: who holds what, on which masters,
// for how long, and what is wrong with the masters. Without --masters it
// starts embedded demo masters; with --once it prints one snapshot and exits.
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/internal/untrusted"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailure  = 1 // the program could not do its work (embedded masters did not start, output failed)
	exitUsage    = 2 // bad command line, before anything is connected or drawn
	exitNoQuorum = 3 // --once: fewer than a quorum of masters answered
)

// version is the release, set at build time with -ldflags "-X main.version=v1.2.3";
// empty means the module version from the build information.
var version string

// system is what run uses from the outside world, injected for tests.
type system struct {
	Environment
	stdout, stderr   io.Writer
	stdoutIsTerminal bool
	stderrIsTerminal bool // --once writes its progress there
}

func main() {
	// go-redis logs failed dials to stderr, which would write over the screen;
	// the monitor reports every such failure as a down master instead.
	redis.SetLogger(quietLogger{})
	os.Exit(run(os.Args[1:], system{
		Environment:      Environment{Getenv: os.Getenv, ReadFile: readInputFile, ConfigDir: os.UserConfigDir},
		stdout:           os.Stdout,
		stderr:           os.Stderr,
		stdoutIsTerminal: term.IsTerminal(os.Stdout.Fd()),
		stderrIsTerminal: term.IsTerminal(os.Stderr.Fd()),
	}))
}

// quietLogger discards go-redis's log lines.
type quietLogger struct{}

// Printf discards the line.
func (quietLogger) Printf(context.Context, string, ...any) {}

// run is the whole program; it returns the exit status.
func run(args []string, sys system) int {
	if len(args) > 0 {
		switch args[0] {
		case "run":
			return runUnderLock(args[1:], sys)
		case "version":
			fmt.Fprintln(sys.stdout, versionString())
			return exitOK
		}
		if generated[args[0]] {
			return runGenerated(args, sys)
		}
	}
	cfg, err := parseConfig(args, sys.Environment)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return exitUsage
	}
	switch {
	case cfg.Help:
		fmt.Fprint(sys.stdout, usage())
		return exitOK
	case cfg.Version:
		fmt.Fprintln(sys.stdout, versionString())
		return exitOK
	case !cfg.Once && !cfg.Headless && !sys.stdoutIsTerminal:
		fmt.Fprintln(sys.stderr, "redlock-tui: stdout is not a terminal, so the dashboard cannot start; use --once (with --json for JSON) to print one snapshot")
		return exitUsage
	}
	if cfg.TLSSkipVerify {
		fmt.Fprintln(sys.stderr, "redlock-tui: WARNING: --tls-skip-verify: the masters' TLS certificates are NOT verified; anyone on the network path can impersonate them and read the password")
	}

	dbg, err := openDebug(cfg.Debug)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return exitFailure
	}
	defer dbg.close()
	masters, err := openMasters(cfg)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return exitFailure
	}
	defer masters.close()
	mon, err := monitor.New(masters.clients, masters.names, monitorConfig(cfg))
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return exitFailure
	}
	if dbg != nil {
		mon.Observe(dbg.poll)
	}
	if cfg.Once {
		return runOnce(mon, cfg, sys)
	}
	if cfg.Headless {
		return runHeadless(mon, masters, cfg, sys)
	}
	return runDashboard(mon, masters, cfg, dbg, sys)
}

// monitorConfig is the monitor's part of the command line.
func monitorConfig(cfg Config) monitor.Config {
	return monitor.Config{
		Pattern:     cfg.Pattern,
		MaxKeys:     cfg.MaxKeys,
		ScanBudget:  cfg.ScanBudget / 100,
		Interval:    cfg.Poll,
		DriftFactor: monitorDriftFactor(cfg.DriftFactor),
		Writes:      !cfg.ReadOnly && !cfg.Once && !cfg.Headless,
		Advise:      connectionAdvice(cfg.Masters),
	}
}

// monitorDriftFactor is the drift factor as the monitor must be given it: the monitor reads 0 as "use the
// default", so a --drift-factor 0, which the Redlock client uses as 0, is passed as the smallest factor above
// 0, which gives the same allowance (ttl × factor rounds to 0ns; the 2ms constant term remains).
func monitorDriftFactor(f float64) float64 {
	if f == 0 {
		return math.SmallestNonzeroFloat64
	}
	return f
}

// runOnce polls until every master that answers has finished one full sweep of its keyspace (however long
// that takes under the scan budget; progress goes to stderr when it is a terminal) and every master either
// answered or was declared down, prints the snapshot and reports whether a quorum of distinct servers answered.
func runOnce(mon *monitor.Monitor, cfg Config, sys system) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	snap := mon.Poll(ctx)
	for (!snap.Swept || undecided(snap)) && ctx.Err() == nil {
		if sys.stderrIsTerminal {
			fmt.Fprintf(sys.stderr, "\r\x1b[Kscanning for locks: %s", sweepProgress(snap))
		}
		select {
		case <-ctx.Done():
		case <-time.After(cfg.Poll):
			snap = mon.Poll(ctx)
		}
	}
	if sys.stderrIsTerminal {
		fmt.Fprint(sys.stderr, "\r\x1b[K")
	}
	if ctx.Err() != nil {
		fmt.Fprintln(sys.stderr, "redlock-tui: interrupted before every master was scanned; the snapshot may miss locks")
	}
	write := monitor.WriteTable
	if cfg.JSON {
		write = monitor.WriteJSON
	}
	if err := write(sys.stdout, snap); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: writing the snapshot: %v\n", err)
		return exitFailure
	}
	if snap.UpCount < snap.Quorum {
		return exitNoQuorum
	}
	return exitOK
}

// undecided reports whether some master missed a poll without being declared down yet: --once asks again
// rather than report a master that was merely slow as missing.
func undecided(s monitor.Snapshot) bool {
	for _, m := range s.Masters {
		if !m.Up && !m.Down {
			return true
		}
	}
	return false
}

// sweepProgress describes, per master still in its first sweep, how far it has got.
func sweepProgress(s monitor.Snapshot) string {
	var parts []string
	for _, m := range s.Masters {
		if m.Up && m.DuplicateOf == "" && m.Sweep.Completed == 0 {
			parts = append(parts, untrusted.Escape(m.Addr)+" "+m.Sweep.Progress())
		}
	}
	return strings.Join(parts, ", ")
}

// runDashboard runs the full-screen dashboard until the user quits, then
// prints the UI's summary on the restored terminal.
func runDashboard(mon *monitor.Monitor, masters *masterSet, cfg Config, dbg *debugLog, sys system) int {
	// Read-only: no Redlock client exists at all, so no write can be issued
	// whatever the UI does; the UI also disables the write keys and says why.
	var stream *events.Writer
	if cfg.Metrics != "" || cfg.Events != "" {
		var stop func()
		var err error
		stop, stream, err = observeForOthers(mon, masters, cfg, sys)
		if err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return exitFailure
		}
		defer stop()
	}
	var locker *redlock.Client
	if !cfg.ReadOnly {
		opts := lockerOptions(cfg, dbg.observer())
		if stream != nil {
			opts = append(opts, dashboardActions(stream))
		}
		var err error
		locker, err = redlock.New(masters.clients, opts...)
		if err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return exitUsage
		}
		defer locker.Close()
	}
	title := fmt.Sprintf("%d masters", len(masters.names))
	if masters.demo != nil {
		title = "demo"
	}
	model := ui.New(ui.Options{
		Monitor:  mon,
		Locker:   locker,
		Keys:     newKeyMap(),
		ReadOnly: cfg.ReadOnly,
		TTL:      cfg.TTL,
		Poll:     cfg.Poll,
		Title:    title,
		Now:      time.Now,
		Demo:     masters.demo,

		Profile:      cfg.Profile,
		ProfileColor: cfg.ProfileColor,
		Production:   cfg.Production,
	})
	// Mouse: a click selects a row, the wheel scrolls; shift+drag still selects text in most terminals.
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithoutSignalHandler(), tea.WithMouseCellMotion()}
	if !term.IsTerminal(os.Stdin.Fd()) {
		opts = append(opts, tea.WithInputTTY()) // keys come from the terminal even when stdin is redirected
	}
	p := tea.NewProgram(model, opts...)
	stopSignals := quitOnSignal(p)
	final, err := p.Run()
	stopSignals()
	if m, ok := final.(*ui.Model); ok {
		fmt.Fprintln(sys.stdout, m.Summary())
	}
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// quitGrace bounds how long the dashboard may take to release our locks and
// quit after a signal, before it is stopped regardless.
const quitGrace = 5 * time.Second

// quitOnSignal makes SIGINT, SIGTERM and SIGHUP quit the dashboard the way
// the quit key does, so that the locks we hold are released and the terminal
// is restored; a second signal, or quitGrace without an exit, kills the
// program (Run still restores the terminal). It returns a function that stops
// listening.
func quitOnSignal(p *tea.Program) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		// ctrl+c is a Quit key (keymap.go): the dashboard releases our locks, then quits.
		p.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
		select {
		case <-sigs:
		case <-time.After(quitGrace):
		case <-done:
			return
		}
		p.Kill()
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// masterSet is the masters the program talks to: one client per master,
// aligned with the names shown on screen, and what to close at the end.
type masterSet struct {
	clients []*redis.Client
	names   []string
	demo    *demo.Demo // the embedded masters and their workload; nil with --masters
}

// close closes the clients and stops the demo.
func (s *masterSet) close() {
	for _, c := range s.clients {
		c.Close() // an error on close changes nothing for the user
	}
	if s.demo != nil {
		s.demo.Close()
	}
}

// openMasters creates a client per --masters entry, or starts the demo's
// embedded masters when there are none. Clients connect lazily: an
// unreachable master is not an error here, the monitor shows it down.
func openMasters(cfg Config) (*masterSet, error) {
	set := &masterSet{}
	if len(cfg.Masters) == 0 {
		// With --once the workload stays paused: one snapshot of idle masters.
		d, err := demo.Start(demo.Options{Clients: cfg.DemoClients, Resources: cfg.DemoResources, Paused: cfg.Once})
		if err != nil {
			return nil, fmt.Errorf("starting the embedded demo masters: %w", err)
		}
		set.demo = d
		set.clients = d.NewClients()
		set.names = d.Addrs()
		return set, nil
	}
	for _, m := range cfg.Masters {
		c := redis.NewClient(m.Options)
		set.clients = append(set.clients, c)
		set.names = append(set.names, m.Name)
	}
	return set, nil
}

// versionString names the program, its release (or the commit it was built from) and the Go version.
func versionString() string {
	return "redlock-tui " + buildVersion() + " " + runtime.Version()
}

// buildVersion is the release: the one set at build time, else the module version of a go install, else the
// commit the binary was built from ("+dirty" with uncommitted changes), else "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v // a module version (go install ...@v1.2.3 or a pseudo-version) names its commit
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "(devel)"
	case dirty:
		return "(devel) " + rev + "+dirty"
	}
	return "(devel) " + rev
}
