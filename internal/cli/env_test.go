package cli

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFlagsFromTheEnvironment: REDLOCK_TUI_* sets a flag the command line did not (the masters, headless, the
// metrics address, a dotted flag's name); the command line wins over it; an empty variable is unset; a value
// the flag refuses is a usage error naming the variable.
func TestFlagsFromTheEnvironment(t *testing.T) {
	vars := map[string]string{
		"REDLOCK_TUI_MASTERS":         "10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379",
		"REDLOCK_TUI_HEADLESS":        "true",
		"REDLOCK_TUI_METRICS":         ":9379",
		"REDLOCK_TUI_METRICS_LOCKS":   "billing:nightly",
		"REDLOCK_TUI_WEB_CONFIG_FILE": "/etc/redlock-tui/web.yml",
		"REDLOCK_TUI_EVENTS":          "",
	}
	c, err := parseConfig(nil, fakeEnv(vars, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Masters) != 3 || !c.Headless || c.Metrics != ":9379" || !slices.Equal(c.MetricsLocks, []string{"billing:nightly"}) ||
		c.WebConfig != "/etc/redlock-tui/web.yml" || c.Events != "" {
		t.Errorf("from the environment: masters %v, headless %v, metrics %q, locks %v, web config %q, events %q",
			c.Masters, c.Headless, c.Metrics, c.MetricsLocks, c.WebConfig, c.Events)
	}
	c, err = parseConfig([]string{"--metrics", "127.0.0.1:9400"}, fakeEnv(vars, nil))
	if err != nil || c.Metrics != "127.0.0.1:9400" {
		t.Errorf("--metrics on the command line and in the environment: %q, %v; want the command line's", c.Metrics, err)
	}
	vars["REDLOCK_TUI_POLL"] = "often"
	_, err = parseConfig(nil, fakeEnv(vars, nil))
	var usage *UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "REDLOCK_TUI_POLL") {
		t.Errorf("REDLOCK_TUI_POLL=often: %v; want a usage error naming the variable", err)
	}
}

// TestRunFlagsFromTheEnvironment: run reads the same REDLOCK_TUI_* variables by the same rule (its masters, the
// lock's TTL, its own --wait and --verbose); the command line wins; a variable of a flag run does not have
// (REDLOCK_TUI_HEADLESS, set for the dashboard in the same unit) is not read; a value the flag refuses is a
// usage error naming the variable.
func TestRunFlagsFromTheEnvironment(t *testing.T) {
	vars := map[string]string{
		"REDLOCK_TUI_MASTERS":  "10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379",
		"REDLOCK_TUI_TTL":      "90s",
		"REDLOCK_TUI_WAIT":     "2m",
		"REDLOCK_TUI_VERBOSE":  "true",
		"REDLOCK_TUI_HEADLESS": "true",
		"REDLOCK_TUI_GRACE":    "",
	}
	job := []string{"cron:nightly", "--", "true"}
	rc, err := parseRunConfig(job, fakeEnv(vars, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Masters) != 3 || rc.TTL != 90*time.Second || rc.Wait != 2*time.Minute || !rc.Verbose || rc.Grace != defaultGrace {
		t.Errorf("from the environment: masters %v, ttl %s, wait %s, verbose %v, grace %s", rc.Masters, rc.TTL,
			rc.Wait, rc.Verbose, rc.Grace)
	}
	rc, err = parseRunConfig(append([]string{"--ttl", "20s", "-m", "10.0.0.9:6379"}, job...), fakeEnv(vars, nil))
	if err != nil || rc.TTL != 20*time.Second || len(rc.Masters) != 1 {
		t.Errorf("--ttl and -m on the command line and in the environment: ttl %s, masters %v, %v; want the command line's",
			rc.TTL, rc.Masters, err)
	}
	for name, bad := range map[string]string{"REDLOCK_TUI_WAIT": "soon", "REDLOCK_TUI_VERBOSE": "loud"} {
		vars := maps.Clone(vars)
		vars[name] = bad
		_, err = parseRunConfig(job, fakeEnv(vars, nil))
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), name+"=") {
			t.Errorf("%s=%s: %v; want a usage error naming the variable", name, bad, err)
		}
	}
	delete(vars, "REDLOCK_TUI_MASTERS")
	if _, err = parseRunConfig(job, fakeEnv(vars, nil)); err == nil || !strings.Contains(err.Error(), "--masters") {
		t.Errorf("neither -m nor REDLOCK_TUI_MASTERS: %v; want run to ask for its masters", err)
	}
}

// TestReplayFlagsFromTheEnvironment: replay reads its flags' REDLOCK_TUI_* variables by the same rule; the
// command line wins; its checks apply to what the environment gave; a bad value names the variable.
func TestReplayFlagsFromTheEnvironment(t *testing.T) {
	vars := map[string]string{"REDLOCK_TUI_AT": "+5m", "REDLOCK_TUI_JSON": "true", "REDLOCK_TUI_MOMENTS": ""}
	rc, _, err := parseReplayConfig([]string{"a.rec"}, fakeEnv(vars, nil))
	if err != nil || rc.At != "+5m" || !rc.JSON || rc.Moments || rc.File != "a.rec" {
		t.Errorf("from the environment: %+v, %v; want --at +5m --json on a.rec", rc, err)
	}
	rc, _, err = parseReplayConfig([]string{"a.rec", "--at", "end"}, fakeEnv(vars, nil))
	if err != nil || rc.At != "end" {
		t.Errorf("--at on the command line and in the environment: %q, %v; want the command line's", rc.At, err)
	}
	_, _, err = parseReplayConfig([]string{"a.rec", "--markdown"}, fakeEnv(vars, nil))
	if err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Errorf("--markdown with REDLOCK_TUI_JSON=true: %v; want them refused together", err)
	}
	vars["REDLOCK_TUI_TABLE"] = "yes please"
	_, _, err = parseReplayConfig([]string{"a.rec"}, fakeEnv(vars, nil))
	var usage *UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "REDLOCK_TUI_TABLE=") {
		t.Errorf("REDLOCK_TUI_TABLE=yes please: %v; want a usage error naming the variable", err)
	}
	code, _, stderr := runCapture([]string{"replay", "a.rec"}, fakeEnv(vars, nil))
	checkOneUsageLine(t, []string{"replay", "a.rec"}, code, stderr, "REDLOCK_TUI_TABLE=")
}

// TestTheBackgroundIsReadFromTheEnvironment: REDLOCK_TUI_BACKGROUND chooses the palette as --background does,
// for the dashboard and replay; the flag wins; a value that is not a background is a usage error naming it.
func TestTheBackgroundIsReadFromTheEnvironment(t *testing.T) {
	vars := map[string]string{"REDLOCK_TUI_BACKGROUND": "light"}
	c, err := parseConfig([]string{"-m", "h:1"}, fakeEnv(vars, nil))
	if err != nil || c.Background != "light" {
		t.Fatalf("dashboard: background %q, %v; want light from the environment", c.Background, err)
	}
	if c, err = parseConfig([]string{"-m", "h:1", "--background", "dark"}, fakeEnv(vars, nil)); err != nil || c.Background != "dark" {
		t.Errorf("dashboard: background %q, %v; want the flag's dark", c.Background, err)
	}
	if c, err = parseConfig([]string{"-m", "h:1"}, fakeEnv(nil, nil)); err != nil || c.Background != "auto" {
		t.Errorf("dashboard: background %q, %v; want auto by default", c.Background, err)
	}
	rc, _, err := parseReplayConfig([]string{"a.rec"}, fakeEnv(vars, nil))
	if err != nil || rc.Background != "light" {
		t.Errorf("replay: background %q, %v; want light from the environment", rc.Background, err)
	}
	_, _, err = parseReplayConfig([]string{"a.rec"}, fakeEnv(map[string]string{"REDLOCK_TUI_BACKGROUND": "sepia"}, nil))
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "sepia") {
		t.Errorf("replay with REDLOCK_TUI_BACKGROUND=sepia: %v, want a usage error naming the value", err)
	}
}
