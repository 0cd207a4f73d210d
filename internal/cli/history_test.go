package cli

import (
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
