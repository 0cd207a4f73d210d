package ui_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// freeSnapshot is three masters polled every 2s for two minutes: o1:hot changes hands at every other poll
// until 10s before the end, then has no key; billing:cool is held throughout by one holder. Aggregated by the
// monitor from raw readings, it ends with o1:hot free, its handovers in the last minute.
func freeSnapshot() monitor.Snapshot {
	const every, polls = 2 * time.Second, 61
	var prev *monitor.Snapshot
	var s monitor.Snapshot
	for p := range polls {
		at := testNow.Add(-time.Duration(polls-1-p) * every)
		rs := make([]monitor.Reading, 3)
		for i := range rs {
			keys := []monitor.KeyReading{seenAt(at, "billing:cool", storyToken(900), 30*time.Second)}
			if p < polls-5 && p%2 == 0 {
				keys = append(keys, seenAt(at, "o1:hot", storyToken(p), 30*time.Second))
			} else {
				keys = append(keys, absentKey("o1:hot"))
			}
			rs[i] = reading(i, at, keys...)
		}
		s = monitor.Aggregate(prev, rs, nil, at, monitor.Config{})
		prev = &s
	}
	return s
}

// TestFreeLockGolden: the heat-sorted list keeps a lock nobody holds any more, dim, as free, first by its
// handovers; its view names its last holder and keeps its timeline; the hide key takes it out of the list and
// says so in the title.
func TestFreeLockGolden(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		keys keySeq
	}{
		{"heat_sort_80x24", 80, 24, keys("H")},
		{"heat_sort_120x40", 120, 40, keys("H")},
		{"free_drilldown_80x24", 80, 24, keys("H", "g", "enter")},
		{"free_drilldown_timeline_120x40", 120, 40, keys("H", "g", "enter", "G")},
		{"free_hidden_80x24", 80, 24, keys("H", "u")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := goldenScreen(t, freeSnapshot(), tc.w, tc.h, tc.keys)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// lockRowLine is the line of the locks panel that lists resource, "" when none does.
func lockRowLine(view, resource string) string {
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, " "+resource+" ") && (strings.Contains(line, "free") || strings.Contains(line, "held")) {
			return line
		}
	}
	return ""
}

// TestAContendedLockStaysListedFreeAfterItsHolders is issue 34's item 2 on real masters: three clients hand
// o1:hot from one to the other, holding 400ms each, as three `run --wait` loops do, and then stop. After the
// last one, the lock is still in the heat-sorted list, first, free, with its handovers; its view names its
// last holder and keeps its timeline; the header counts it free; the hide key takes it out and puts it back.
// Tracked and polled.
func TestAContendedLockStaysListedFreeAfterItsHolders(t *testing.T) {
	t.Parallel()
	for _, polled := range []bool{false, true} {
		t.Run(map[bool]string{false: "tracked", true: "polled"}[polled], func(t *testing.T) {
			t.Parallel()
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			locker, err := redlock.New(clients, redlock.WithNodeTimeout(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(locker.Close)
			c := watched(t, clients, redlocktest.Addrs(masters), locker, monitor.Config{NoTracking: polled, Interval: 100 * time.Millisecond})
			c.set("billing:cool", "tok-cool-0123456789abcdef", time.Minute)
			d := c.dashboard(ui.Options{})
			const res, tenures = "o1:hot", 6
			var mu sync.Mutex
			begun := 0
			ctx, stop := context.WithTimeout(context.Background(), time.Minute)
			defer stop()
			var wg sync.WaitGroup
			for range 3 {
				rc, err := redlock.New(redlocktest.Clients(t, masters), redlock.WithRetries(0), redlock.WithNodeTimeout(2*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(rc.Close)
				wg.Go(func() {
					for ctx.Err() == nil {
						mu.Lock()
						done := begun >= tenures
						mu.Unlock()
						if done {
							return
						}
						l, err := rc.TryAcquire(ctx, res, 10*time.Second)
						if err != nil {
							time.Sleep(20 * time.Millisecond)
							continue
						}
						mu.Lock()
						begun++
						mu.Unlock()
						time.Sleep(400 * time.Millisecond)
						_ = l.Release(context.Background())
						time.Sleep(10 * time.Millisecond)
					}
				})
			}
			for done := false; !done; {
				c.poll(d)
				time.Sleep(100 * time.Millisecond)
				mu.Lock()
				done = begun >= tenures
				mu.Unlock()
			}
			wg.Wait()
			d.press("H")
			deadline := time.Now().Add(30 * time.Second)
			for {
				c.poll(d)
				if line := lockRowLine(d.m.View(), res); strings.Contains(line, "free") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s is not listed free 30s after its last holder:\n%s", res, d.m.View())
				}
				time.Sleep(100 * time.Millisecond)
			}
			view := d.m.View()
			hot, cool := strings.Index(view, lockRowLine(view, res)), strings.Index(view, lockRowLine(view, "billing:cool"))
			if hot < 0 || cool < 0 || hot > cool || !strings.Contains(view, "sort heat") {
				t.Errorf("sorted by heat, %s (handed over %d times) is not listed before billing:cool (held throughout):\n%s", res, tenures, view)
			}
			if !strings.Contains(view, "(1 free)") {
				t.Errorf("the header does not count the free lock:\n%s", view)
			}

			d.press("g", "enter")
			view = d.m.View()
			for _, want := range []string{"free · on 0 of 3 masters", "last held", "released at", "Contention", "handovers/min"} {
				if !strings.Contains(view, want) {
					t.Errorf("the free lock's view lacks %q:\n%s", want, view)
				}
			}
			if strings.Contains(view, "on no master any more") || strings.Contains(view, "no holder seen in the window") {
				t.Errorf("the free lock's view says it is gone, or has no holder in the window:\n%s", view)
			}
			d.press("esc")
			d.press("D") // nothing to delete: no master has its key
			if view = d.m.View(); !strings.Contains(view, "o1:hot is free: no master has its key") {
				t.Errorf("D on the free lock does not say there is nothing to delete:\n%s", view)
			}

			d.press("u")
			view = d.m.View()
			if lockRowLine(view, res) != "" || !strings.Contains(view, "1 free hidden") || lockRowLine(view, "billing:cool") == "" {
				t.Errorf("u: %s still listed, or the title does not say it is hidden, or billing:cool went too:\n%s", res, view)
			}
			c.poll(d) // hidden it stays, poll after poll
			if view = d.m.View(); lockRowLine(view, res) != "" {
				t.Errorf("the next poll lists the hidden free lock again:\n%s", view)
			}
			d.press("u")
			if view = d.m.View(); lockRowLine(view, res) == "" || strings.Contains(view, "free hidden") {
				t.Errorf("u again: %s not listed again:\n%s", res, view)
			}
		})
	}
}
