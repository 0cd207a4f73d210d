package cli

import (
	"fmt"

	"github.com/redlock-tui/redlock-tui/internal/app"
)

// runHeadless polls the masters with no screen until SIGINT or SIGTERM, serving --metrics and writing
// --events from every snapshot.
func runHeadless(a *app.App, cfg Config, sys system) int {
	ctx, stop := interruptible()
	defer stop()
	if err := a.Publish(outputs(cfg, sys)); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return ExitFailure
	}
	for range a.Monitor.Run(ctx) {
		if err := a.Feed.Err(); err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return ExitFailure
		}
	}
	return ExitOK
}

// outputs are the feed's outputs the command line asks for.
func outputs(cfg Config, sys system) app.Outputs {
	return app.Outputs{Events: cfg.Events, Metrics: cfg.Metrics, WebConfig: cfg.WebConfig, MetricsLocks: cfg.MetricsLocks,
		Release: buildVersion(sys.release), Stdout: sys.stdout, Stderr: sys.stderr,
		Record: cfg.Record, RecordMax: cfg.recordMax}
}
