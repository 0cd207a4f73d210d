package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// whoConfig is --once --who: name the process that holds one lock, by sampling its master (monitor/whoholds).
type whoConfig struct {
	Resource string        // --who: the lock's key (or the resource a client's key convention names); "" off
	For      time.Duration // --who-for: how long the sample runs
	Lines    int           // --who-lines: the most MONITOR lines it reads
	Confirm  bool          // --who-confirm: sample a read-only or production profile's master all the same
}

// whoFlags are the flags of --who.
var whoFlags = flagGroup{"Who holds it", addWhoFlags, checkWhoFlags}

// addWhoFlags declares --who and its bounds.
func addWhoFlags(fs *pflag.FlagSet, v *flagValues) {
	c := &v.cfg.Who
	fs.StringVar(&c.Resource, "who", "", "with --once: name the process holding this lock, from a MONITOR sample of "+
		"one master mapped to CLIENT LIST (address, client name, library, connected for); costs the master while it runs")
	fs.DurationVar(&c.For, "who-for", whoholds.DefaultFor, fmt.Sprintf("with --who: how long the sample runs (at most %s)",
		vocab.ExactDuration(whoholds.MaxFor)))
	fs.IntVar(&c.Lines, "who-lines", whoholds.DefaultMaxLines, "with --who: the most MONITOR lines the sample reads, on "+
		"every key (a busy master fills it before --who-for)")
	fs.BoolVar(&c.Confirm, "who-confirm", false, "with --who: sample all the same on a read-only or production profile")
}

// checkWhoFlags checks --who's flags. MONITOR costs the master: a read-only or production profile (or
// --read-only) samples only when --who-confirm says so.
func checkWhoFlags(c *Config, _ *flagValues) error {
	w := c.Who
	switch {
	case w.Resource == "" && (w.For != whoholds.DefaultFor || w.Lines != whoholds.DefaultMaxLines || w.Confirm):
		return usagef("--who-for, --who-lines and --who-confirm only apply with --who")
	case w.Resource == "":
		return nil
	case !c.Once:
		return usagef("--who only applies with --once (in the dashboard, a lock's view samples on a key)")
	case c.Markdown:
		return usagef("--who prints its own report: --json for JSON, nothing for text; not --markdown")
	case w.For <= 0 || w.For > whoholds.MaxFor:
		return usagef("--who-for must be from 1ms to %s, got %s", vocab.ExactDuration(whoholds.MaxFor), vocab.ExactDuration(w.For))
	case w.Lines <= 0 || w.Lines > whoholds.MaxMaxLines:
		return usagef("--who-lines must be from 1 to %d, got %d", whoholds.MaxMaxLines, w.Lines)
	case (c.ReadOnly || c.Production) && !w.Confirm:
		what := "--read-only"
		if c.Profile != "" {
			what = fmt.Sprintf("profile %q is read-only or production", c.Profile)
		}
		return usagef("--who samples the master with MONITOR, which makes it copy every command it runs while the "+
			"sample lasts; %s: add --who-confirm to sample all the same", what)
	}
	return nil
}

// whoLonger is the summary's advice on sampling longer, in the command line's words.
func whoLonger(w whoConfig) string {
	if w.For >= whoholds.MaxFor {
		return "a holder that extends less often cannot be caught by a sample"
	}
	return fmt.Sprintf("sample longer (--who-for %s)", whoholds.MaxFor)
}

// runWho polls until the lock --who names is seen (or every master is scanned without it), prints what its
// values say of the holder, samples the master picked for it, and prints the holder's connection: text, or
// JSON with --json. It fails when the lock is not found or the sample cannot run (the ACL refuses it, say).
func runWho(a *app.App, cfg Config, sys system) int {
	ctx, stop := interruptible()
	defer stop()
	w := cfg.Who
	snap, lv := findLock(ctx, a.Monitor, cfg, sys, w.Resource)
	name := untrusted.Escape(w.Resource)
	if lv == nil {
		return whoFailed(cfg, sys, name, nil, fmt.Errorf("no lock %s on any master that answered", name))
	}
	hints := whoholds.Hints(lv)
	target, err := whoholds.TargetOf(&snap, lv)
	if err != nil {
		return whoFailed(cfg, sys, name, hints, err)
	}
	if !cfg.JSON && sys.stderrIsTerminal {
		fmt.Fprintf(sys.stderr, "sampling %s on %s for %s (MONITOR)…\n", name, untrusted.Escape(target.Master), w.For)
	}
	r, err := whoholds.NewMasters(a.Clients, a.Names).Sample(ctx, target, w.For, w.Lines)
	if err != nil {
		return whoFailed(cfg, sys, name, hints, err)
	}
	if cfg.JSON {
		if err := whoholds.NewJSONReport(name, hints, &r, nil, whoLonger(w)).WriteJSON(sys.stdout); err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: writing the report: %v\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	fmt.Fprintf(sys.stdout, "lock %s: %s\n", name, lv.State.Label())
	for _, h := range hints {
		fmt.Fprintln(sys.stdout, h)
	}
	for _, l := range r.Summary(whoLonger(w)) {
		fmt.Fprintln(sys.stdout, l)
	}
	return ExitOK
}

// whoFailed reports that no sample ran: the hints still, and why, on stdout as JSON with --json, else on
// stderr; it returns ExitFailure.
func whoFailed(cfg Config, sys system, name string, hints []string, err error) int {
	if cfg.JSON {
		if werr := whoholds.NewJSONReport(name, hints, nil, err, "").WriteJSON(sys.stdout); werr != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: writing the report: %v\n", werr)
		}
		return ExitFailure
	}
	for _, h := range hints {
		fmt.Fprintln(sys.stdout, h)
	}
	fmt.Fprintf(sys.stderr, "redlock-tui: --who %s: %v\n", name, err)
	return ExitFailure
}

// findLock polls until resource (its key, or the resource a client's key convention names) is seen on a
// master that answered, or every master that answers has been scanned whole without it, or ctx ends; it
// returns the last snapshot and the lock's view there (nil: not found).
func findLock(ctx context.Context, mon *monitor.Monitor, cfg Config, sys system, resource string) (monitor.Snapshot,
	*monitor.LockView) {
	for {
		snap := mon.Poll(ctx)
		if lv := lockNamed(&snap, resource); lv != nil && lv.Count > 0 || snap.Swept && !undecided(snap) ||
			ctx.Err() != nil {
			if sys.stderrIsTerminal {
				fmt.Fprint(sys.stderr, "\r\x1b[K")
			}
			return snap, lockNamed(&snap, resource)
		}
		if sys.stderrIsTerminal && !snap.Swept {
			fmt.Fprintf(sys.stderr, "\r\x1b[Kscanning for %s: %s", untrusted.Escape(resource), sweepProgress(snap))
		}
		select {
		case <-ctx.Done():
		case <-time.After(cfg.Poll):
		}
	}
}

// lockNamed is the lock of key resource in s or, failing that, the one lock whose key a client's convention
// names resource ("billing" for malkusch/lock's "lock_billing"); nil none.
func lockNamed(s *monitor.Snapshot, resource string) *monitor.LockView {
	if lv := s.Lock(resource); lv != nil {
		return lv
	}
	var found *monitor.LockView
	for i := range s.Locks {
		if s.Locks[i].Logical == resource {
			if found != nil {
				return nil
			}
			found = s.Locks[i]
		}
	}
	return found
}

// whoSampler is what the dashboard samples a lock's master with, to name its holder: the masters given; nil
// for the embedded demo masters, which do not MONITOR.
func whoSampler(a *app.App) kit.WhoHolds {
	if a.Demo != nil {
		return nil
	}
	return whoholds.NewMasters(a.Clients, a.Names)
}
