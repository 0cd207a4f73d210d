package ui_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestPerMasterTTLsAreCountedFromTheirRead is issue 34's item 1 as it was seen: a lock set on three masters
// with a 30s TTL, its view opened, and 8s later every master's PTTL in the lock's view and in the Detail panel
// beside the list must be within a poll of what the master says now (PTTL, as redis-cli asks it). A tracked
// master does not read a key again until it changes, and both showed the PTTL of that first read for ever;
// polled masters, which read the key at every poll, agreed already and must go on agreeing.
func TestPerMasterTTLsAreCountedFromTheirRead(t *testing.T) {
	t.Parallel()
	// The screen writes a TTL above 10s in whole seconds, cut short: one poll, plus that second.
	const within = monitor.DefaultInterval + time.Second
	for _, polled := range []bool{false, true} {
		t.Run(map[bool]string{false: "tracked", true: "polled"}[polled], func(t *testing.T) {
			t.Parallel()
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			addrs := redlocktest.Addrs(masters)
			locker, err := redlock.New(clients, redlock.WithNodeTimeout(500*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(locker.Close)
			c := watched(t, clients, addrs, locker, monitor.Config{NoTracking: polled})
			c.set("orders:42", "tok", 30*time.Second)
			d := c.dashboard(ui.Options{TTL: 30 * time.Second})
			for range 3 { // the key is found and read
				c.poll(d)
			}
			d.press("enter")
			d.waitView("orders:42")
			time.Sleep(8 * time.Second)
			c.poll(d) // a poll that, tracked, reads nothing again: the key did not change
			checkPTTLs := func(where string, pattern *regexp.Regexp, view string) {
				t.Helper()
				shown := pattern.FindAllStringSubmatch(view, -1)
				if len(shown) != len(clients) {
					t.Fatalf("%s shows %d per-master TTLs, want %d:\n%s", where, len(shown), len(clients), view)
				}
				for i, m := range shown {
					secs, _ := strconv.ParseFloat(m[1], 64)
					pttl, err := clients[i].PTTL(context.Background(), "orders:42").Result()
					if err != nil {
						t.Fatal(err)
					}
					if diff := time.Duration(secs*float64(time.Second)) - pttl; diff > within || diff < -within {
						t.Errorf("%s: M%d shows %ss while the master's PTTL says %s: not counted from its read\n%s",
							where, i+1, m[1], pttl.Round(time.Millisecond), view)
					}
				}
			}
			checkPTTLs("the lock's view", regexp.MustCompile(`PTTL (\d+(?:\.\d+)?)s`), d.m.View())
			d.press("esc")
			checkPTTLs("the Detail panel", regexp.MustCompile(`M\d\s+[●○] \S+\s+[█░]+ (\d+(?:\.\d+)?)s`), d.m.View())
		})
	}
}
