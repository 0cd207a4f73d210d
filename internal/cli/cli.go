// Package cli is redlock-tui's command line: it parses the arguments, checks them, and runs the mode they ask
// for over an app.App: the dashboard (dashboard.go), one snapshot (once.go), metrics and events without a
// screen (headless.go), a command under a lock (run.go), or the generated completion scripts and man pages
// (completion.go). It returns the exit status; main exits with it.
package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// Exit statuses of the program (run adds its own).
const (
	ExitOK       = 0
	ExitFailure  = 1 // the program could not do its work (embedded masters did not start, output failed)
	ExitUsage    = 2 // bad command line, before anything is connected or drawn
	ExitNoQuorum = 3 // --once: fewer than a quorum of masters answered
	// ExitOutputFailed: the dashboard or --headless ran to the end, but a file it writes (--record, --events)
	// stopped on a write error (a full disk) on the way, so it is incomplete.
	ExitOutputFailed = 4
)

// system is what run uses from the outside world, injected for tests: the environment, the standard streams,
// and what main chose (the key bindings, the release).
type system struct {
	Environment
	stdout, stderr   io.Writer
	stdoutIsTerminal bool
	stderrIsTerminal bool // --once writes its progress there
	keys             kit.KeyMap
	release          string // set at build time; "" for the module version or the commit of the build
}

// Main runs the program with args (without the program name), the key bindings keys (keymap.go) and the
// release set at build time ("" for none), on the process's environment and standard streams, and returns
// the exit status.
func Main(args []string, keys kit.KeyMap, release string) int {
	// go-redis logs failed dials to stderr, which would write over the screen;
	// the monitor reports every such failure as a down master instead.
	redis.SetLogger(quietLogger{})
	return run(args, system{
		Environment: Environment{Getenv: os.Getenv, ReadFile: readInputFile, ConfigDir: os.UserConfigDir,
			Stat: os.Stat},
		stdout:           os.Stdout,
		stderr:           os.Stderr,
		stdoutIsTerminal: term.IsTerminal(os.Stdout.Fd()),
		stderrIsTerminal: term.IsTerminal(os.Stderr.Fd()),
		keys:             keys,
		release:          release,
	})
}

// interruptible is a context that SIGINT or SIGTERM ends, for the modes without a screen.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
			var v flagValues
			var rc runConfig
			if err := redisCLIHabit(args[1:], newRunFlagSet(&v, &rc)); err != nil {
				fmt.Fprintf(sys.stderr, "redlock-tui run: %v\n", err)
				return ExitUsage
			}
			return runUnderLock(args[1:], sys)
		case "version":
			fmt.Fprintln(sys.stdout, versionString(sys.release))
			return ExitOK
		case "help":
			return helpCommand(args[1:], sys)
		case "replay":
			return replayCommand(args[1:], sys)
		}
		if generated[args[0]] {
			return runGenerated(args, sys)
		}
	}
	cfg, err := parseConfig(args, sys.Environment)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return ExitUsage
	}
	switch {
	case cfg.Help:
		fmt.Fprint(sys.stdout, usage())
		return ExitOK
	case cfg.Version:
		fmt.Fprintln(sys.stdout, versionString(sys.release))
		return ExitOK
	case !cfg.Once && !cfg.Headless && !sys.stdoutIsTerminal:
		fmt.Fprintln(sys.stderr, "redlock-tui: stdout is not a terminal, so the dashboard cannot start; use --once (with --json for JSON) to print one snapshot")
		return ExitUsage
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(sys.stderr, "redlock-tui: %s\n", w)
	}
	if cfg.TLSSkipVerify {
		fmt.Fprintln(sys.stderr, "redlock-tui: WARNING: --tls-skip-verify: the masters' TLS certificates are NOT verified; anyone on the network path can impersonate them and read the password")
	}
	tuneMemory(sys.Environment, cfg.MaxKeys, len(cfg.Masters))
	a, err := openApp(cfg)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return openFailure(err)
	}
	defer a.Close()
	switch {
	case cfg.Once && cfg.Who.Resource != "":
		return runWho(a, cfg, sys)
	case cfg.Once:
		return runOnce(a.Monitor, cfg, sys)
	case cfg.Headless:
		return runHeadless(a, cfg, sys)
	}
	return runDashboard(a, cfg, sys)
}

// openApp opens the masters (the demo's, paused with --once: one snapshot of idle masters) and the monitor
// the command line asks for.
func openApp(cfg Config) (*app.App, error) {
	a, err := app.Open(app.Config{Masters: cfg.Masters, Cluster: cfg.Cluster, Debug: cfg.Debug,
		Demo: demo.Options{Clients: cfg.DemoClients, Resources: cfg.DemoResources, Paused: cfg.Once}})
	if err != nil {
		return nil, err
	}
	if _, err := a.Watch(monitorConfig(cfg)); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// monitorConfig is the monitor's part of the command line.
func monitorConfig(cfg Config) monitor.Config {
	return monitor.Config{
		Pattern:     cfg.Pattern,
		MaxKeys:     cfg.MaxKeys,
		ScanBudget:  cfg.ScanBudget / 100,
		Interval:    cfg.Poll,
		History:     cfg.History,
		DriftFactor: monitorDriftFactor(cfg.DriftFactor),
		Writes:      !cfg.ReadOnly && !cfg.Once && !cfg.Headless,
		Permits:     cfg.Permits,
		Advise:      connectionAdvice(cfg.Masters),

		NoTracking:    cfg.NoTracking || cfg.Once, // one snapshot: the tracking connections would not pay
		FullReadEvery: cfg.FullReadEvery,
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
