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

// TestPerMasterTTLsAreCountedFromTheirRead is issue 34's item 1: a tracked master does not read a key again
// until it changes, and the lock's view showed the PTTL of that read for ever. Every master's TTL in the lock's
// view must stay within a poll of what the master says now, tracked and polled alike.
func TestPerMasterTTLsAreCountedFromTheirRead(t *testing.T) {
	t.Parallel()
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
			time.Sleep(2500 * time.Millisecond)
			c.poll(d) // a poll that, tracked, reads nothing again: the key did not change
			view := d.m.View()
			shown := regexp.MustCompile(`PTTL (\d+(?:\.\d+)?)s`).FindAllStringSubmatch(view, -1)
			if len(shown) != 3 {
				t.Fatalf("the lock's view shows %d per-master PTTLs, want 3:\n%s", len(shown), view)
			}
			for i, m := range shown {
				secs, _ := strconv.ParseFloat(m[1], 64)
				pttl, err := clients[i].PTTL(context.Background(), "orders:42").Result()
				if err != nil {
					t.Fatal(err)
				}
				if diff := time.Duration(secs*float64(time.Second)) - pttl; diff > 1500*time.Millisecond || diff < -1500*time.Millisecond {
					t.Errorf("M%d shows PTTL %ss while the master says %s: not counted from its read\n%s", i+1, m[1],
						pttl.Round(time.Millisecond), view)
				}
			}
		})
	}
}
