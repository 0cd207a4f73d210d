package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/render"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/spf13/pflag"
)

// replayConfig is the replay subcommand's command line.
type replayConfig struct {
	File       string
	At         string // --at: the moment to show or print; "" the start (the dashboard) or the moments (printed)
	JSON       bool
	Markdown   bool
	Table      bool   // --table: print the moment as --once prints its table, also on a terminal
	Moments    bool   // --moments: list the recording's moments, also on a terminal
	Background string // --background: the dashboard's palette (ui.Backgrounds)
	Help       bool
}

// newReplayFlagSet declares replay's flags into rc.
func newReplayFlagSet(rc *replayConfig) *pflag.FlagSet {
	fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&rc.At, "at", "", "print the locks as they were at this moment: 03:12:07, 2026-11-27T03:12:07Z, "+
		"+5m (from the start) or end")
	fs.BoolVar(&rc.JSON, "json", false, "with --at: print JSON, as --once --json does")
	fs.BoolVar(&rc.Markdown, "markdown", false, "with --at: print the Markdown incident report, as --once --markdown does")
	fs.BoolVar(&rc.Table, "table", false, "with --at: print the tables, as --once does (the default when stdout is not a terminal)")
	fs.BoolVar(&rc.Moments, "moments", false, "print the recording's span and moments (the default when stdout is not a terminal)")
	fs.StringVar(&rc.Background, "background", "auto", backgroundUsage)
	fs.BoolVarP(&rc.Help, "help", "h", false, "print this help and exit")
	return fs
}

// parseReplayConfig parses replay's arguments (after "replay"), each flag not given taken from its variable in
// env (applyEnv), as the dashboard's are.
func parseReplayConfig(args []string, env Environment) (replayConfig, *pflag.FlagSet, error) {
	var rc replayConfig
	fs := newReplayFlagSet(&rc)
	if err := fs.Parse(args); err != nil {
		return rc, fs, flagParseError(err, fs)
	}
	if err := applyEnv(fs, env); err != nil {
		return rc, fs, err
	}
	switch rest := fs.Args(); {
	case rc.Help:
	case len(rest) != 1:
		return rc, fs, usagef("replay takes one recording (replay FILE [--at TIME]), got %d", len(rest))
	case rc.JSON && rc.Markdown, rc.JSON && rc.Table, rc.Markdown && rc.Table:
		return rc, fs, usagef("--json, --markdown and --table exclude each other")
	case (rc.JSON || rc.Markdown || rc.Table) && rc.At == "":
		return rc, fs, usagef("--json, --markdown and --table print one moment: give it with --at")
	case rc.Moments && rc.At != "":
		return rc, fs, usagef("--moments lists the whole recording: it takes no --at")
	case ui.CheckBackground(rc.Background) != nil:
		return rc, fs, usagef("--background: %v", ui.CheckBackground(rc.Background))
	default:
		rc.File = rest[0]
	}
	return rc, fs, nil
}

// replayDescription says what replay shows, in its help and its man page.
const replayDescription = `On a terminal replay opens the dashboard, paused: p plays and pauses, + and - change the speed (1x to 60x), , and
. step one poll, < and > jump to the previous or next event, { and } to the previous or next error or warning,
^ and $ to the start and the end. When stdout is not a terminal it prints the moments, or the tables with --at.
Nothing connects to a master: every snapshot is rebuilt from the recorded polls.`

// replayCommand is `redlock-tui replay FILE [--at TIME] [--json | --markdown]`: it reads a recording made with
// --record, and lists its moments, or prints the locks as they were at one of them. It connects to nothing.
func replayCommand(args []string, sys system) int {
	rc, fs, err := parseReplayConfig(args, sys.Environment)
	switch {
	case err != nil:
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %v\n", err)
		return ExitUsage
	case rc.Help:
		fmt.Fprint(sys.stdout, `redlock-tui replay: the locks as a recording (--record) saw them, later.

Usage:
  redlock-tui replay FILE [--at TIME]      the dashboard on the recording, read-only, at its start or at TIME
  redlock-tui replay FILE --moments        list the recording's span and its moments (errors, warnings)
  redlock-tui replay FILE --at TIME --json print the locks as they were then (--table, --json or --markdown)

`+replayDescription+`

Flags (`+envHelp+`):
`+fs.FlagUsages())
		return ExitOK
	}
	rec, err := record.Open(rc.File)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %v\n", err)
		return ExitFailure
	}
	if rec.Len() == 0 {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %s holds no poll\n", rc.File)
		return ExitFailure
	}
	p := record.NewPlayer(rec, nil)
	prints := rc.JSON || rc.Markdown || rc.Table || !sys.stdoutIsTerminal
	if rc.Moments || rc.At == "" && prints {
		writeMoments(sys.stdout, rc.File, p)
		return ExitOK
	}
	var at time.Time
	if rc.At != "" {
		if at, err = p.Moment(rc.At); err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui replay: --at %q: %v\n", rc.At, err)
			return ExitUsage
		}
	}
	if !prints {
		return replayScreen(p, rc.File, at, rc.Background, sys)
	}
	i := p.IndexAt(at)
	write := render.WriteTable
	switch {
	case rc.JSON:
		write = render.WriteJSON
	case rc.Markdown:
		write = func(w io.Writer, s monitor.Snapshot) error { return render.WriteReport(w, s, render.ReportOptions{}) }
	}
	if err := write(sys.stdout, p.Snapshot(i)); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: writing the snapshot: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// writeMoments lists a recording: its span, its masters, and the moments worth seeking to: every error and
// warning a surface showed (record.Player.Alarms: the monitor's events, the banner's warnings no event told,
// and the recorded events of the dashboard and the demo that are errors or warnings).
func writeMoments(w io.Writer, name string, p *record.Player) {
	rec := p.Recording()
	start, end := p.Time(0), p.Time(p.Len()-1)
	torn := ""
	switch {
	case rec.Torn:
		torn = " (its last line was cut short and skipped: the recorder stopped while writing it)"
	case rec.Unclosed:
		torn = " (not closed: the recorder stopped without ending it, or is still writing; every line written is read)"
	}
	fmt.Fprintf(w, "%s: recorded %s to %s (%s), %d polls of %d masters, part %d%s\n", untrusted.Escape(name),
		start.Format("2006-01-02 15:04:05"), end.Format("15:04:05"), vocab.ShortDuration(end.Sub(start)), p.Len(),
		len(rec.Header.Masters), rec.Header.Part, torn)
	for i, m := range rec.Header.Masters {
		fmt.Fprintf(w, "  M%d %s\n", i+1, untrusted.Escape(m))
	}
	fmt.Fprintln(w, "\nMoments (--at TIME prints the locks as they were then):")
	alarms := p.Alarms()
	for _, a := range alarms {
		line := fmt.Sprintf("%-7s %s: %s", a.Severity, untrusted.Escape(a.Subject), untrusted.Escape(a.Text))
		if a.Subject == "" {
			line = fmt.Sprintf("%-7s %s", a.Severity, untrusted.Escape(a.Text))
		}
		if a.Source != events.SourceMonitor {
			line += fmt.Sprintf(" (%s)", a.Source)
		}
		fmt.Fprintf(w, "  %s  %s\n", a.Time.Format("15:04:05.000"), line)
	}
	if len(alarms) == 0 {
		fmt.Fprintln(w, "  none: no error or warning was told")
	}
}

// replayScreen runs the dashboard on a recording, read-only, paused at at (the start when zero), and prints
// the UI's summary when it quits.
func replayScreen(p *record.Player, name string, at time.Time, background string, sys system) int {
	rec := p.Recording()
	ui.SetBackground(background, os.Stdout, sys.Getenv) // before New: the styles are made for it
	model := ui.New(ui.Options{Keys: sys.keys, Replay: p, ReplayAt: at,
		Title: fmt.Sprintf("%s · %d masters", filepath.Base(name), len(rec.Header.Masters)),
		Poll:  rec.Header.Config.Interval})
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithoutSignalHandler(), tea.WithMouseCellMotion()}
	if !term.IsTerminal(os.Stdin.Fd()) {
		opts = append(opts, tea.WithInputTTY())
	}
	prog := tea.NewProgram(model, opts...)
	stopSignals := quitOnSignal(prog, nil)
	_, err := prog.Run()
	stopSignals()
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}
