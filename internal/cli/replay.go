package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/internal/untrusted"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
)

// replayConfig is the replay subcommand's command line.
type replayConfig struct {
	File     string
	At       string // --at: the moment to print; "" lists the recording's moments
	JSON     bool
	Markdown bool
	Help     bool
}

// newReplayFlagSet declares replay's flags into rc.
func newReplayFlagSet(rc *replayConfig) *pflag.FlagSet {
	fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&rc.At, "at", "", "print the locks as they were at this moment: 03:12:07, 2026-11-27T03:12:07Z, "+
		"+5m (from the start) or end")
	fs.BoolVar(&rc.JSON, "json", false, "with --at: print JSON, as --once --json does")
	fs.BoolVar(&rc.Markdown, "markdown", false, "with --at: print the Markdown incident report, as --once --markdown does")
	fs.BoolVarP(&rc.Help, "help", "h", false, "print this help and exit")
	return fs
}

// parseReplayConfig parses replay's arguments (after "replay").
func parseReplayConfig(args []string) (replayConfig, *pflag.FlagSet, error) {
	var rc replayConfig
	fs := newReplayFlagSet(&rc)
	if err := fs.Parse(args); err != nil {
		return rc, fs, &UsageError{Msg: err.Error()}
	}
	switch rest := fs.Args(); {
	case rc.Help:
	case len(rest) != 1:
		return rc, fs, usagef("replay takes one recording (replay FILE [--at TIME]), got %d", len(rest))
	case rc.JSON && rc.Markdown:
		return rc, fs, usagef("--markdown and --json exclude each other")
	case (rc.JSON || rc.Markdown) && rc.At == "":
		return rc, fs, usagef("--json and --markdown print one moment: give it with --at")
	default:
		rc.File = rest[0]
	}
	return rc, fs, nil
}

// replayCommand is `redlock-tui replay FILE [--at TIME] [--json | --markdown]`: it reads a recording made with
// --record, and lists its moments, or prints the locks as they were at one of them. It connects to nothing.
func replayCommand(args []string, sys system) int {
	rc, fs, err := parseReplayConfig(args)
	switch {
	case err != nil:
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %v\n", err)
		return ExitUsage
	case rc.Help:
		fmt.Fprint(sys.stdout, `redlock-tui replay: the locks as a recording (--record) saw them, later.

Usage:
  redlock-tui replay FILE                  list the recording's span and its moments (errors, warnings)
  redlock-tui replay FILE --at TIME        print the locks as they were then (a table, --json or --markdown)

Nothing connects to a master: every snapshot is rebuilt from the recorded polls.

Flags:
`+fs.FlagUsages())
		return ExitOK
	}
	rec, err := record.Open(rc.File)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %v\n", err)
		return ExitFailure
	}
	if len(rec.Polls) == 0 {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: %s holds no poll\n", rc.File)
		return ExitFailure
	}
	p := record.NewPlayer(rec, nil)
	if rc.At == "" {
		writeMoments(sys.stdout, rc.File, p)
		return ExitOK
	}
	at, err := parseMoment(rc.At, p)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: --at %q: %v\n", rc.At, err)
		return ExitUsage
	}
	i := p.IndexAt(at)
	if i < 0 {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: --at %s is before the recording began (%s)\n",
			at.Format(time.RFC3339), p.Time(0).Format(time.RFC3339))
		return ExitUsage
	}
	write := monitor.WriteTable
	switch {
	case rc.JSON:
		write = monitor.WriteJSON
	case rc.Markdown:
		write = func(w io.Writer, s monitor.Snapshot) error { return monitor.WriteReport(w, s, monitor.ReportOptions{}) }
	}
	if err := write(sys.stdout, p.Snapshot(i)); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui replay: writing the snapshot: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// parseMoment reads --at: a time of day on the recording's first day (in its time zone), a full RFC 3339
// time, "+D" from the recording's start, or "end".
func parseMoment(s string, p *record.Player) (time.Time, error) {
	start, end := p.Time(0), p.Time(p.Len()-1)
	switch {
	case s == "end":
		return end, nil
	case strings.HasPrefix(s, "+"):
		d, err := time.ParseDuration(s[1:])
		if err != nil {
			return time.Time{}, errors.New("want a duration after +, such as +90s or +5m")
		}
		return start.Add(d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, start.Location()); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05.999999999", "15:04"} {
		if t, err := time.ParseInLocation(layout, s, start.Location()); err == nil {
			y, m, d := start.Date()
			day := time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), start.Location())
			if day.Before(start.Truncate(time.Second)) && day.Add(24*time.Hour).Before(end.Add(time.Second)) {
				day = day.Add(24 * time.Hour) // a recording across midnight: the time of its second day
			}
			return day, nil
		}
	}
	return time.Time{}, errors.New("want a time such as 03:12:07, 2026-11-27T03:12:07Z, +5m or end")
}

// writeMoments lists a recording: its span, its masters, and the moments worth seeking to: the monitor's
// errors and warnings, and the recorded events of the dashboard and the demo that are.
func writeMoments(w io.Writer, name string, p *record.Player) {
	rec := p.Recording()
	start, end := p.Time(0), p.Time(p.Len()-1)
	torn := ""
	if rec.Torn {
		torn = " (its last line was cut short and skipped: the recorder stopped while writing it)"
	}
	fmt.Fprintf(w, "%s: recorded %s to %s (%s), %d polls of %d masters, part %d%s\n", untrusted.Escape(name),
		start.Format("2006-01-02 15:04:05"), end.Format("15:04:05"), monitor.ShortDuration(end.Sub(start)), p.Len(),
		len(rec.Header.Masters), rec.Header.Part, torn)
	for i, m := range rec.Header.Masters {
		fmt.Fprintf(w, "  M%d %s\n", i+1, untrusted.Escape(m))
	}
	fmt.Fprintln(w, "\nMoments (--at TIME prints the locks as they were then):")
	type moment struct {
		at   time.Time
		line string
	}
	var moments []moment
	for _, e := range p.MonitorEvents() {
		if sev := e.Kind.Severity(); sev != monitor.SeverityInfo {
			subject := e.Resource
			if subject == "" {
				subject = e.Master
			}
			moments = append(moments, moment{e.Time, fmt.Sprintf("%-7s %s: %s", sev, untrusted.Escape(subject),
				untrusted.Escape(e.Text))})
		}
	}
	for _, r := range rec.Events {
		if r.Severity == "warning" || r.Severity == "error" {
			moments = append(moments, moment{r.Time, fmt.Sprintf("%-7s %s (%s)", r.Severity, untrusted.Escape(r.Text), r.Source)})
		}
	}
	sort.SliceStable(moments, func(i, j int) bool { return moments[i].at.Before(moments[j].at) })
	for _, m := range moments {
		fmt.Fprintf(w, "  %s  %s\n", m.at.Format("15:04:05.000"), m.line)
	}
	if len(moments) == 0 {
		fmt.Fprintln(w, "  none: no error or warning was told")
	}
}
