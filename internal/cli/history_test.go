package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestHistoryFlagReachesTheMonitor: --history sets how long the monitor keeps each lock's holders, 15 minutes
// unless given.
func TestHistoryFlagReachesTheMonitor(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want time.Duration
	}{
		{nil, monitor.DefaultHistory},
		{[]string{"--history", "2h"}, 2 * time.Hour},
		{[]string{"--history=1m"}, time.Minute},
	} {
		c, err := parseConfig(tt.args, fakeEnv(nil, nil))
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if got := monitorConfig(c).History; got != tt.want {
			t.Errorf("%v: monitor History = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestWatchAndMarkdownOnlyWithOnce: --watch and --markdown are --once's, and --markdown excludes --json.
func TestWatchAndMarkdownOnlyWithOnce(t *testing.T) {
	for _, args := range [][]string{{"--watch", "30s"}, {"--markdown"}, {"--once", "--markdown", "--json"}, {"--once", "--watch", "-1s"}} {
		_, err := parseConfig(append(args, "-m", "a:1"), fakeEnv(nil, nil))
		if err == nil || !strings.Contains(err.Error(), "--") || !strings.Contains(err.Error(), args[len(args)-1]) && !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v; want refused, naming the flag", args, err)
		}
	}
	c, err := parseConfig([]string{"--once", "--watch", "30s", "--markdown", "-m", "a:1"}, fakeEnv(nil, nil))
	if err != nil || c.Watch != 30*time.Second || !c.Markdown {
		t.Errorf("--once --watch 30s --markdown: %+v, %v", c, err)
	}
}
