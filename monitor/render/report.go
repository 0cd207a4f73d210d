package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// ReportOptions choose what an incident report tells.
type ReportOptions struct {
	Match    func(*monitor.LockView) bool // the locks to tell; nil: all
	Filter   string                       // how Match was given, for the report's header ("" none)
	MaxLocks int                          // locks listed at most, default 100; the rest are counted
	Events   int                          // last events listed, default 20
}

// Report defaults.
const (
	DefaultReportLocks  = 100
	DefaultReportEvents = 20
)

// WriteReport writes s as a Markdown incident report, for pasting into an incident channel: the masters and
// their health, the locks that match with holders, quorum, validity and contention, the warnings and the last
// events. Every name, token and text from the masters is escaped (control bytes, and Markdown's own marks).
func WriteReport(w io.Writer, s monitor.Snapshot, o ReportOptions) error {
	o.MaxLocks = cmpOr(o.MaxLocks, DefaultReportLocks)
	o.Events = cmpOr(o.Events, DefaultReportEvents)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Redlock incident report, %s\n\n", s.Time.UTC().Format("2006-01-02 15:04:05 MST"))
	p("%d of %s up, quorum %d; watched for %s", s.UpCount, vocab.Count(s.Servers, "server"), s.Quorum,
		vocab.ShortDuration(s.Time.Sub(s.WatchedFrom())))
	if o.Filter != "" {
		p("; locks matching %s", md(o.Filter))
	}
	p(".\n\n## Masters\n\n| Master | Status | RTT | Clock offset | Role | Notes |\n|---|---|---|---|---|---|\n")
	for _, m := range s.Masters {
		offset := "unknown"
		if m.ClockKnown {
			offset = vocab.Offset(m.ClockOffset, m.ClockUncertainty)
		}
		rtt := "-"
		if m.Up {
			rtt = vocab.Latency(m.RTT)
		}
		p("| %s | %s | %s | %s | %s | %s |\n", md(m.Addr), md(m.StateText()), rtt, offset,
			md(orUnknown(m.Role)), md(strings.Join(m.Warnings, "; ")))
	}
	reportLocks(p, &s, o)
	p("\n## Warnings\n\n")
	if len(s.Warnings) == 0 {
		p("None.\n")
	}
	for _, wn := range s.Warnings {
		p("- %s\n", md(wn.String()))
	}
	p("\n## Last events\n\n")
	events := s.Events[max(len(s.Events)-o.Events, 0):]
	if len(events) == 0 {
		p("None.\n")
	}
	for _, e := range events {
		about := e.Resource + e.Master
		p("- %s %s %s: %s\n", e.Time.UTC().Format("15:04:05.000"), e.Kind, md(about), md(e.Text))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reportLocks writes the report's table of the locks that match.
func reportLocks(p func(string, ...any), s *monitor.Snapshot, o ReportOptions) {
	p("\n## Locks\n\n| Resource | State | Holder | Quorum | Validity | Handovers/min (1m, window) | Hold p50/p95/max | Free gap p50 | Holders, busiest share | Waiters |\n|---|---|---|---|---|---|---|---|---|---|\n")
	shown, matched := 0, 0
	watched := s.Time.Sub(s.WatchedFrom())
	watchedEnough := watched >= ContentionAfter
	for _, l := range byName(s.Locks) {
		if o.Match != nil && !o.Match(l) {
			continue
		}
		matched++
		if shown >= o.MaxLocks {
			continue
		}
		shown++
		holder := monitor.HolderKindText(l.HolderKind, short(l.Holder))
		switch {
		case l.Holders != nil:
			holder = l.HoldersText()
		case !l.ValueTime.IsZero():
			holder = monitor.UnknownHolderText(l.ValueTime.UTC(), s.Time.UTC())
		}
		state := l.State.Label()
		for _, q := range l.Qualifiers(s.Time) {
			if q != monitor.QualifierMine { // the holder's column says ours
				state += ", " + q.Words()
			}
		}
		waiters := "-"
		if l.WaitersKnown {
			waiters = fmt.Sprint(l.Waiters)
		}
		p("| %s | %s | %s | %d of %d, quorum %d | %s | %s | %s |\n",
			md(l.ResourceText()), state, md(orDash(holder)), l.Count, s.Servers, s.Quorum, vocab.ShortDuration(l.ValidityAt(s.Time)),
			contentionCells(s, l, watchedEnough), waiters)
	}
	if matched == 0 {
		p("| none | | | | | | | | | |\n")
	}
	if matched > shown {
		p("\n%s more not listed.\n", vocab.Count(matched-shown, "lock"))
	}
	if !watchedEnough && matched > 0 {
		p("\nNo contention figures: watched for %s, and how a lock changes hands takes %s or more to tell "+
			"(`--once --markdown --watch 30s` watches for longer).\n", vocab.ShortDuration(watched), vocab.ShortDuration(ContentionAfter))
	}
}

// contentionCells are a lock's contention columns of the report: handovers a minute, holds, free gaps and
// holders, each "-" when s watched less than ContentionAfter (watchedEnough false): one read tells nothing of
// how a lock changes hands.
func contentionCells(s *monitor.Snapshot, l *monitor.LockView, watchedEnough bool) string {
	if !watchedEnough {
		return "- | - | - | -"
	}
	minute, all := s.Contention(l.History, monitor.LastMinute), s.Contention(l.History, s.Window())
	return fmt.Sprintf("%.1f, %.1f | %s/%s/%s | %s | %d, %.0f%%", minute.PerMinute, all.PerMinute,
		sample(all.Holds, all.HoldP50), sample(all.Holds, all.HoldP95), vocab.ShortDuration(all.HoldMax),
		sample(all.Gaps, all.GapP50), all.Holders, 100*all.BusiestShare)
}

// sample is a percentile d of n values, "-" when there are none.
func sample(n int, d time.Duration) string {
	if n == 0 {
		return "-"
	}
	return vocab.ShortDuration(d)
}

// mdSpecial are the characters that Markdown (GitHub's, Slack's) would read as markup, escaped in a report.
var mdSpecial = strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "#", `\#`, "~", `\~`)

// md is untrusted text made safe for a Markdown report: control bytes and escape sequences escaped, markup
// characters too.
func md(s string) string { return mdSpecial.Replace(untrusted.Escape(s)) }

// cmpOr is v, or def when v is not positive.
func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
