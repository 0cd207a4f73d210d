package panels

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// heldLock is resource held by token on all n masters with pttl left.
func heldLock(resource, token string, n int, pttl time.Duration) monitor.LockView {
	lv := monitor.LockView{Resource: resource, State: monitor.StateHeld, Holder: token, Count: n}
	lv.SetValidity(t0, pttl-10*time.Millisecond)
	for range n {
		lv.Masters = append(lv.Masters, monitor.MasterLock{State: monitor.CellSeen, Token: token, PTTL: pttl, ReadAt: t0})
	}
	return lv
}

// threeMasters is a snapshot skeleton of three masters, all up.
func threeMasters(at time.Time, locks ...monitor.LockView) monitor.Snapshot {
	ms := make([]monitor.MasterStatus, 3)
	for i := range ms {
		ms[i] = monitor.MasterStatus{Addr: fmt.Sprintf("127.0.0.1:%d", 7000+i), Up: true}
	}
	return monitor.Snapshot{Time: at, Quorum: 2, UpCount: 3, Servers: 3, Masters: ms, Locks: monitortest.Views(locks)}
}

func TestIngestSanitizesEverythingUntrusted(t *testing.T) {
	s := threeMasters(t0, heldLock("evil\x1b]0;pwned\x07", "tok\u202een", 3, time.Second))
	s.Masters[1] = monitor.MasterStatus{Addr: "10.0.0.2:6379\n", Err: "ERR \x1b[2J", Role: "mas\x00ter",
		Warnings: []string{"w\x1b"}}
	s.Warnings = []monitor.Warning{{Kind: "x", Text: "bad\rtext"}}
	s.Events = []monitor.Event{{Time: t0, Kind: monitor.EventLockAppeared, Resource: "evil\x1b", Text: "\x1b[H"}}
	d, entries := kit.Ingest(s, nil)
	texts := []string{d.Locks[0].Name, d.Locks[0].Holder, d.Masters[1].Addr, d.Masters[1].Err, d.Masters[1].Role,
		d.Masters[1].Warnings, d.Warnings[0].Text}
	texts = append(texts, d.Locks[0].Tokens...)
	for _, e := range entries {
		texts = append(texts, e.Text)
	}
	for _, text := range texts {
		if strings.ContainsAny(text, "\x1b\x00\r\n\a\u202e") {
			t.Errorf("unsanitized text reached the model: %q", text)
		}
	}
	if d.Locks[0].Lv.Resource != "evil\x1b]0;pwned\x07" {
		t.Errorf("the raw resource was not kept for commands: %q", d.Locks[0].Lv.Resource)
	}
}

func TestIngestCarriesBarScaleWhileTheHolderStays(t *testing.T) {
	first, _ := kit.Ingest(threeMasters(t0, heldLock("a", "T1", 3, 10*time.Second)), nil)
	second, _ := kit.Ingest(threeMasters(t0.Add(4*time.Second), heldLock("a", "T1", 3, 6*time.Second)), first)
	if got := second.Locks[0].Ref; got != 10*time.Second {
		t.Errorf("bar scale after 4s of the same holder = %v, want the 10s first seen", got)
	}
	third, _ := kit.Ingest(threeMasters(t0.Add(5*time.Second), heldLock("a", "T2", 3, 3*time.Second)), second)
	if got := third.Locks[0].Ref; got != 3*time.Second {
		t.Errorf("bar scale after a holder change = %v, want the new holder's 3s", got)
	}
}

func TestIngestLogsOnlyNewEventsAndWarnings(t *testing.T) {
	ev := func(sec int, text string) monitor.Event {
		return monitor.Event{Time: t0.Add(time.Duration(sec) * time.Second), Kind: monitor.EventMasterDown, Master: "m",
			Text: text}
	}
	warn := monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnQuorumDown, Text: "no quorum"}
	s1 := threeMasters(t0)
	s1.Events = []monitor.Event{ev(1, "one"), ev(2, "two")}
	d1, e1 := kit.Ingest(s1, nil)
	if len(e1) != 3 || !strings.HasPrefix(e1[0].Text, "first poll: ") {
		t.Fatalf("first snapshot logged %+v, want its baseline line and its 2 events", e1)
	}
	s2 := threeMasters(t0.Add(time.Second))
	s2.Events = []monitor.Event{ev(1, "one"), ev(2, "two"), ev(3, "three")}
	s2.Warnings = []monitor.Warning{warn}
	d2, e2 := kit.Ingest(s2, d1)
	if len(e2) != 2 || !strings.Contains(e2[0].Text, "three") || e2[1].Level != monitor.SeverityError {
		t.Fatalf("second snapshot logged %+v, want event three and the new warning", e2)
	}
	s3 := threeMasters(t0.Add(2 * time.Second))
	s3.Events = s2.Events[1:] // the oldest fell off the monitor's window
	s3.Warnings = []monitor.Warning{warn}
	if _, e3 := kit.Ingest(s3, d2); len(e3) != 0 {
		t.Fatalf("third snapshot logged %+v, want nothing new", e3)
	}
}

func TestIngestHealth(t *testing.T) {
	ok := threeMasters(t0)
	degraded := threeMasters(t0)
	degraded.UpCount = 2
	degraded.Masters[2].Up = false
	noQuorum := threeMasters(t0)
	noQuorum.UpCount = 1
	warned := threeMasters(t0)
	warned.Warnings = []monitor.Warning{{Kind: monitor.WarnMasterCount, Text: "even"}}
	erred := threeMasters(t0)
	erred.Warnings = []monitor.Warning{{Severity: monitor.SeverityError, Kind: monitor.WarnRestart, Text: "restarted"}}
	informed := threeMasters(t0)
	informed.Warnings = []monitor.Warning{{Severity: monitor.SeverityInfo, Kind: monitor.WarnNotLockShaped, Text: "left out"}}
	for _, tc := range []struct {
		name string
		s    monitor.Snapshot
		want monitor.Health
	}{{"all up", ok, monitor.HealthOK}, {"one down", degraded, monitor.HealthDegraded}, {"below quorum", noQuorum, monitor.HealthNoQuorum},
		{"a warning with every master up: the header is no milder than the banner", warned, monitor.HealthDegraded},
		{"an error with every master up", erred, monitor.HealthUnsafe}, {"information only", informed, monitor.HealthOK}} {
		if d, _ := kit.Ingest(tc.s, nil); d.Health != tc.want {
			t.Errorf("%s: health %v, want %v", tc.name, d.Health, tc.want)
		}
	}
}

// bigDashboard is a shared context holding n held locks.
func bigDashboard(n int) *kit.Shared {
	locks := make([]monitor.LockView, n)
	for i := range locks {
		locks[i] = heldLock(fmt.Sprintf("res:%06d", i), fmt.Sprintf("tok%06d", i), 3,
			time.Duration(n-i)*time.Millisecond+time.Second)
		locks[i].Changes = i % 7
	}
	d, _ := kit.Ingest(threeMasters(t0, locks...), nil)
	return &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &kit.KeyMap{}, Now: func() time.Time { return t0 }, Data: d}
}

func TestLocksPanelRendersOnlyTheVisibleRows(t *testing.T) {
	sh := bigDashboard(100000)
	p := NewLocksPanel(sh)
	p.SetSize(100, 20)
	p.rebuild()
	p.cursor = 50000
	p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.order))
	p.Update(kit.StateMsg{Mode: kit.Mode{Focus: kit.FocusLocks}})
	view := p.View()
	lines := strings.Split(view, "\n")
	if len(lines) != 20 {
		t.Fatalf("the panel is %d lines high, want 20", len(lines))
	}
	if !strings.Contains(view, "▸ res:050000") {
		t.Errorf("the cursor row is not on screen:\n%s", view)
	}
	if strings.Contains(view, "res:049982") || strings.Contains(view, "res:050018") {
		t.Errorf("rows outside the window were rendered:\n%s", view)
	}
}

func TestLocksPanelFilterAndSortFollowTheSelection(t *testing.T) {
	sh := bigDashboard(1000)
	p := NewLocksPanel(sh)
	p.SetSize(100, 20)
	p.rebuild()
	p.cursor = 10
	p.remember()

	p.setFilter("RES:0001") // case-insensitive
	if len(p.order) != 100 {
		t.Fatalf("filter res:0001 kept %d rows, want 100", len(p.order))
	}
	p.setFilter("")
	if row := p.SelectedRow(); row == nil || row.Lv.Resource != "res:000010" {
		t.Fatalf("after clearing the filter the cursor is on %v, want res:000010", row)
	}

	p.cycleSort() // validity: soonest to expire first
	if first := sh.Data.Locks[p.order[0]].Lv.Resource; first != "res:000999" {
		t.Errorf("sorted by validity, first row is %s, want res:000999 (shortest validity)", first)
	}
	if row := p.SelectedRow(); row.Lv.Resource != "res:000010" {
		t.Errorf("after sorting the cursor moved to %s, want it to stay on res:000010", row.Lv.Resource)
	}
	p.cycleSort() // state: all held, so resource order
	p.cycleSort() // changes: most first
	if first := sh.Data.Locks[p.order[0]]; first.Lv.Changes != 6 {
		t.Errorf("sorted by changes, first row has %d changes, want 6", first.Lv.Changes)
	}
	p.cycleSort()
	if p.Sort != SortResource {
		t.Errorf("sort did not cycle back to resource: %v", sortNames[p.Sort])
	}
}

// TestIngestKeepsTheRowsOfLocksAPollTookAsTheyWere: after a poll with changes, a lock whose view it took as it
// was keeps its row (the same row), one whose view is new but whose cells are the same array keeps its row's
// tokens in a row about the new view, and the changed lock's row is made again; the counts are of the new
// snapshot.
func TestIngestKeepsTheRowsOfLocksAPollTookAsTheyWere(t *testing.T) {
	s1 := threeMasters(t0, heldLock("a", "T1", 3, 10*time.Second), heldLock("b", "T2", 3, 10*time.Second),
		heldLock("c", "T3", 3, 10*time.Second))
	first, _ := kit.Ingest(s1, nil)
	s2 := s1
	s2.Time = t0.Add(time.Second)
	c := *s1.Locks[2] // c's view copied (its waiters counted): its cells are the same
	c.Waiters, c.WaitersKnown = 2, true
	b := heldLock("b", "T4", 2, 10*time.Second) // b changed
	b.State = monitor.StatePartial
	s2.Locks = []*monitor.LockView{s1.Locks[0], &b, &c}
	second, _ := kit.Ingest(s2, first)
	for i, res := range []string{"a", "b", "c"} {
		row := second.Locks[i]
		if row.Lv != second.Snap.Locks[i] {
			t.Errorf("%s: the row is not about the new snapshot's view", res)
		}
		if same := row == first.Locks[i]; same != (res == "a") {
			t.Errorf("%s: the same row: %v, want %v", res, same, res == "a")
		}
		kept := &row.Tokens[0] == &first.Locks[i].Tokens[0]
		if kept != (res != "b") {
			t.Errorf("%s: row's tokens kept: %v, want %v", res, kept, res != "b")
		}
	}
	if got := second.Locks[1].Holder; got != "T4" {
		t.Errorf("the changed lock's row shows %q, want T4", got)
	}
	if second.Counts.Held != 2 || second.Counts.Partial != 1 {
		t.Errorf("counts: %d held, %d partial; want 2 and 1", second.Counts.Held, second.Counts.Partial)
	}
}

// TestAHeldLockWhoseValidityRanOutSaysSo: a lock a poll read held, whose validity runs out before the next
// poll, is not shown held: its row says its validity ran out.
func TestAHeldLockWhoseValidityRanOutSaysSo(t *testing.T) {
	d, _ := kit.Ingest(threeMasters(t0, heldLock("long", "T1", 3, 10*time.Second), heldLock("short", "T2", 3, 200*time.Millisecond)), nil)
	now := t0
	sh := &kit.Shared{St: kit.NewStyles(kit.DefaultTheme()), Keys: &kit.KeyMap{}, Now: func() time.Time { return now }, Data: d}
	p := NewLocksPanel(sh)
	p.SetSize(100, 10)
	p.rebuild()
	rowOf := func(res string) string {
		for _, line := range strings.Split(p.View(), "\n") {
			if strings.Contains(line, res+" ") {
				return line
			}
		}
		t.Fatalf("no row of %s:\n%s", res, p.View())
		return ""
	}
	if row := rowOf("short"); !strings.Contains(row, "held") {
		t.Errorf("read held, validity left: %q, want held", row)
	}
	now = t0.Add(time.Second)
	if row := rowOf("short"); strings.Contains(row, "held") || !strings.Contains(row, "run out") {
		t.Errorf("validity run out: %q, want run out, not held", row)
	}
	if row := rowOf("long"); !strings.Contains(row, "held") {
		t.Errorf("the other lock: %q, want held", row)
	}
}

// TestNamesOrderFollowsLocksThatComeAndGo: from poll to poll, as locks appear and vanish, the dashboard's order
// by name is the one a full sort gives (numbers by value), kept from the poll before and merged with the new.
func TestNamesOrderFollowsLocksThatComeAndGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 5))
	var prev *kit.Dashboard
	for step := range 40 {
		set := map[string]bool{}
		for range rng.IntN(60) {
			set[fmt.Sprintf("orders:lock:%d", rng.IntN(5000))] = true
		}
		if step%10 == 9 && prev != nil { // now and then, a poll with the same resources
			set = map[string]bool{}
			for _, r := range prev.Locks {
				set[r.Lv.Resource] = true
			}
		}
		names := slices.Sorted(maps.Keys(set)) // a snapshot's order: by bytes
		views := make([]monitor.LockView, len(names))
		for i, n := range names {
			views[i] = heldLock(n, "tok", 3, 5*time.Second)
		}
		d, _ := kit.Ingest(monitor.Snapshot{Time: t0, Masters: make([]monitor.MasterStatus, 3), Locks: monitortest.Views(views)}, prev)
		got := make([]string, len(d.ByName))
		for i, j := range d.ByName {
			got[i] = d.Locks[j].Lv.Resource
		}
		want := slices.SortedFunc(slices.Values(names), vocab.CompareNames)
		if !slices.Equal(got, want) {
			t.Fatalf("poll %d: the order by name is\n%v\nwant\n%v", step, got, want)
		}
		prev = d
	}
}
