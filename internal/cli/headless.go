package cli

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/redlock-tui/redlock-tui/internal/app"
)

// runHeadless polls the masters with no screen until SIGINT or SIGTERM, serving --metrics and writing
// --events and --record from every snapshot. SIGHUP reopens the files it writes (after logrotate renamed them).
// A file that a write error stops is said on stderr, in the event stream and in the metrics, and the program
// goes on without it; the exit status says so at the end (ExitOutputFailed).
func runHeadless(a *app.App, cfg Config, sys system) int {
	ctx, stop := interruptible()
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if err := a.Publish(outputs(cfg, sys)); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return ExitFailure
	}
	snapshots := a.Monitor.Run(ctx)
	for open := true; open; {
		select {
		case _, open = <-snapshots:
		case <-hup:
			fmt.Fprintf(sys.stderr, "redlock-tui: %s\n", a.Reopen().Record.Text)
		}
	}
	return closeOutputs(a, sys)
}

// closeOutputs closes a and says on stderr which of its files a write error stopped while it ran:
// ExitOutputFailed when one did, ExitOK otherwise.
func closeOutputs(a *app.App, sys system) int {
	err := a.Close()
	if err == nil {
		return ExitOK
	}
	for line := range strings.SplitSeq(err.Error(), "\n") { // one failure a line (errors.Join)
		fmt.Fprintf(sys.stderr, "redlock-tui: %s (the file stopped there: it is incomplete)\n", line)
	}
	return ExitOutputFailed
}

// outputs are the feed's outputs the command line asks for.
func outputs(cfg Config, sys system) app.Outputs {
	return app.Outputs{Events: cfg.Events, Metrics: cfg.Metrics, WebConfig: cfg.WebConfig, MetricsLocks: cfg.MetricsLocks,
		Release: buildVersion(sys.release), Stdout: sys.stdout, Stderr: sys.stderr,
		Record: cfg.Record, RecordMax: cfg.recordMax}
}
