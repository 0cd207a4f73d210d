package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"
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
