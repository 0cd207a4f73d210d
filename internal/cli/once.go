package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/render"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// onceProgressEvery is how often --once says how far its scan has got when stderr is not a terminal (a log,
// a CI job): a line at each such interval of the scan, none for a shorter scan. A scan that long is summed up at
// its end, on a terminal too.
const onceProgressEvery = 5 * time.Second

// runOnce polls until every master that answers has finished one full sweep of its keyspace (however long
// that takes under the scan budget; progress goes to stderr, in place on a terminal, else a line every
// onceProgressEvery, and a scan longer than that is summed up with what a larger budget would change),
// every master either answered or was declared down, and --watch has passed; prints the snapshot (a table,
// JSON or a Markdown report) and reports whether a quorum of distinct servers answered.
func runOnce(mon *monitor.Monitor, cfg Config, sys system) int {
	ctx, stop := interruptible()
	defer stop()
	start := time.Now()
	snap := mon.Poll(ctx)
	until := snap.Time.Add(cfg.Watch) // --watch is counted in snapshots: the last one is taken that long after the first
	scanning, lastLine, summary := !snap.Swept, start, ""
	for (!snap.Swept || undecided(snap) || snap.Time.Before(until)) && ctx.Err() == nil {
		if !snap.Swept && !sys.stderrIsTerminal && time.Since(lastLine) >= onceProgressEvery {
			lastLine = time.Now()
			fmt.Fprintf(sys.stderr, "redlock-tui: scanning for locks (%s so far): %s\n",
				vocab.ShortDuration(time.Since(start).Round(time.Second)), sweepProgress(snap))
		}
		if sys.stderrIsTerminal && !snap.Swept {
			fmt.Fprintf(sys.stderr, "\r\x1b[Kscanning for locks: %s", sweepProgress(snap))
		} else if sys.stderrIsTerminal {
			fmt.Fprintf(sys.stderr, "\r\x1b[Kwatching: %s left", vocab.ShortDuration(time.Until(until).Round(time.Second)))
		}
		select {
		case <-ctx.Done():
		case <-time.After(cfg.Poll):
			snap = mon.Poll(ctx)
		}
		if scanning && snap.Swept {
			if scanning = false; time.Since(start) >= onceProgressEvery {
				summary = scanSummary(time.Since(start), cfg.ScanBudget)
			}
		}
	}
	if sys.stderrIsTerminal {
		fmt.Fprint(sys.stderr, "\r\x1b[K")
	}
	if summary != "" {
		fmt.Fprintln(sys.stderr, summary)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(sys.stderr, "redlock-tui: interrupted before every master was scanned; the snapshot may miss locks")
	}
	write := render.WriteTable
	switch {
	case cfg.JSON:
		write = render.WriteJSON
	case cfg.Markdown:
		write = func(w io.Writer, s monitor.Snapshot) error {
			return render.WriteReport(w, s, render.ReportOptions{Filter: patternFilter(cfg.Pattern)})
		}
	}
	if err := write(sys.stdout, snap); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: writing the snapshot: %v\n", err)
		return ExitFailure
	}
	if snap.Health() == monitor.HealthNoQuorum {
		return ExitNoQuorum
	}
	return ExitOK
}

// patternFilter names --pattern as the report's filter; "" for the default, every key.
func patternFilter(pattern string) string {
	if pattern == monitor.DefaultPattern {
		return ""
	}
	return "--pattern " + pattern
}

// undecided reports whether some master missed a poll without being declared down yet: --once asks again
// rather than report a master that was merely slow as missing.
func undecided(s monitor.Snapshot) bool {
	for _, m := range s.Masters {
		if !m.Up && !m.Down || primaryUndecided(m) {
			return true
		}
	}
	return false
}

// scanSummary says how long the scan for locks took at the budget given (a percent of a core), and what a
// budget ten times as large would make of it, up to 100%: the scan's pace is its budget, so its time goes
// down, and each master's share of a core spent on it up, in proportion.
func scanSummary(took time.Duration, budget float64) string {
	took = took.Round(100 * time.Millisecond)
	text := fmt.Sprintf("redlock-tui: the scan for locks took %s at --scan-budget %g (each master spending up to "+
		"%g%% of a core on it)", vocab.ShortDuration(took), budget, budget)
	if larger := min(100, budget*10); larger > budget {
		faster := time.Duration(float64(took) * budget / larger).Round(100 * time.Millisecond)
		text += fmt.Sprintf("; --scan-budget %g would take about %s, each master spending up to %g%% of a core "+
			"meanwhile", larger, vocab.ShortDuration(faster), larger)
	}
	return text
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
