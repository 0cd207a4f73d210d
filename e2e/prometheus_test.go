package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The test in this file runs a real Prometheus (Debian's prometheus package) with the rules shipped in
// deploy/prometheus, scraping the binary's --headless --metrics while it watches real masters, breaks locks on
// the masters on purpose and reads the alerts Prometheus fires.

// envPrometheus names the variable that makes a missing prometheus binary fail the test instead of skipping it
// (CI sets it: .ci/run installs the package).
const envPrometheus = "REDLOCK_TEST_PROMETHEUS"

// Prometheus's intervals in the test: a scrape and a rule evaluation every second.
const (
	promScrape = time.Second
	promEval   = time.Second
	// promSlack is what a loaded 2-core machine may add to an alert's for: and two scrapes: the monitor's
	// confirming poll, a late scrape or evaluation, the binary's and Prometheus's start.
	promSlack = 45 * time.Second
)

// prometheusBinary returns the path of the prometheus binary, skipping the test when there is none, or failing
// it when REDLOCK_TEST_PROMETHEUS=required.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	for _, candidate := range []string{"prometheus", "/usr/bin/prometheus"} {
		if path, err := exec.LookPath(candidate); err == nil {
			return path
		}
	}
	if os.Getenv(envPrometheus) == "required" {
		t.Fatalf("prometheus is not installed and %s=required (apt-get install prometheus)", envPrometheus)
	}
	t.Skipf("prometheus is not installed (apt-get install prometheus; %s=required makes this a failure)", envPrometheus)
	return ""
}

// promServer is a running Prometheus.
type promServer struct {
	url    string // http://127.0.0.1:PORT
	output *syncBuffer
}

// startPrometheus starts bin scraping target (host:port of /metrics) every promScrape and evaluating the rule
// files every promEval, on a free loopback port with a fresh storage directory, and waits until it is ready.
// It tries three ports: another process may take the one picked before Prometheus binds it.
func startPrometheus(t *testing.T, bin, target string, ruleFiles []string) *promServer {
	t.Helper()
	dir := t.TempDir()
	quoted := make([]string, len(ruleFiles))
	for i, f := range ruleFiles {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
  evaluation_interval: %s
rule_files: [%s]
scrape_configs:
  - job_name: redlock
    static_configs:
      - targets: [%q]
`, promScrape, promScrape*9/10, promEval, strings.Join(quoted, ", "), target)
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var lastOutput string
	for attempt := range 3 {
		addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
		p := &promServer{url: "http://" + addr, output: &syncBuffer{}}
		cmd := exec.Command(bin, "--config.file="+configFile, "--web.listen-address="+addr,
			"--storage.tsdb.path="+filepath.Join(dir, fmt.Sprintf("data%d", attempt)))
		cmd.Stdout, cmd.Stderr = p.output, p.output
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			select {
			case <-done: // it exited: most likely the port was taken meanwhile
				deadline = time.Time{}
				continue
			default:
			}
			if status, _, err := promGet(p.url + "/-/ready"); err == nil && status == http.StatusOK {
				return p
			}
			time.Sleep(100 * time.Millisecond)
		}
		lastOutput = p.output.String()
	}
	t.Fatalf("prometheus did not become ready on three ports; its output:\n%s", lastOutput)
	return nil
}

// promGet GETs u with a bound and returns the status and body.
func promGet(u string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// promAlert is one alert of /api/v1/alerts.
type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"` // pending or firing
	ActiveAt    time.Time         `json:"activeAt"`
}

// alerts returns the alerts Prometheus has pending or firing.
func (p *promServer) alerts() ([]promAlert, error) {
	status, body, err := promGet(p.url + "/api/v1/alerts")
	if err != nil {
		return nil, err
	}
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Alerts []promAlert `json:"alerts"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || status != http.StatusOK || r.Status != "success" {
		return nil, fmt.Errorf("GET /api/v1/alerts: %d %s (%v)", status, body, err)
	}
	return r.Data.Alerts, nil
}

// query returns the value of an instant query whose result is one sample, or an error saying what it got.
func (p *promServer) query(q string) (string, error) {
	status, body, err := promGet(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return "", err
	}
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || status != http.StatusOK || len(r.Data.Result) != 1 {
		return "", fmt.Errorf("query %s: %d %s (%v)", q, status, body, err)
	}
	return fmt.Sprint(r.Data.Result[0].Value[1]), nil
}

// firstSample returns the time of the oldest sample for which holds is true of the one series selector
// selects, within the last 15 minutes of Prometheus's storage: the time of the scrape (or, for ALERTS, of the
// evaluation) that first saw it so.
func (p *promServer) firstSample(selector string, holds func(float64) bool) (time.Time, error) {
	q := selector + "[15m]"
	status, body, err := promGet(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return time.Time{}, err
	}
	var r struct {
		Data struct {
			Result []struct {
				Values [][2]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || status != http.StatusOK || len(r.Data.Result) != 1 {
		return time.Time{}, fmt.Errorf("query %s: %d %s (%v), want one series", q, status, body, err)
	}
	for _, v := range r.Data.Result[0].Values {
		at, ok := v[0].(float64)
		value, err := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
		if !ok || err != nil {
			return time.Time{}, fmt.Errorf("query %s: a sample %v that is not a time and a number", q, v)
		}
		if holds(value) {
			return time.UnixMilli(int64(math.Round(at * 1000))), nil
		}
	}
	return time.Time{}, fmt.Errorf("query %s: no sample of the fault in %s", q, body)
}

// missedEvaluations returns how many rule group evaluations Prometheus skipped so far because it ran late
// (prometheus_rule_group_iterations_missed_total, summed over the groups): each may delay an alert by an
// evaluation interval.
func (p *promServer) missedEvaluations() (int, error) {
	status, body, err := promGet(p.url + "/metrics")
	if err != nil || status != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %d (%v)", status, err)
	}
	missed := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "prometheus_rule_group_iterations_missed_total{") {
			continue
		}
		fields := strings.Fields(line)
		n, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("GET /metrics: %q: %v", line, err)
		}
		missed += n
	}
	return int(missed), nil
}

// findAlert returns the alert named name whose label label is value ("" for an alert without it), or nil.
func findAlert(alerts []promAlert, name, label, value string) *promAlert {
	for i, a := range alerts {
		if a.Labels["alertname"] == name && a.Labels[label] == value {
			return &alerts[i]
		}
	}
	return nil
}

// rulesWithFor writes to dir a copy of the rule file src in which the alerts named in shorter have the for:
// given there, and returns its path. Only the for: changes: the test fails if any other field of any rule
// differs between the two files, the expressions first.
func rulesWithFor(t *testing.T, src, dir string, shorter map[string]string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	changed := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			var alert string
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "alert" {
					alert = n.Content[i+1].Value
				}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if d, ok := shorter[alert]; ok && n.Content[i].Value == "for" {
					n.Content[i+1].Value = d
					changed++
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	if changed != len(shorter) {
		t.Fatalf("%s: changed the for: of %d alerts, want the %d of %v", src, changed, len(shorter), shorter)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	type rule struct {
		Alert, Record, Expr, For string
		Labels, Annotations      map[string]string
	}
	type rules struct{ Groups []struct{ Rules []rule } }
	var was, is rules
	if err := yaml.Unmarshal(data, &was); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(out, &is); err != nil {
		t.Fatal(err)
	}
	if len(was.Groups) != len(is.Groups) {
		t.Fatalf("the copy of %s has %d groups, want %d", src, len(is.Groups), len(was.Groups))
	}
	for g := range was.Groups {
		if len(was.Groups[g].Rules) != len(is.Groups[g].Rules) {
			t.Fatalf("the copy of %s has %d rules in group %d, want %d", src, len(is.Groups[g].Rules), g, len(was.Groups[g].Rules))
		}
		for r, w := range was.Groups[g].Rules {
			c := is.Groups[g].Rules[r]
			if _, ok := shorter[w.Alert]; ok {
				w.For = c.For
			}
			if w.Expr != c.Expr || fmt.Sprint(w) != fmt.Sprint(c) {
				t.Fatalf("the copy of %s changed more than a for: %+v became %+v", src, w, c)
			}
		}
	}
	path := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// expectedAlert is an alert a test's fault must fire: its name, the label and value that say what it is
// about, its for:, and the series of the watcher's that its expression reads, with the values that are the
// fault's.
type expectedAlert struct {
	name, label, value string
	forDuration        time.Duration
	condition          string             // a series selector
	holds              func(float64) bool // nil: above 0
}

// assertFires waits for a to fire, at most its for: plus two scrapes (and the slack for the watcher's
// confirming poll and a loaded machine) after faultAt, with a severity, a summary naming a.value and a
// description with the next step. Then it reads in Prometheus's own record when the watcher's condition was
// first scraped and when the alert first fired: Prometheus must have fired it no sooner than its for: after
// that scrape, and within its for: plus two scrape intervals (one more evaluation interval for each evaluation
// Prometheus missed running late).
func (p *promServer) assertFires(t *testing.T, faultAt time.Time, a expectedAlert) {
	t.Helper()
	limit := a.forDuration + 2*promScrape + promSlack
	within(t, faultAt, limit, a.name+" firing for "+a.value, func() (bool, string) {
		alerts, err := p.alerts()
		if err != nil {
			return false, err.Error()
		}
		found := findAlert(alerts, a.name, a.label, a.value)
		if found == nil || found.State != "firing" {
			return false, fmt.Sprintf("alerts %+v", alerts)
		}
		if !strings.Contains(found.Annotations["summary"], a.value) || !strings.Contains(found.Annotations["description"], "Next:") ||
			found.Labels["severity"] == "" {
			t.Errorf("%s: severity %q, summary %q, description %q; want a severity, %q named and the next step",
				a.name, found.Labels["severity"], found.Annotations["summary"], found.Annotations["description"], a.value)
		}
		return true, ""
	})
	holds := a.holds
	if holds == nil {
		holds = func(v float64) bool { return v > 0 }
	}
	seenAt, err := p.firstSample(a.condition, holds)
	if err != nil {
		t.Fatalf("%s: the condition it fires on: %v", a.name, err)
	}
	firedAt, err := p.firstSample(fmt.Sprintf(`ALERTS{alertname=%q, alertstate="firing", %s=%q}`, a.name, a.label, a.value),
		func(v float64) bool { return v > 0 })
	if err != nil {
		t.Fatalf("%s: when it fired: %v", a.name, err)
	}
	missed, err := p.missedEvaluations()
	if err != nil {
		t.Fatal(err)
	}
	bound := a.forDuration + 2*promScrape + time.Duration(missed)*promEval
	if seenAt.Before(faultAt.Add(-promScrape)) {
		t.Errorf("%s: %s was scraped at %s, before the fault at %s: the test's condition is not the fault's",
			a.name, a.condition, seenAt.Format(time.StampMilli), faultAt.Format(time.StampMilli))
	}
	if took := firedAt.Sub(seenAt); took < a.forDuration || took > bound {
		t.Errorf("%s %q fired %s after Prometheus first scraped %s; want from its for: %s to %s (for: plus two "+
			"scrapes, and %d missed evaluations)", a.name, a.value, took, a.condition, a.forDuration, bound, missed)
	}
	t.Logf("%s %q: the watcher's condition scraped %s after the fault, the alert fired %s after that "+
		"(for: %s, bound %s); %s after the fault in all (bound with slack %s)", a.name, a.value,
		seenAt.Sub(faultAt).Round(10*time.Millisecond), firedAt.Sub(seenAt), a.forDuration, bound,
		firedAt.Sub(faultAt).Round(10*time.Millisecond), limit)
}

// assertResolved waits for each of alerts to be neither pending nor firing, at most ten scrapes (and the
// slack) after healAt, and logs how long that took.
func (p *promServer) assertResolved(t *testing.T, healAt time.Time, alerts ...expectedAlert) {
	t.Helper()
	took := within(t, healAt, 10*promScrape+promSlack, "the alerts resolved", func() (bool, string) {
		active, err := p.alerts()
		if err != nil {
			return false, err.Error()
		}
		for _, a := range alerts {
			if found := findAlert(active, a.name, a.label, a.value); found != nil {
				return false, fmt.Sprintf("%s %q still %s", a.name, a.value, found.State)
			}
		}
		return true, ""
	})
	t.Logf("the %d alerts resolved %s after the heal", len(alerts), took.Round(100*time.Millisecond))
}

// within polls cond every 200ms until it holds, and returns how long after since that was; when limit has
// passed since then it fails the test with what cond said last.
func within(t *testing.T, since time.Time, limit time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	for {
		ok, state := cond()
		if ok {
			return time.Since(since)
		}
		if time.Since(since) > limit {
			t.Fatalf("%s: not within %s; last: %s", what, limit, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestPrometheusFiresTheShippedAlertsOnBrokenLocks runs the shipped rules in a real Prometheus scraping the
// binary that watches three real masters. A lock whose keys are deleted on two masters while the third keeps it
// has lost its quorum, a lock with one token on one master and another token on a second is split, and a master
// set to maxmemory-policy allkeys-lru may evict locks: RedlockLockQuorumLost, RedlockLockSplit and
// RedlockMasterEvictionPolicy must fire, naming the lock or the master: by Prometheus's own timestamps no sooner
// than their for: after it first scraped the condition from the watcher and no later than their for: plus two
// scrape intervals, and by the wall clock within that and slack for the watcher's confirming poll and a loaded
// machine after the fault; putting the keys back, deleting the split tokens and setting noeviction again must
// resolve them. The rules are the shipped files, unchanged, but for the for: of
// RedlockMasterEvictionPolicy (10m, a configuration that does not need a page sooner), which a copy shortens to
// 5s, and unless REDLOCK_TEST_SOAK=full the for: of RedlockLockSplit (30s), shortened to 10s like
// RedlockLockQuorumLost's; rulesWithFor checks that nothing else differs.
func TestPrometheusFiresTheShippedAlertsOnBrokenLocks(t *testing.T) {
	t.Parallel()
	promBin := prometheusBinary(t)
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := redlocktest.Addrs(masters)
	shipped := func(name string) string {
		abs, err := filepath.Abs(filepath.Join("..", "deploy", "prometheus", name))
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	const evictionFor, shippedSplitFor = 5 * time.Second, 30 * time.Second
	shorter := map[string]string{"RedlockMasterEvictionPolicy": evictionFor.String()}
	splitFor := redlocktest.Soak(10*time.Second, shippedSplitFor)
	if splitFor != shippedSplitFor {
		shorter["RedlockLockSplit"] = splitFor.String()
	}
	rules := []string{shipped("rules.yml"), rulesWithFor(t, shipped("alerts.yml"), t.TempDir(), shorter)}

	h := startHeadless(t, bin, "--masters", strings.Join(addrs, ","), "--poll", "200ms")
	target := strings.TrimSuffix(strings.TrimPrefix(h.metrics, "http://"), "/metrics")
	prom := startPrometheus(t, promBin, target, rules)
	within(t, time.Now(), time.Minute, "Prometheus scraping the watcher of three masters", func() (bool, string) {
		v, err := prom.query(`redlock_masters_up{job="redlock"}`)
		return err == nil && v == "3", fmt.Sprintf("%v %v; prometheus output:\n%s", v, err, prom.output.String())
	})

	ctx := context.Background()
	set := func(resource, token string, on ...int) {
		t.Helper()
		for _, i := range on {
			if err := clients[i].Set(ctx, resource, token, 10*time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	del := func(resource string, on ...int) {
		t.Helper()
		for _, i := range on {
			if err := clients[i].Del(ctx, resource).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	const (
		quorum = "e2e:quorum"
		split  = "e2e:split"
		token  = "holder-0123456789abcdef"
	)
	set(quorum, token, 0, 1, 2)
	within(t, time.Now(), time.Minute, "the held lock in Prometheus", func() (bool, string) {
		v, err := prom.query(`redlock_locks{job="redlock",state="held"}`)
		return err == nil && v == "1", fmt.Sprintf("%v %v", v, err)
	})

	// The faults: the holder's key deleted on a majority while it lives on master 0; a split of two tokens.
	policy := func(i int, p string) {
		t.Helper()
		if err := clients[i].ConfigSet(ctx, "maxmemory-policy", p).Err(); err != nil {
			t.Fatal(err)
		}
	}
	faultAt := time.Now()
	del(quorum, 1, 2)
	set(split, "token-a-0123456789abcdef", 0)
	set(split, "token-b-0123456789abcdef", 1)
	policy(2, "allkeys-lru")
	quorumLost := expectedAlert{"RedlockLockQuorumLost", "resource", quorum, 10 * time.Second,
		fmt.Sprintf(`redlock_warning{job="redlock", kind=~"quorum-lost|lock-lost", resource=%q}`, quorum), nil}
	lossRecorded := expectedAlert{"RedlockQuorumLossRecorded", "resource", "", 0, // the count of losses names no lock
		`redlock_lock_lost_total{job="redlock"}`, nil}
	evictionPolicy := expectedAlert{"RedlockMasterEvictionPolicy", "master", addrs[2], evictionFor,
		fmt.Sprintf(`redlock_warning{job="redlock", kind="eviction-policy", master=%q}`, addrs[2]), nil}
	splitAlert := expectedAlert{"RedlockLockSplit", "resource", split, splitFor,
		fmt.Sprintf(`redlock_lock_split{job="redlock", resource=%q}`, split), nil}
	for _, a := range []expectedAlert{quorumLost, lossRecorded, evictionPolicy, splitAlert} {
		prom.assertFires(t, faultAt, a)
	}

	// The heal: the holder's keys back on the majority (held again); the split tokens deleted (gone).
	healAt := time.Now()
	set(quorum, token, 1, 2)
	del(split, 0, 1)
	policy(2, "noeviction")
	prom.assertResolved(t, healAt, quorumLost, splitAlert, evictionPolicy)
}

// TestPrometheusFiresRedlockLockEvictedOnTheFirstEviction runs the shipped rules, unchanged, in a real
// Prometheus scraping a watcher just started on three real masters, and has the masters evict a held lock's keys
// (allkeys-random with a maxmemory of 1 byte: the next write evicts every key): the first eviction the watcher
// ever sees must fire RedlockLockEvicted, which reads an increase of redlock_events_total{kind="evicted"}. It
// fires only because the exporter serves that series at 0 from its first scrape; a series that appeared with the
// event would show Prometheus no increase.
func TestPrometheusFiresRedlockLockEvictedOnTheFirstEviction(t *testing.T) {
	t.Parallel()
	promBin := prometheusBinary(t)
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := redlocktest.Addrs(masters)
	rules := make([]string, 2)
	for i, name := range []string{"rules.yml", "alerts.yml"} {
		abs, err := filepath.Abs(filepath.Join("..", "deploy", "prometheus", name))
		if err != nil {
			t.Fatal(err)
		}
		rules[i] = abs
	}
	h := startHeadless(t, bin, "--masters", strings.Join(addrs, ","), "--poll", "200ms")
	target := strings.TrimSuffix(strings.TrimPrefix(h.metrics, "http://"), "/metrics")
	prom := startPrometheus(t, promBin, target, rules)

	ctx := context.Background()
	const resource, token = "e2e:evicted", "holder-0123456789abcdef"
	for _, c := range clients {
		if err := c.Set(ctx, resource, token, 10*time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	within(t, time.Now(), time.Minute, "the held lock in Prometheus", func() (bool, string) {
		held, err := prom.query(`redlock_locks{job="redlock",state="held"}`)
		return err == nil && held == "1", fmt.Sprintf("%v %v", held, err)
	})

	faultAt := time.Now()
	for _, c := range clients {
		for _, kv := range [][2]string{{"maxmemory-policy", "allkeys-random"}, {"maxmemory", "1"}} {
			if err := c.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
				t.Fatal(err)
			}
		}
		_ = c.Set(ctx, "e2e:filler", "x", 0).Err() // evicts every key first; refused itself (OOM) once none is left
		if n, err := c.Exists(ctx, resource).Result(); err != nil || n != 0 {
			t.Fatalf("the lock's key was not evicted: exists %d, %v", n, err)
		}
		if err := c.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
			t.Fatal(err)
		}
	}
	prom.assertFires(t, faultAt, expectedAlert{"RedlockLockEvicted", "kind", "evicted", 0,
		`redlock_events_total{job="redlock", kind="evicted"}`, nil})
}

// TestPrometheusFiresTheShippedAlertsOnStoppedMasters runs the shipped rules in a real Prometheus scraping the
// binary that watches three real masters, and crashes two of them: RedlockMasterDown must fire for each and
// RedlockQuorumUnavailable for the watcher, within their for: plus two scrape intervals as
// TestPrometheusFiresTheShippedAlertsOnBrokenLocks times them; started again, they resolve them. Unless
// REDLOCK_TEST_SOAK=full, a copy of the shipped rules shortens the for: of these two alerts (1m and 30s) to 10s;
// rulesWithFor checks that nothing else differs. (RedlockMasterRestartedWithinTTL is left to the rules' unit
// tests: masters a test has just started are all within any lock's TTL of their start.)
func TestPrometheusFiresTheShippedAlertsOnStoppedMasters(t *testing.T) {
	t.Parallel()
	promBin := prometheusBinary(t)
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	addrs := redlocktest.Addrs(masters)
	forOf := map[string]time.Duration{"RedlockMasterDown": time.Minute, "RedlockQuorumUnavailable": 30 * time.Second}
	shorter := map[string]string{}
	for name, shipped := range forOf {
		if forOf[name] = redlocktest.Soak(10*time.Second, shipped); forOf[name] != shipped {
			shorter[name] = forOf[name].String()
		}
	}
	alertRules, err := filepath.Abs(filepath.Join("..", "deploy", "prometheus", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(shorter) > 0 {
		alertRules = rulesWithFor(t, alertRules, t.TempDir(), shorter)
	}
	recordingRules, err := filepath.Abs(filepath.Join("..", "deploy", "prometheus", "rules.yml"))
	if err != nil {
		t.Fatal(err)
	}

	h := startHeadless(t, bin, "--masters", strings.Join(addrs, ","), "--poll", "200ms")
	target := strings.TrimSuffix(strings.TrimPrefix(h.metrics, "http://"), "/metrics")
	prom := startPrometheus(t, promBin, target, []string{recordingRules, alertRules})
	within(t, time.Now(), time.Minute, "Prometheus scraping the watcher of three masters", func() (bool, string) {
		v, err := prom.query(`redlock_masters_up{job="redlock"}`)
		return err == nil && v == "3", fmt.Sprintf("%v %v; prometheus output:\n%s", v, err, prom.output.String())
	})

	var down []expectedAlert
	for _, i := range []int{1, 2} {
		down = append(down, expectedAlert{"RedlockMasterDown", "master", addrs[i], forOf["RedlockMasterDown"],
			fmt.Sprintf(`redlock_master_down{job="redlock", master=%q}`, addrs[i]), nil})
	}
	noQuorum := expectedAlert{"RedlockQuorumUnavailable", "instance", target, forOf["RedlockQuorumUnavailable"],
		`redlock_masters_up{job="redlock"}`, func(up float64) bool { return up < 2 }}
	faultAt := time.Now()
	for _, i := range []int{1, 2} {
		if err := masters[i].Stop(); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range append([]expectedAlert{noQuorum}, down...) {
		prom.assertFires(t, faultAt, a)
	}

	healAt := time.Now()
	for _, i := range []int{1, 2} {
		if err := masters[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	prom.assertResolved(t, healAt, append([]expectedAlert{noQuorum}, down...)...)
}

// dashboardVariables are what Grafana puts for the variables the shipped dashboard's queries use: every job,
// watcher and lock, and intervals as a dashboard of the last hour would have them.
var dashboardVariables = map[string]string{"job": ".*", "instance": ".*", "resource": ".*",
	"__rate_interval": "1m", "__interval": "15s", "__range": "1h"}

// TestPrometheusEvaluatesEveryDashboardQuery sends each query of the shipped Grafana dashboard (its panels' and
// its variables' PromQL), with the variables as Grafana would fill them, to a real Prometheus that has loaded the
// shipped rules: each must parse and evaluate, as a typo or a range where an instant vector is due would leave a
// panel showing an error. The metrics tests check the names it reads against the exporter's; this checks the
// language around them.
func TestPrometheusEvaluatesEveryDashboardQuery(t *testing.T) {
	t.Parallel()
	promBin := prometheusBinary(t)
	data, err := os.ReadFile(filepath.Join("..", "deploy", "grafana", "redlock.json"))
	if err != nil {
		t.Fatal(err)
	}
	type panel struct {
		Title   string
		Targets []struct{ Expr string }
		Panels  []json.RawMessage
	}
	var d struct {
		Panels     []json.RawMessage
		Templating struct {
			List []struct {
				Name, Type, Definition string
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	type query struct{ where, expr string }
	var queries []query
	var walk func(raw []json.RawMessage)
	walk = func(raw []json.RawMessage) {
		for _, r := range raw {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				t.Fatal(err)
			}
			for _, tg := range p.Targets {
				queries = append(queries, query{"panel " + p.Title, tg.Expr})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		// label_values(EXPR, label): Prometheus evaluates EXPR.
		if inner, ok := strings.CutPrefix(v.Definition, "label_values("); ok && v.Type == "query" {
			inner = strings.TrimSuffix(inner, ")")
			queries = append(queries, query{"variable " + v.Name, inner[:strings.LastIndex(inner, ",")]})
		}
	}
	if len(queries) < 10 {
		t.Fatalf("%d queries in the dashboard; the test reads it wrong", len(queries))
	}

	rules, err := filepath.Glob(filepath.Join("..", "deploy", "prometheus", "*.yml"))
	if err != nil || len(rules) == 0 {
		t.Fatalf("no rule files (%v)", err)
	}
	for i, r := range rules {
		if rules[i], err = filepath.Abs(r); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing listens on the target: the queries are checked, not the data.
	prom := startPrometheus(t, promBin, fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t)), rules)
	variable := regexp.MustCompile(`\$\{?(\w+)\}?`)
	for _, q := range queries {
		expr := variable.ReplaceAllStringFunc(q.expr, func(v string) string {
			name := variable.FindStringSubmatch(v)[1]
			value, ok := dashboardVariables[name]
			if !ok {
				t.Errorf("%s: %q uses $%s, which the test does not fill in", q.where, q.expr, name)
			}
			return value
		})
		status, body, err := promGet(prom.url + "/api/v1/query?query=" + url.QueryEscape(expr))
		if err != nil || status != http.StatusOK || !strings.Contains(string(body), `"status":"success"`) {
			t.Errorf("%s: %s does not evaluate in Prometheus: %d %s (%v)", q.where, expr, status, body, err)
		}
	}
	t.Logf("%d queries of the dashboard sent", len(queries))
}
