package docgen

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// EventKind is one kind of event as a source declares it, with the severity that source gives it.
type EventKind struct {
	Source   events.Source
	Kind     string
	Severity string // "info", "warning" or "error"; for a warning's records, what it can be
	Meaning  string // the declaration's comment
}

// EventKinds returns every kind of event, by source: the monitor's (monitor.EventKind constants, and the
// warnings' records, events.KindWarning and events.KindWarningCleared), the dashboard's (the events package's
// other Kind constants), the program's own (events.KindOutputFailed and KindOutputReopened) and the demo's
// (demo.EventKind constants), each with the severity its source computes (EventKind.Severity,
// events.DashboardSeverity, events.ProgramSeverity, demo.EventKind.Severity).
func EventKinds() ([]EventKind, error) {
	var out []EventKind
	monitorFiles, err := pkgFiles("monitor")
	if err != nil {
		return nil, err
	}
	kinds, err := stringConsts(monitorFiles, func(_, typ string) bool { return typ == "EventKind" })
	if err != nil {
		return nil, err
	}
	first := monitorFiles.typeFile("EventKind") // the main list, beside the type, before those of other files
	slices.SortStableFunc(kinds, func(a, b constant) int {
		return cmp.Compare(boolRank(a.File != first), boolRank(b.File != first))
	})
	for _, k := range kinds {
		out = append(out, EventKind{events.SourceMonitor, k.Value, monitor.EventKind(k.Value).Severity().String(), k.Doc})
	}
	eventsFiles, err := pkgFiles("events")
	if err != nil {
		return nil, err
	}
	kinds, err = stringConsts(eventsFiles, func(name, _ string) bool { return strings.HasPrefix(name, "Kind") })
	if err != nil {
		return nil, err
	}
	var dashboard, program []EventKind
	for _, k := range kinds {
		switch k.Value {
		case events.KindAlreadyHeld:
			out = append(out, EventKind{events.SourceMonitor, k.Value, monitor.SeverityInfo.String(), k.Doc})
			continue
		case events.KindWarning, events.KindWarningCleared:
			out = append(out, EventKind{events.SourceMonitor, k.Value, "the warning's: warning or error", k.Doc})
			continue
		case events.KindOutputFailed, events.KindOutputReopened:
			program = append(program, EventKind{events.SourceProgram, k.Value,
				events.ProgramSeverity(k.Value).String(), k.Doc})
			continue
		}
		dashboard = append(dashboard, EventKind{events.SourceDashboard, k.Value,
			events.DashboardSeverity(k.Value).String(), k.Doc})
	}
	out = append(out, dashboard...)
	out = append(out, program...)
	demoFiles, err := pkgFiles("demo")
	if err != nil {
		return nil, err
	}
	kinds, err = stringConsts(demoFiles, func(_, typ string) bool { return typ == "EventKind" })
	if err != nil {
		return nil, err
	}
	for _, k := range kinds {
		out = append(out, EventKind{events.SourceDemo, k.Value, demo.EventKind(k.Value).Severity().String(), k.Doc})
	}
	return out, checkKinds(out)
}

// checkKinds fails when a source declares one kind twice, or declares none.
func checkKinds(kinds []EventKind) error {
	seen := map[events.Source]map[string]bool{}
	for _, k := range kinds {
		if seen[k.Source] == nil {
			seen[k.Source] = map[string]bool{}
		}
		if seen[k.Source][k.Kind] {
			return fmt.Errorf("%s declares the kind %q twice", k.Source, k.Kind)
		}
		seen[k.Source][k.Kind] = true
	}
	for _, s := range []events.Source{events.SourceMonitor, events.SourceDashboard, events.SourceDemo, events.SourceProgram} {
		if len(seen[s]) == 0 {
			return fmt.Errorf("no kinds of source %s found", s)
		}
	}
	return nil
}

// WarningKinds returns the kinds of the monitor's warnings (its Warn constants), which the warning and
// warning-cleared records, the JSON's warning_details and the redlock_warning metric carry.
func WarningKinds() ([]constant, error) {
	files, err := pkgFiles("monitor")
	if err != nil {
		return nil, err
	}
	return stringConsts(files, func(name, typ string) bool {
		return typ == "" && strings.HasPrefix(name, "Warn") && len(name) > 4 && name[4] >= 'A' && name[4] <= 'Z'
	})
}

// Events writes docs/events.md: the event stream's record, and every kind of event with its source and
// severity, then the warnings' kinds.
func Events() ([]byte, error) {
	kinds, err := EventKinds()
	if err != nil {
		return nil, err
	}
	warnings, err := WarningKinds()
	if err != nil {
		return nil, err
	}
	files, err := pkgFiles("events")
	if err != nil {
		return nil, err
	}
	record := structDocs(files)["Record"]
	var b strings.Builder
	header(&b, "Events", "the declarations of the event kinds (packages monitor, events and demo)")
	b.WriteString("`--events FILE` writes one JSON object per line, in the order seen (see [Headless](headless.md)); " +
		"the screen's event log shows the same events, with the same severity.\n\n## The record\n\n" +
		"| Field | Meaning |\n|---|---|\n")
	t := reflect.TypeFor[events.Record]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		meaning := record[f.Name]
		if opts == "omitempty" {
			meaning += " (left out when empty)"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", code(name), cell(meaning))
	}
	sections := []struct {
		source events.Source
		intro  string
	}{
		{events.SourceMonitor, "Changes seen between two polls of the masters, and the warnings of the banner as they appear " +
			"and go (a warning about a lock carries its `resource`)."},
		{events.SourceDashboard, "The dashboard's actions on its own locks, in the words of the screen's event log."},
		{events.SourceDemo, "The demo's simulated clients, the presenter's faults, scenarios and violations (demo mode only)."},
		{events.SourceProgram, "The program's own files: one that stopped on a write error (the program goes on without " +
			"it, and its exit status says so at the end), and SIGHUP reopening them (see [Headless](headless.md))."},
	}
	for _, sec := range sections {
		fmt.Fprintf(&b, "\n## Source %s\n\n%s\n\n| Kind | Severity | Meaning |\n|---|---|---|\n", code(string(sec.source)), sec.intro)
		for _, k := range kinds {
			if k.Source == sec.source {
				fmt.Fprintf(&b, "| %s | %s | %s |\n", code(k.Kind), k.Severity, cell(k.Meaning))
			}
		}
	}
	b.WriteString("\n## Answers with jq\n\nThe stream answers an on-call's questions with `jq` alone (1.6 or later; its " +
		"`fromdateiso8601` takes no decimals, so `ts` cuts the milliseconds), here on `events.jsonl`. A test runs each " +
		"command on a stream the writer wrote.\n")
	for _, r := range JQRecipes {
		fmt.Fprintf(&b, "\n%s\n\n```sh\n%s\n```\n", r.Question, r.Command)
	}
	b.WriteString("\n## Warning kinds\n\nThe `kind` of a warning (the `warning` and `warning-cleared` records' text " +
		"begins with it; the JSON's `warning_details` and the `redlock_warning` metric carry it). Its severity " +
		"is the warning's own: most kinds are warnings or errors as the case is.\n\n| Kind | Meaning |\n|---|---|\n")
	for _, w := range warnings {
		fmt.Fprintf(&b, "| %s | %s |\n", code(w.Value), cell(w.Doc))
	}
	return []byte(b.String()), nil
}

// JQRecipe is a question the event stream answers with jq alone, and the command that answers it from
// events.jsonl in the current directory.
type JQRecipe struct {
	Question, Command string
}

// jqTime is the jq definition that reads a line's time as Unix seconds: jq 1.6's fromdateiso8601 takes no
// decimals.
const jqTime = `def ts: sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601;`

// JQRecipes are the questions docs/events.md answers with jq; TestJQRecipesAnswerFromAStream runs them.
var JQRecipes = []JQRecipe{
	{"Who held `billing:nightly` at 12:00 UTC on 2 June 2026 (its last token before then, unless the lock went " +
		"or lost its quorum after it; `null` when no token was told):",
		`jq -rs --arg r billing:nightly --arg at 2026-06-02T12:00:00Z '` + jqTime + `
  map(select(.resource == $r and .token and (.time | ts) <= ($at | fromdateiso8601))) | last
  | if . == null or (.kind | IN("released", "expired", "evicted", "flushed", "deleted", "quorum-lost")) then null else .token end' events.jsonl`},
	{"How many takeovers in the last minute:",
		`jq -s '` + jqTime + ` map(select(.kind == "taken-over" and (.time | ts) > now - 60)) | length' events.jsonl`},
	{"Which master was down, and when (each `master-down`, and the `master-up` that ended it):",
		`jq -r 'select(.kind == "master-down" or .kind == "master-up") | "\(.time) \(.kind) \(.master)"' events.jsonl`},
}

// boolRank is 1 for true, 0 for false, for sorting.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
