package metrics

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.yaml.in/yaml/v3"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// The tests in this file check what deploy/ ships beside the exporter: that every metric name the alert and
// recording rules and the Grafana dashboard query is one the exporter really serves (or a recording rule, or
// one Prometheus makes itself), and that the dashboard has what Grafana needs to import it.

// deployDir is where the rules and the dashboard are, from this package's directory.
const deployDir = "../deploy"

// prometheusOwn are the series Prometheus writes itself for every target, which queries may use.
var prometheusOwn = []string{"up", "scrape_duration_seconds", "scrape_samples_scraped", "scrape_series_added"}

// servedNames returns every metric name a scrape of the exporter can carry: the names its collectors
// describe and those a scrape of a snapshot with every kind of figure writes (the Go runtime's and the
// process's too), a histogram's as its _bucket, _sum and _count series.
func servedNames(t *testing.T) map[string]bool {
	t.Helper()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	lock := key{"billing", "token-0123456789abcdef", time.Minute}
	split := key{"split", "token-a-0123456789abcdef", time.Minute}
	other := key{"split", "token-b-0123456789abcdef", time.Minute}
	s := poll(nil, now, []key{lock, split}, []key{lock, other}, []key{lock})
	s = poll(&s, now.Add(time.Second), []key{lock, split}, []key{lock, other}, []key{lock})
	s.Warnings = append(s.Warnings, monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnRestart, Master: "m0:6379"})
	e := New(Options{Resources: []string{"billing"}})
	e.Observe(s, []monitor.Event{{Kind: monitor.EventQuorumLost, Resource: "billing"}})

	names := map[string]bool{}
	descs := make(chan *prometheus.Desc)
	go func() {
		e.Describe(descs)
		close(descs)
	}()
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range descs {
		m := fqName.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		names[m[1]] = true
	}
	families, err := e.registry().Gather()
	if err != nil {
		t.Fatalf("gathering the exporter's metrics: %v", err)
	}
	for _, f := range families {
		names[f.GetName()] = true
		var suffixes []string
		switch f.GetType().String() {
		case "HISTOGRAM":
			suffixes = []string{"_bucket", "_sum", "_count"}
		case "SUMMARY":
			suffixes = []string{"_sum", "_count"}
		}
		for _, suffix := range suffixes {
			names[f.GetName()+suffix] = true
		}
		if f.GetType().String() == "HISTOGRAM" {
			delete(names, f.GetName()) // a histogram's own name selects nothing
		}
	}
	for _, want := range []string{"redlock_warning", "redlock_lock_split", "redlock_lock_holder_age_seconds",
		"redlock_lock_hold_seconds_bucket", "go_goroutines", "process_cpu_seconds_total"} {
		if !names[want] {
			t.Fatalf("the exporter's names lack %s, which the test's snapshot should make it write: %v", want, names)
		}
	}
	return names
}

// rule is one rule of a Prometheus rule file, as far as these tests read it.
type rule struct {
	Record      string            `yaml:"record"`
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// ruleFiles reads every rule of the rule files in deploy/prometheus, by file.
func ruleFiles(t *testing.T) map[string][]rule {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(deployDir, "prometheus", "*.yml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no rule files in %s/prometheus (%v)", deployDir, err)
	}
	out := map[string][]rule{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Groups []struct {
				Name  string `yaml:"name"`
				Rules []rule `yaml:"rules"`
			} `yaml:"groups"`
		}
		if err := yaml.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, g := range file.Groups {
			out[path] = append(out[path], g.Rules...)
		}
	}
	return out
}

// dashboard is the part of a Grafana dashboard these tests read.
type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Definition string          `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

// panel is one panel of a dashboard.
type panel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	GridPos *struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets []struct {
		Expr         string `json:"expr"`
		RefID        string `json:"refId"`
		LegendFormat string `json:"legendFormat"`
	} `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Panels []panel `json:"panels"` // a collapsed row's
}

// readDashboard reads the one dashboard in deploy/grafana, failing on JSON that does not parse or fields that
// are not of Grafana's types.
func readDashboard(t *testing.T) (string, dashboard) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(deployDir, "grafana", "*.json"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("want one dashboard in %s/grafana, found %v (%v)", deployDir, paths, err)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", paths[0], err)
	}
	return paths[0], d
}

// allPanels is d's panels, with those inside collapsed rows.
func allPanels(d dashboard) []panel {
	var out []panel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// variableQuery is the PromQL of a query variable: label_values(EXPR, label) gives EXPR; query_result(EXPR)
// and a plain expression give themselves; label_values(label) and metrics(...) select no series by name.
func variableQuery(q string) string {
	q = strings.TrimSpace(q)
	if inner, ok := strings.CutPrefix(q, "label_values("); ok {
		inner = strings.TrimSuffix(inner, ")")
		if i := strings.LastIndex(inner, ","); i >= 0 {
			return inner[:i]
		}
		return ""
	}
	if inner, ok := strings.CutPrefix(q, "query_result("); ok {
		return strings.TrimSuffix(inner, ")")
	}
	if strings.HasPrefix(q, "metrics(") {
		return ""
	}
	return q
}

func TestTheDashboardHasWhatGrafanaNeeds(t *testing.T) {
	path, d := readDashboard(t)
	if d.UID == "" || len(d.UID) > 40 || d.Title == "" || d.SchemaVersion < 36 {
		t.Errorf("%s: uid %q (want 1 to 40 characters), title %q, schemaVersion %d (want 36 or later)", path, d.UID,
			d.Title, d.SchemaVersion)
	}
	variables := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
	for _, v := range d.Templating.List {
		if v.Name == "" || v.Type == "" {
			t.Errorf("%s: a template variable without a name or a type: %+v", path, v)
		}
		variables[v.Name] = true
	}
	if !variables["datasource"] {
		t.Errorf("%s: no datasource variable: the panels' ${datasource} would not resolve on import", path)
	}
	ids := map[int]string{}
	type cell struct{ x, y int }
	taken := map[cell]string{}
	panels := allPanels(d)
	if len(panels) < 10 {
		t.Fatalf("%s: %d panels; want the masters, quorum, locks, contention, clocks and the watcher's cost", path, len(panels))
	}
	for _, p := range panels {
		name := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if p.ID == 0 || ids[p.ID] != "" {
			t.Errorf("%s: %s: id missing or also %s's", path, name, ids[p.ID])
		}
		ids[p.ID] = p.Title
		if p.Type == "" || p.Title == "" || p.GridPos == nil {
			t.Errorf("%s: %s: want a type, a title and a gridPos", path, name)
			continue
		}
		g := *p.GridPos
		if g.W < 1 || g.H < 1 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
			t.Errorf("%s: %s: gridPos %+v is not within Grafana's 24 columns", path, name, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := taken[cell{x, y}]; ok {
					t.Errorf("%s: %s overlaps %s at column %d, row %d", path, name, other, x, y)
				}
				taken[cell{x, y}] = name
			}
		}
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("%s: %s: want targets and the datasource ${datasource}", path, name)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.Expr == "" || tg.RefID == "" || refs[tg.RefID] {
				t.Errorf("%s: %s: a target without an expression, or whose refId %q is missing or repeated", path, name, tg.RefID)
			}
			refs[tg.RefID] = true
			for _, m := range regexp.MustCompile(`\$\{?(\w+)`).FindAllStringSubmatch(tg.Expr, -1) {
				if !variables[m[1]] {
					t.Errorf("%s: %s: %q uses $%s, which the dashboard does not define", path, name, tg.Expr, m[1])
				}
			}
		}
	}
}

func TestEveryQueriedMetricIsOneTheExporterServes(t *testing.T) {
	known := servedNames(t)
	for _, name := range prometheusOwn {
		known[name] = true
	}
	files := ruleFiles(t)
	for _, rules := range files {
		for _, r := range rules {
			if r.Record != "" {
				known[r.Record] = true
			}
		}
	}
	check := func(where, expr string) {
		names := metricNames(expr)
		if len(names) == 0 {
			t.Errorf("%s: %q selects no metric; the tokenizer or the expression is wrong", where, expr)
		}
		for _, name := range names {
			if !known[name] {
				t.Errorf("%s: %q queries %s, which the exporter does not serve and no recording rule makes", where, expr, name)
			}
		}
	}
	for path, rules := range files {
		for _, r := range rules {
			check(fmt.Sprintf("%s: %s%s", path, r.Record, r.Alert), r.Expr)
		}
	}
	path, d := readDashboard(t)
	for _, p := range allPanels(d) {
		for _, tg := range p.Targets {
			check(fmt.Sprintf("%s: panel %q", path, p.Title), tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			if err := json.Unmarshal(v.Query, &q.Query); err != nil {
				t.Errorf("%s: variable %s: query %s is neither a string nor an object with one", path, v.Name, v.Query)
			}
		}
		if expr := variableQuery(q.Query); expr != "" {
			check(fmt.Sprintf("%s: variable %s", path, v.Name), expr)
		}
	}
}

// TestEveryWarningKindQueriedIsOneTheMonitorRaises: the rules and the dashboard select warnings by their kind,
// a string; a kind the monitor renamed or never raises would match nothing, and the alert would never fire.
func TestEveryWarningKindQueriedIsOneTheMonitorRaises(t *testing.T) {
	raised := map[string]bool{}
	for _, kind := range []string{monitor.WarnQuorumDown, monitor.WarnMasterDown, monitor.WarnDuplicate,
		monitor.WarnReplica, monitor.WarnRestart, monitor.WarnClockDrift, monitor.WarnClockOffset, monitor.WarnUnread,
		monitor.WarnLockLost, monitor.WarnQuorumLost, monitor.WarnStuck, monitor.WarnFenceBackwards,
		monitor.WarnEvictionPolicy} {
		raised[kind] = true
	}
	var exprs []string
	for _, rules := range ruleFiles(t) {
		for _, r := range rules {
			exprs = append(exprs, r.Expr)
		}
	}
	_, d := readDashboard(t)
	for _, p := range allPanels(d) {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	selector := regexp.MustCompile(`redlock_warning\{[^}]*\}`)
	matcher := regexp.MustCompile(`kind\s*(?:=~|!~|=)\s*"([^"]*)"`)
	n := 0
	for _, expr := range exprs {
		for _, sel := range selector.FindAllString(expr, -1) {
			for _, m := range matcher.FindAllStringSubmatch(sel, -1) {
				for _, kind := range strings.Split(m[1], "|") {
					n++
					if !raised[kind] {
						t.Errorf("%q selects the warning kind %q, which the monitor does not raise", expr, kind)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no warning kind selected in the rules or the dashboard; the matcher is wrong")
	}
}

// TestEveryAlertSaysWhatAndWhatNext: an alert a person is paged by has a severity, a for: (so that one
// scrape's blip does not page), a summary and a description, and a runbook that is a section of
// docs/monitoring.md, whose table gives the alert's severity, expression and for: as the rules have them.
func TestEveryAlertSaysWhatAndWhatNext(t *testing.T) {
	doc, err := os.ReadFile("../docs/monitoring.md")
	if err != nil {
		t.Fatal(err)
	}
	alerts := 0
	for path, rules := range ruleFiles(t) {
		for _, r := range rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			if r.Labels["severity"] != "critical" && r.Labels["severity"] != "warning" {
				t.Errorf("%s: %s: severity %q, want critical or warning", path, r.Alert, r.Labels["severity"])
			}
			if _, err := time.ParseDuration(r.For); err != nil && r.For != "0s" {
				t.Errorf("%s: %s: for: %q is not a duration", path, r.Alert, r.For)
			}
			if r.Annotations["summary"] == "" || !strings.Contains(r.Annotations["description"], "Next:") {
				t.Errorf("%s: %s: want a summary and a description that says what to do next (\"Next:\")", path, r.Alert)
			}
			anchor := "#" + strings.ToLower(r.Alert)
			if !strings.HasSuffix(r.Annotations["runbook_url"], "docs/monitoring.md"+anchor) {
				t.Errorf("%s: %s: runbook_url %q, want docs/monitoring.md%s", path, r.Alert, r.Annotations["runbook_url"], anchor)
			}
			if !strings.Contains(string(doc), "\n### "+r.Alert+"\n") {
				t.Errorf("docs/monitoring.md has no section \"### %s\" for the runbook to point to", r.Alert)
			}
			row := docRow(string(doc), fmt.Sprintf("| [%s](%s) |", r.Alert, anchor))
			expr := strings.ReplaceAll(strings.Join(strings.Fields(r.Expr), " "), "|", `\|`)
			if !strings.Contains(row, "`"+expr+"`") || !strings.Contains(row, "| "+r.For+" |") ||
				!strings.Contains(row, "| "+r.Labels["severity"]+" |") {
				t.Errorf("docs/monitoring.md's table of alerts says of %s:\n%s\nwant its severity %s, expression `%s` and for: %s",
					r.Alert, row, r.Labels["severity"], expr, r.For)
			}
		}
	}
	if alerts == 0 {
		t.Fatal("no alerts in the rule files")
	}
}

// docRow returns the line of doc that starts with prefix, or "".
func docRow(doc, prefix string) string {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// PromQL words that are not metric names: binary operators and modifiers, and the aggregations, which may be
// followed by "by (...)" before their parenthesis.
var (
	promqlKeywords     = []string{"and", "or", "unless", "bool", "offset", "inf", "nan", "atan2"}
	promqlAggregations = []string{"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
		"bottomk", "topk", "quantile", "limitk", "limit_ratio"}
	promqlLabelLists = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}
)

// metricNames returns the metric names expr selects, in order, by a small tokenizer: it skips strings, label
// matchers ({...}), ranges ([...]), numbers and durations, Grafana's $variables, the label lists of by, without,
// on, ignoring, group_left and group_right, and functions and aggregations (a name followed by "(", or an
// aggregation's name); every other name is a metric's.
func metricNames(expr string) []string {
	var names []string
	isStart := func(c byte) bool { return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || c >= '0' && c <= '9' }
	nextNonSpace := func(i int) int {
		for i < len(expr) && strings.ContainsRune(" \t\r\n", rune(expr[i])) {
			i++
		}
		return i
	}
	skipTo := func(i int, end byte) int { // i is at the opening character; returns the index after end
		for i++; i < len(expr) && expr[i] != end; i++ {
			if expr[i] == '"' || expr[i] == '\'' || expr[i] == '`' {
				i = skipString(expr, i) - 1
			}
		}
		return i + 1
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(expr, i)
		case c == '{':
			i = skipTo(i, '}')
		case c == '[':
			i = skipTo(i, ']')
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '$':
			for i++; i < len(expr) && (isPart(expr[i]) || expr[i] == '{' || expr[i] == '}'); i++ {
			}
		case c >= '0' && c <= '9' || c == '.':
			for i++; i < len(expr) && (isPart(expr[i]) || expr[i] == '.' ||
				(expr[i] == '-' || expr[i] == '+') && (expr[i-1] == 'e' || expr[i-1] == 'E')); i++ {
			}
		case isStart(c):
			start := i
			for i < len(expr) && isPart(expr[i]) {
				i++
			}
			word := expr[start:i]
			next := nextNonSpace(i)
			lower := strings.ToLower(word)
			switch {
			case slices.Contains(promqlLabelLists, lower):
				if next < len(expr) && expr[next] == '(' {
					i = skipTo(next, ')')
				}
			case slices.Contains(promqlKeywords, lower), slices.Contains(promqlAggregations, lower):
			case next < len(expr) && expr[next] == '(':
			default:
				names = append(names, word)
			}
		default:
			i++
		}
	}
	return names
}

// skipString returns the index after the string literal that starts at expr[i].
func skipString(expr string, i int) int {
	quote := expr[i]
	for i++; i < len(expr); i++ {
		switch {
		case expr[i] == '\\' && quote != '`':
			i++
		case expr[i] == quote:
			return i + 1
		}
	}
	return i
}

func TestMetricNamesFindsTheSelectedMetricsOnly(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`redlock_master_up{master="a:1"} == 0`, "redlock_master_up"},
		{`sum by (job, state) (redlock_locks{state=~"split|stuck"})`, "redlock_locks"},
		{`sum(redlock_locks) by (state)`, "redlock_locks"},
		{`histogram_quantile(0.95, sum by (le) (rate(redlock_lock_hold_seconds_bucket{resource=~"$resource"}[$__rate_interval])))`,
			"redlock_lock_hold_seconds_bucket"},
		{`instance:redlock_masters_up:sub_quorum < 0`, "instance:redlock_masters_up:sub_quorum"},
		{`a - 2 * b > on (job, instance) group_left () c`, "a b c"},
		{`quantile_over_time(0.5, x[2m] offset 5m) - 300 * (abs(y) or 0 * x)`, "x y x"},
		{`label_replace(vector(600), "resource", "billing:nightly", "", "") or max by (resource) (0 * held + 3600)`, "held"},
		{`up == 0 and on (job, instance) last_over_time(redlock_build_info[6h])`, "up redlock_build_info"},
		{`time() - max(redlock_last_poll_timestamp_seconds{job=~"$job"}) > 1e-6`, "redlock_last_poll_timestamp_seconds"},
		{"x # a comment naming not_a_metric\n+ y", "x y"},
	}
	for _, tc := range tests {
		if got := strings.Join(metricNames(tc.expr), " "); got != tc.want {
			t.Errorf("metricNames(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// recordName is the convention of recording rules' names, level:metric:operations: the labels the result keeps
// (joined by _), the metric it is made from, and the operations applied, newest first.
var recordName = regexp.MustCompile(`^([a-z]+(?:_[a-z]+)*):(redlock_[a-z_]+):([a-z0-9_]+)$`)

// TestRecordingRulesAreNamedLevelMetricOperations: every recording rule is named level:metric:operations, of a
// metric the exporter serves (less _total, as the convention drops it; a threshold's :max names its own), and
// its level names labels of the exporter's series.
func TestRecordingRulesAreNamedLevelMetricOperations(t *testing.T) {
	served := servedNames(t)
	for file, rules := range ruleFiles(t) {
		for _, r := range rules {
			if r.Record == "" {
				continue
			}
			m := recordName.FindStringSubmatch(r.Record)
			if m == nil {
				t.Errorf("%s: recording rule %q is not named level:metric:operations", file, r.Record)
				continue
			}
			if metric := m[2]; !served[metric] && !served[metric+"_total"] && !served[metric+"_bucket"] &&
				!strings.HasSuffix(r.Record, ":max") { // a threshold's own metric, which the rule makes
				t.Errorf("%s: %q names %s, which the exporter does not serve", file, r.Record, metric)
			}
			for _, label := range strings.Split(m[1], "_") {
				if !slices.Contains([]string{"instance", "job", "master", "resource"}, label) {
					t.Errorf("%s: %q's level names %q, not a label of the exporter's series", file, r.Record, label)
				}
			}
		}
	}
}

// TestEveryPanelHasAUnitAndEachWatcherItsOwnLines: every panel says its unit (rates per minute in ops/min, the
// CPU in percent, never the unitless "short" for a rate), every graph's legend names the watcher's instance and
// no graph's expression aggregates it away (two watchers draw two lines), and a variable picks the watcher.
func TestEveryPanelHasAUnitAndEachWatcherItsOwnLines(t *testing.T) {
	_, d := readDashboard(t)
	aggregation := regexp.MustCompile(`\b(sum|max|min|avg|count)\s*(by\s*\(([^)]*)\))?\s*\(`)
	for _, p := range allPanels(d) {
		if p.Type == "row" {
			continue
		}
		unit := p.FieldConfig.Defaults.Unit
		if unit == "" || unit == "short" {
			t.Errorf("panel %q has unit %q; want one that says what it counts", p.Title, unit)
		}
		perMinute := strings.Contains(strings.ToLower(p.Title), "per minute")
		for _, tg := range p.Targets {
			if strings.Contains(tg.Expr, "* 60") && !strings.Contains(tg.Expr, "[1h]") {
				perMinute = true
			}
		}
		if perMinute && unit != "opm" {
			t.Errorf("panel %q shows a rate per minute in %q; want opm", p.Title, unit)
		}
		if strings.Contains(p.Title, "CPU") && unit != "percentunit" {
			t.Errorf("panel %q shows the CPU in %q; want percentunit", p.Title, unit)
		}
		if p.Type != "timeseries" {
			continue
		}
		for _, tg := range p.Targets {
			if !strings.Contains(tg.LegendFormat, "{{instance}}") {
				t.Errorf("panel %q: legend %q does not name the watcher's instance", p.Title, tg.LegendFormat)
			}
			for _, m := range aggregation.FindAllStringSubmatch(tg.Expr, -1) {
				if !strings.Contains(m[3], "instance") {
					t.Errorf("panel %q: %q aggregates the watchers' instances away", p.Title, tg.Expr)
				}
			}
		}
	}
	found := false
	for _, v := range d.Templating.List {
		found = found || v.Name == "instance"
	}
	if !found {
		t.Error("no variable picks the watcher's instance")
	}
}
