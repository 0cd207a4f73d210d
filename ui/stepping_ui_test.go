package ui_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// stepHead is the story box's first words at step k of n.
func stepHead(k, n int) string { return fmt.Sprintf("STEP %d of %d", k, n) }

// scenarioRow returns the locks table's row of the scenario's lock, "" when it is not listed.
func scenarioRow(view string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, demo.ScenarioResource) && !strings.Contains(l, "│") &&
			(strings.Contains(l, "●") || strings.Contains(l, "○")) {
			return l
		}
	}
	return ""
}

// cellsOf returns the five master cells of a locks table row (● holder, ○ another token, · no key, ? not read).
func cellsOf(row string) string {
	var out []string
	for _, f := range strings.Fields(row) {
		if f == "●" || f == "○" || f == "·" || f == "?" {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// stepCase is a story run step by step at 100x30, and the cells of ledger:settle that the table shows once
// the step announced before step k is done: "" when no master has a key for it, a|b when either is true (a
// key expiring within milliseconds of the step).
type stepCase struct {
	name  string
	downs int // the story's place in the scenario menu
	steps int
	ttl   time.Duration // the presenter's TTL: short in the stories that wait for a lock to run out
	cells map[int]string
	// got names, before step k, the client whose latest acquisition the table shows: ● on the masters its
	// acquisition logged, · on the others. A client that tries until A's lock runs out gets it once a quorum
	// of A's keys expired, which may be before the last of them did: on three, four or all five masters.
	got   map[int]string
	newer []int  // the steps before which the table shows a holder other than before the previous step
	over  string // what the screen shows at the end
}

// Step by step at 100x30, every story: each step waits for space with its number, its story and why it
// matters on screen, and after each the table shows what the step did, although the monitor polls only every
// 30s: the dashboard asks it for a poll once the step is done.
func TestStepByStepShowsWhatEachStepDidAt100x30(t *testing.T) {
	parallelUnlessRace(t)
	const short = 8 * time.Second
	for _, c := range []stepCase{
		{name: "replication-race", downs: 0, steps: 7, over: "VIOLATION", cells: map[int]string{
			4: "",          // A acquired on master 3, which crashed before anyone read it: nothing to show
			5: "",          // master 4 promoted: it never got A's key
			6: "· · ? ● ·", // B acquired on master 4, the promoted replica; master 3 is down
		}},
		{name: "replication-race-redlock", downs: 1, steps: 6, over: "no violation", cells: map[int]string{
			3: "",          // nobody holds it yet
			4: "● ● ● ● ●", // A acquired on all five
			5: "● ● · ● ●", // master 3 back empty: A keeps four
		}},
		{name: "crash-restart", downs: 2, steps: 8, over: "VIOLATION", cells: map[int]string{
			4: "● ● ● · ·", // A acquired on masters 1-3
			5: "● ● ? · ·", // master 3 crashed: not read
			6: "● ● · · ·", // master 3 restarted empty
			7: "○ ○ ● ● ●", // B acquired on masters 3-5, A's token left on 1-2
		}},
		{name: "crash-delayed-restart", downs: 3, steps: 9, ttl: short, over: "no violation", cells: map[int]string{
			4: "● ● ● · ·", // A acquired on masters 1-3
			5: "● ● ? · ·", // master 3 crashed
			// B failed (its keys on 4 and 5 released) and A's validity is over; A's keys on 1 and 2 outlive it by
			// the drift allowance (80ms at this TTL), so the poll may still find them.
			7: "● ● ? · ·|",
			8: "", // master 3 restarted empty, after the TTL: every key of A's has expired
		}},
		{name: "crash-restart-fenced", downs: 4, steps: 12, over: "no violation", cells: map[int]string{
			5:  "● ● ● · ·", // A acquired on masters 1-3
			6:  "● ● ● · ·", // A released and took it again, on the same masters
			7:  "● ● ? · ·", // master 3 crashed
			8:  "● ● · · ·", // master 3 restarted empty
			9:  "○ ○ ● ● ●", // B acquired on masters 3-5
			11: "○ ○ ● ● ●", // A's write changed no key
		}, newer: []int{6, 9}},
		{name: "clock-jump", downs: 5, steps: 7, over: "VIOLATION", cells: map[int]string{
			4: "● ● ● · ·", // A acquired on masters 1-3
			5: "● ● · · ·", // master 3's clock jumped past the TTL: A's key there expired
			6: "○ ○ ● ● ●", // B acquired on masters 3-5
		}},
		{name: "clock-jump-small", downs: 6, steps: 7, ttl: short, over: "no violation", cells: map[int]string{
			4: "● ● ● · ·",           // A acquired on masters 1-3
			5: "● ● ● · ·",           // master 3's clock jumped less than the allowance: A's key stays
			6: "· · ● ● ●|○ ○ ● ● ●", // B acquired on masters 3-5 once A's key on 3 expired; 1-2 expire ms later
		}},
		{name: "gc-pause", downs: 7, steps: 7, ttl: short, over: "VIOLATION", cells: map[int]string{
			4: "● ● ● ● ●", // A acquired on all five
			5: "● ● ● ● ●", // A froze: its keys stay
		}, got: map[int]string{6: "B"}, newer: []int{6}}, // A's expired, B acquired
		{name: "gc-pause-checked", downs: 8, steps: 6, ttl: short, over: "no violation", cells: map[int]string{
			4: "● ● ● ● ●", // A acquired on all five
			5: "● ● ● ● ●", // A froze: its keys stay
		}},
		{name: "gc-pause-fenced", downs: 9, steps: 8, ttl: short, over: "no violation", cells: map[int]string{
			5: "● ● ● ● ●", // A acquired on all five
			6: "● ● ● ● ●", // A froze
		}, got: map[int]string{7: "B"}, newer: []int{7}}, // A's expired, B acquired
	} {
		t.Run(c.name, func(t *testing.T) {
			parallelUnlessRace(t)
			stepThrough(t, c)
		})
	}
}

// stepThrough runs c step by step on a demo program at 100x30 and checks the screen before every step.
func stepThrough(t *testing.T, c stepCase) {
	ttl := cmp.Or(c.ttl, 20*time.Second)
	w := openDemo(t, patient(demo.Options{Clients: 1, Resources: 1, Paused: true, PresenterTTL: ttl}),
		monitor.Config{Interval: monitor.MaxInterval})
	defer w.close()
	mon := w.mon
	acquisitions := loggedAcquisitions(w.demo)
	masters := w.demo.NewClients()
	defer func() {
		for _, m := range masters {
			_ = m.Close()
		}
	}()
	var polledAt atomic.Int64 // when the monitor's latest poll finished, in Unix nanoseconds
	mon.Observe(func(_ *monitor.Snapshot, s monitor.Snapshot) { polledAt.Store(s.Time.UnixNano()) })
	m := ui.New(ui.Options{Monitor: mon, Keys: uitest.KeyMap(), Title: "demo", Now: time.Now, Demo: w.demo,
		Poll: monitor.MaxInterval})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	d := drive(t, m)
	d.exec(m.Init())
	// A first poll that a loaded machine kept past its timeout shows masters silent, and the next is 30s
	// away: until every master shows up, each look asks for another.
	d.waitFor("masters 5/5 up", func(v string) bool {
		up := strings.Contains(v, "masters 5/5 up")
		if !up {
			mon.PollNow()
		}
		return up
	})
	d.press("m")
	for range c.downs {
		d.press("j")
	}
	d.press(" ")
	holder := ""
	var pressed time.Time // when space was last pressed
	for k := 1; k < c.steps; k++ {
		// A step that waits for a lock to run out takes the TTL. Before the next, the poll the dashboard asked
		// for once the step was done must be on screen: a poll still reading during the next step would show
		// some of both.
		d.waitForWithin(3*ttl, fmt.Sprintf("step %d waiting for space, and a poll after step %d", k, k-1),
			func(v string) bool {
				return strings.Contains(v, stepHead(k, c.steps)) && strings.Contains(v, "space performs it") &&
					(k == 1 || polledAt.Load() > pressed.UnixNano())
			})
		checkScreen(t, m.View(), 100, 30)
		checkWhyShown(t, m.View(), w.demo)
		// A poll that began reading before the step may show some of the state before it: until the screen
		// shows what the step did, each look asks for another poll (the state a step leaves holds still).
		orPollAgain := func(ok bool) bool {
			if !ok {
				mon.PollNow()
			}
			return ok
		}
		if cells, ok := c.cells[k]; ok {
			d.waitFor(fmt.Sprintf("the lock's cells %s before step %d", cells, k), func(v string) bool {
				return orPollAgain(slices.Contains(strings.Split(cells, "|"), cellsOf(scenarioRow(v))))
			})
		}
		if client, ok := c.got[k]; ok {
			// The round returns at a quorum: the masters it logged as granted hold the token, and those that
			// answered later hold it or refused it (one of A's keys outlived the others). Each look compares
			// the screen with what the masters hold, once it holds still (A's keys gone) and agrees with the log.
			e, granted := acquisitions.acquired(t, client, k)
			var held string
			d.waitFor(fmt.Sprintf("the lock's cells as the masters hold them before step %d, %s's acquisition %q",
				k, client, e.Text), func(v string) bool {
				held = heldCells(masters, e.Token)
				f := strings.Fields(held)
				for _, i := range granted {
					if f[i] != "●" && f[i] != "?" { // a master too slow to answer is asked again next look
						t.Fatalf("master %d does not hold %s's token, which the log says it granted: %s", i+1,
							client, held)
					}
				}
				return orPollAgain(!strings.ContainsAny(held, "○?") && cellsOf(scenarioRow(v)) == held)
			})
		}
		if slices.Contains(c.newer, k) {
			d.waitFor(fmt.Sprintf("a holder other than %q before step %d", holder, k), func(v string) bool {
				h := holderOf(scenarioRow(v))
				return orPollAgain(h != "" && h != holder)
			})
		}
		if h := holderOf(scenarioRow(m.View())); h != "" {
			holder = h
		}
		pressed = time.Now()
		d.press(" ")
	}
	d.waitView("scenario " + c.name + " over")
	// The story's last step, which the run only logs, stays in the box until the presenter moves on: a story
	// never ends without it (issue 34).
	if v := m.View(); !strings.Contains(v, stepHead(c.steps, c.steps)) || !strings.Contains(v, "the story is over") ||
		!strings.Contains(v, "  over: ") || !strings.Contains(v, c.over) {
		t.Errorf("after the last step the box does not show step %d of %d, the story's end, or %q does not show:\n%s",
			c.steps, c.steps, c.over, v)
	}
	d.press(" ")
	if v := m.View(); strings.Contains(v, "STEP ") {
		t.Errorf("space after the story's end left the box up:\n%s", v)
	}
}

// acquisitionLog is the scenario lock's acquisitions a demo logged, by client (the latest one), and how many
// of the story's steps it logged.
type acquisitionLog struct {
	mu     sync.Mutex
	latest map[string]demo.Event
	steps  int
}

// loggedAcquisitions reads dm's events from now on into an acquisitionLog.
func loggedAcquisitions(dm *demo.Demo) *acquisitionLog {
	l := &acquisitionLog{latest: map[string]demo.Event{}}
	events := dm.Events()
	go func() {
		for e := range events {
			l.mu.Lock()
			switch {
			case e.Kind == demo.EventAcquired && e.Resource == demo.ScenarioResource:
				l.latest[e.Client] = e
			case e.Kind == demo.EventScenario:
				l.steps++
			}
			l.mu.Unlock()
		}
	}()
	return l
}

// acquired returns client's latest acquisition of the scenario lock before step k, once step k is logged
// (after the steps before it and their events), and the masters it logged as granted ("on masters 1,2,3").
func (l *acquisitionLog) acquired(t *testing.T, client string, k int) (demo.Event, []int) {
	t.Helper()
	var e demo.Event
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		l.mu.Lock()
		logged := l.steps
		e = l.latest[client]
		l.mu.Unlock()
		if logged >= k {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("step %d not logged within 10s (%d were)", k, logged)
		}
	}
	_, rest, ok := strings.Cut(e.Text, " on masters ")
	if !ok || e.Token == "" {
		t.Fatalf("no acquisition of %s's logged with its masters and token: %q", client, e.Text)
	}
	list, _, _ := strings.Cut(rest, " ")
	var granted []int
	for _, n := range strings.Split(list, ",") {
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > 5 {
			t.Fatalf("%s's acquisition names master %q: %q", client, n, e.Text)
		}
		granted = append(granted, i-1)
	}
	return e, granted
}

// heldCells returns the five cells of the scenario lock as the masters hold it now, for a holder of token: ●
// its token, ○ another, · no key. A master that did not answer reads as "?".
func heldCells(masters []*redis.Client, token string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cells := make([]string, len(masters))
	for i, m := range masters {
		v, err := m.Get(ctx, demo.ScenarioResource).Result()
		switch {
		case errors.Is(err, redis.Nil):
			cells[i] = "·"
		case err != nil:
			cells[i] = "?"
		case v == token:
			cells[i] = "●"
		default:
			cells[i] = "○"
		}
	}
	return strings.Join(cells, " ")
}

// holderOf returns the HOLDER column of a locks table row, "" for none.
func holderOf(row string) string {
	f := strings.Fields(row)
	if i := slices.Index(f, demo.ScenarioResource); i >= 0 && i+1 < len(f) && f[i+1] != "-" {
		return f[i+1]
	}
	return ""
}

// waitForWithin is waitFor with a deadline of its own, for a step that takes long by design.
func (d *driver) waitForWithin(within time.Duration, what string, cond func(view string) bool) {
	d.t.Helper()
	deadline := time.After(within)
	tick := time.NewTicker(10 * time.Millisecond) // cond may turn on something other than a message
	defer tick.Stop()
	for !cond(d.m.View()) {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-tick.C:
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, d.m.View())
		}
	}
}

// checkWhyShown checks that view, taken while a stepped run waits, shows in full why the step about to run
// matters (after the first step, which tells the story).
func checkWhyShown(t *testing.T, view string, dm *demo.Demo) {
	t.Helper()
	st, ok := dm.Stepping()
	if !ok || st.Step == 1 {
		return
	}
	lines := strings.Split(view, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "why: ") })
	var from []string // the why's line and the next ones, as one text
	for _, l := range lines[max(i, 0):min(max(i, 0)+4, len(lines))] {
		from = append(from, strings.TrimSpace(l))
	}
	if st.Why == "" || i < 0 || !strings.Contains(strings.Join(from, " "), "why: "+st.Why) {
		t.Errorf("step %d of %s: why it matters (%q) is not on screen in full:\n%s", st.Step, st.Scenario, st.Why,
			view)
	}
}

// Every story runs step by step with its step and its story on screen at 100x30 and at 80x24, and ends as
// it does at the demo's pace.
func TestEveryStoryFitsStepByStep(t *testing.T) {
	parallelUnlessRace(t)
	for _, size := range []struct{ w, h int }{{100, 30}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			parallelUnlessRace(t)
			dm := startDemo(t, patient(demo.Options{Clients: 1, Resources: 1, Paused: true,
				PresenterTTL: demo.MaxTTL}))
			d := demoDashboard(t, dm, ui.Options{})
			d.update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			for i, sc := range demo.Scenarios() {
				before := len(dm.Violations())
				d.press("m", "g")
				for range i {
					d.press("down")
				}
				d.press(" ")
				for k := 1; k < sc.Steps; k++ {
					// A fresh demo's first step waits for the monitor's first poll: on a loaded machine, with the
					// other packages' tests beside it, that once took more than 10s, and under -race with a core
					// busy once more than a minute.
					limit := time.Minute
					if k == 1 {
						limit = 3 * time.Minute
					}
					d.waitForWithin(limit, fmt.Sprintf("%s: step %d waiting", sc.Name, k), func(v string) bool {
						return strings.Contains(v, stepHead(k, sc.Steps)) && strings.Contains(v, "space performs it")
					})
					view := d.m.View()
					checkScreen(t, view, size.w, size.h)
					if !strings.Contains(view, sc.Title[:min(len(sc.Title), 20)]) {
						t.Errorf("%s step %d: the story's title is not on screen:\n%s", sc.Name, k, view)
					}
					checkWhyShown(t, view, dm)
					d.press(" ")
				}
				d.waitView(fmt.Sprintf("scenario %s over in", sc.Name))
				if vs := dm.Violations(); (len(vs) > before) == sc.Safe {
					var told []string
					for _, v := range vs[before:] {
						told = append(told, fmt.Sprintf("%s %s: %s (first %+v, second %+v)", v.Time.Format("15:04:05.000"),
							v.Kind, v.Text, v.First, v.Second))
					}
					t.Errorf("%s stepped: violated=%v, want %v: %s", sc.Name, len(vs) > before, !sc.Safe, strings.Join(told, "; "))
				}
			}
		})
	}
}

// restartWhy is why crash-restart's fifth step matters, as the golden shows it.
const restartWhy = "Back at once with no data, master 3 forgets it voted for A (the page's persistence section)."

// The story box shows the step about to be performed, why it matters, and on the first step the whole story.
func TestStepGolden(t *testing.T) {
	race, crash := demo.Scenarios()[0], demo.Scenarios()[2]
	restart := demo.StepState{Step: 5, Text: "crash-restart 5: master 3 restarts at once, empty: A's key on it is gone"}
	// The end of a stepped crash-restart: its last step, which the run only logs, with its violation.
	ended := demo.ScenarioResult{Scenario: crash, Violated: true, Expected: true}
	for i := range crash.Steps {
		text := fmt.Sprintf("crash-restart %d: a step", i+1)
		if i == crash.Steps-1 {
			text = fmt.Sprintf("crash-restart %d: over: mutual exclusion was violated (overlap)", i+1)
		}
		ended.Steps = append(ended.Steps, demo.Event{Kind: demo.EventScenario, Text: text})
	}
	for _, c := range []struct {
		name  string
		w, h  int
		sc    demo.Scenario
		step  demo.StepState
		ended bool
	}{
		{"step_100x30", 100, 30, crash, restart, false},
		{"step_80x24", 80, 24, crash, restart, false},
		{"step_120x40", 120, 40, crash, restart, false},
		{"first_step_tells_the_story_100x30", 100, 30, crash,
			demo.StepState{Step: 1, Text: "crash-restart 1: begins: " + crash.Title}, false},
		// The longest story, whole at 120 columns, and never marked as text that was escaped or cut (issue 34).
		{"first_step_tells_the_story_120x40", 120, 40, race,
			demo.StepState{Step: 1, Text: race.Name + " 1: begins: " + race.Title}, false},
		{"first_step_tells_the_story_80x24", 80, 24, race,
			demo.StepState{Step: 1, Text: race.Name + " 1: begins: " + race.Title}, false},
		// A stepped story ends with its last step on screen, until the presenter moves on (issue 34).
		{"story_over_120x40", 120, 40, crash, demo.StepState{}, true},
		{"story_over_80x24", 80, 24, crash, demo.StepState{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dm := startDemo(t, demo.Options{Paused: true}) // its own state is replaced by the constructed one
			m := newDashboard(ui.Options{Locker: idleLocker(t), Demo: dm, Title: "demo"}, c.w, c.h)
			m.Update(ui.SnapshotMsg{Snapshot: demoSnapshot()})
			st := demoState()
			var want []string
			switch {
			case c.ended:
				st.Ended = &ended
				want = []string{"the story is over: space or esc closes", "over: mutual exclusion was violated (overlap)",
					"mutual exclusion was violated, as the story says", stepHead(crash.Steps, crash.Steps)}
			default:
				step := c.step
				step.Scenario, step.Title, step.Story, step.Steps, step.Waiting = c.sc.Name, c.sc.Title,
					c.sc.Description, c.sc.Steps, true
				step.Why = restartWhy
				want = []string{"master 3 restarts at once", "why: " + restartWhy[:40]}
				if step.Step == 1 {
					step.Why = c.sc.Description
					want = []string{c.sc.Description[:40]}
				}
				want = append(want, stepHead(step.Step, c.sc.Steps))
				st.Step = &step
			}
			m.Update(st)
			view := m.View()
			checkScreen(t, view, c.w, c.h)
			for _, w := range want {
				if !strings.Contains(view, w) {
					t.Errorf("the step and why it matters (%q) are not on screen:\n%s", w, view)
				}
			}
			if strings.Contains(view, "‽") {
				t.Errorf("the program's own text is marked as escaped or cut:\n%s", view)
			}
			if c.w >= 120 && !c.ended && !strings.Contains(strings.Join(strings.Fields(view), " "),
				strings.Join(strings.Fields(c.sc.Description), " ")) && c.step.Step == 1 {
				t.Errorf("at %d columns the story is cut:\n%s", c.w, view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// The reset key brings every master back to normal: the crashed one up, the clock that jumped at real time.
func TestResetKeyBringsEveryMasterBackToNormal(t *testing.T) {
	dm := startDemo(t, demo.Options{Clients: 1, Resources: 1, Paused: true})
	d := demoDashboard(t, dm, ui.Options{})
	d.press("2", "c", "3", "J", "4", "f")
	d.until("master 2 down, master 3's clock ahead, master 4 frozen", func() bool {
		ms := dm.Masters()
		return ms[1].Down && ms[2].ClockOffset > time.Second && ms[3].Paused
	})
	d.press("N")
	d.until("every master normal", func() bool {
		for _, m := range dm.Masters() {
			if m.Down || m.Paused || m.ClockOffset > 100*time.Millisecond {
				return false
			}
		}
		return true
	})
	d.waitView("every master back to normal")
}

// After the event log was scrolled back (V, then to the top), the next scenario's steps show at once: the log
// jumps to its newest entries when a scenario starts.
func TestTheLogJumpsToTheNewestWhenAScenarioStarts(t *testing.T) {
	dm := startDemo(t, demo.Options{Clients: 1, Resources: 1, Paused: true, ScenarioPace: 20 * time.Millisecond})
	d := demoDashboard(t, dm, ui.Options{})
	d.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("m", "j", "j", "enter") // crash-restart: a violation
	d.waitView("scenario crash-restart over")
	d.press("V", "g") // the story, then the log's oldest entries
	if v := d.m.View(); !strings.Contains(v, "newer ↓") {
		t.Fatalf("the log is not scrolled back:\n%s", v)
	}
	d.press("m", "down", "down", "down", "enter") // crash-delayed-restart
	d.waitView("crash-delayed-restart 2: A reaches")
	if v := d.m.View(); strings.Contains(v, "newer ↓") {
		t.Errorf("the log stayed scrolled back when the scenario started:\n%s", v)
	}
	d.waitView("scenario crash-delayed-restart over")
}

// At 100 columns the demo bar keeps what a presenter points at: the workload, the violations and the stale
// writes refused; the masters' addresses, which the masters panel shows, go first.
func TestDemoBarAt100ColumnsGolden(t *testing.T) {
	dm := startDemo(t, demo.Options{Paused: true})
	m := newDashboard(ui.Options{Locker: idleLocker(t), Demo: dm, Title: "demo"}, 100, 30)
	m.Update(ui.SnapshotMsg{Snapshot: demoSnapshot()})
	st := demoState()
	st.Refused = 1
	m.Update(st)
	view := m.View()
	checkScreen(t, view, 100, 30)
	bar := strings.Split(view, "\n")[1]
	for _, want := range []string{"workload live 1×", "1 violation", "1 stale write refused by the store"} {
		if !strings.Contains(bar, want) {
			t.Errorf("the demo bar lacks %q at 100 columns: %q", want, bar)
		}
	}
	golden.RequireEqual(t, []byte(view))
}

// In the scenario menu < runs the story in slow motion; another story does not start while it runs.
func TestScenarioMenuRunsInSlowMotion(t *testing.T) {
	dm := startDemo(t, demo.Options{Clients: 1, Resources: 1, Paused: true})
	d := demoDashboard(t, dm, ui.Options{})
	d.press("m", "j", "j", "<") // crash-restart
	d.waitView("scenario crash-restart runs in slow motion")
	d.waitView("scenario crash-restart (slow)") // on the demo line
	d.press("m", " ")
	d.waitView("scenario crash-restart is still running")
	if _, stepping := dm.Stepping(); stepping {
		t.Error("space in the menu started a stepped run while the slow one runs")
	}
}
