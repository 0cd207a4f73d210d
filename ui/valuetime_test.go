package ui_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// valueTimeSnapshot is three masters with lock.orders held by a client that stores its expiry (Unix
// milliseconds, 20s from now) as the value, and billing:nightly held by a token, aggregated by the monitor.
func valueTimeSnapshot() monitor.Snapshot {
	stamp := strconv.FormatInt(testNow.Add(20*time.Second).UnixMilli(), 10)
	return twoPolls(func(at time.Time) []monitor.Reading {
		rs := make([]monitor.Reading, 3)
		for i := range rs {
			rs[i] = reading(i, at, seenAt(at, "lock.orders", stamp, testNow.Add(20*time.Second).Sub(at)),
				seenAt(at, "billing:nightly", tokA, 30*time.Second))
		}
		return rs
	}, func(at time.Time) []monitor.Reading {
		rs := make([]monitor.Reading, 3)
		for i := range rs {
			rs[i] = reading(i, at, seenAt(at, "lock.orders", stamp, 20*time.Second),
				seenAt(at, "billing:nightly", tokA, 29*time.Second))
		}
		return rs
	})
}

// TestValueTimeLockGolden is issue 34's item 7 on the screen: a lock whose value is its expiry time is listed
// with its holder unknown, not the number, and its detail and view say what the time is.
func TestValueTimeLockGolden(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		keys keySeq
	}{
		{"list_and_detail_120x40", 120, 40, keys("down")},
		{"drilldown_80x24", 80, 24, keys("down", "enter")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := goldenScreen(t, valueTimeSnapshot(), tc.w, tc.h, tc.keys)
			stamp := strconv.FormatInt(testNow.Add(20*time.Second).UnixMilli(), 10)
			if line := lockRowLine(view, "lock.orders"); tc.name == "list_and_detail_120x40" &&
				(!strings.Contains(line, "unknown") || strings.Contains(line, stamp[:8])) {
				t.Errorf("lock.orders' row shows %q: want its holder unknown, not its value", line)
			}
			if flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┃", " ").Replace(view)), " "); !strings.Contains(flat, "unknown · its value: expires at 12:00:25, in 20s") {
				t.Errorf("the screen does not say lock.orders' value is its expiry:\n%s", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}
