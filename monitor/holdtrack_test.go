package monitor

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/holds"
)

// sec is t0 plus n seconds: the time of a story's poll n.
func sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// historyOf returns the intervals of "r" kept by the story's last snapshot, over its whole window.
func historyOf(t *testing.T, snaps []Snapshot) []Interval {
	t.Helper()
	s := snaps[len(snaps)-1]
	for _, h := range s.holdLogs {
		if h.Resource == "r" {
			return h.Intervals(s.Time.Add(-s.Window()))
		}
	}
	return nil
}

// brief is an interval as the tests state it: token, start and its slack, end and its slack, how it ended.
type brief struct {
	tok        string
	start      int // poll
	startSlack int // polls
	end        int // poll; -1 open
	endSlack   int
	ended      EndKind
}

// checkIntervals compares got with want, field by field.
func checkIntervals(t *testing.T, got []Interval, want []brief) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("intervals = %+v, want %d of them: %+v", got, len(want), want)
	}
	for k, w := range want {
		g := got[k]
		wantEnd := time.Time{}
		if w.end >= 0 {
			wantEnd = sec(w.end)
		}
		if g.Token != w.tok || !g.Start.Equal(sec(w.start)) || g.StartSlack != time.Duration(w.startSlack)*time.Second ||
			!g.End.Equal(wantEnd) || g.EndSlack != time.Duration(w.endSlack)*time.Second || g.Ended != w.ended {
			t.Errorf("interval %d = %s from %v (-%v) to %v (-%v) %s; want %+v", k, g.Token, g.Start.Sub(t0), g.StartSlack,
				g.End.Sub(t0), g.EndSlack, g.Ended, w)
		}
	}
}

// TestHoldLogRecordsEachTenureWithItsBracket: every holder change a poll decides closes one interval and opens
// the next, each time bracketed back to the poll before; how each ended is the lock's event.
func TestHoldLogRecordsEachTenureWithItsBracket(t *testing.T) {
	none := poll{cells: make([]cell, 5)}
	snaps := story(t, Config{}, poll{cells: cells("A", 5)}, poll{cells: cells("A", 5)}, poll{cells: cells("B", 5)},
		poll{cells: cells("B", 4)}, none, none, poll{cells: cells("C", 3)})
	got := historyOf(t, snaps)
	checkIntervals(t, got, []brief{
		{"A", 0, 0, 2, 1, EndTakenOver},
		{"B", 2, 1, 4, 1, EndReleased},
		{"C", 6, 1, -1, 0, EndOpen},
	})
	if got[0].StartKnown || !got[1].StartKnown {
		t.Errorf("StartKnown: A %v, B %v; want false for a holder already there at the first poll, true after", got[0].StartKnown, got[1].StartKnown)
	}
	if got[1].Masters != 0b11111 || got[2].Masters != 0b00111 {
		t.Errorf("masters: B %05b, C %05b; want 11111 (seen on all five at some poll), 00111", got[1].Masters, got[2].Masters)
	}
	if l := lockOf(t, snaps[6], "r"); l.History == nil || len(l.History.Intervals(t0)) != 3 {
		t.Errorf("the shown lock's History does not carry its intervals: %+v", l.History)
	}
}

// TestHoldLogPollsThatDoNotDecideWidenTheBracket: a poll that cannot tell who holds the lock (too few masters
// answered, or an alarm awaiting confirmation) changes nothing, so the change is bracketed back to the last
// poll that decided.
func TestHoldLogPollsThatDoNotDecideWidenTheBracket(t *testing.T) {
	held := poll{cells: cells("A", 5)}
	unknown := poll{cells: cells("A", 5), silent: []int{0, 1, 2}}
	straddled := poll{cells: []cell{{}, {}, {}, at9("A"), at9("A")}}
	none := poll{cells: make([]cell, 5)}
	tests := []struct {
		name  string
		polls []poll
		want  []brief
	}{
		{"unknown, then taken over", []poll{held, held, unknown, poll{cells: cells("B", 5)}},
			[]brief{{"A", 0, 0, 3, 2, EndTakenOver}, {"B", 3, 2, -1, 0, EndOpen}}},
		{"a release in flight, then gone", []poll{held, held, straddled, none},
			[]brief{{"A", 0, 0, 3, 2, EndReleased}}},
		{"a release in flight, then a new holder", []poll{held, held, straddled, poll{cells: cells("B", 5)}},
			[]brief{{"A", 0, 0, 3, 2, EndTakenOver}, {"B", 3, 2, -1, 0, EndOpen}}},
		{"a real loss, confirmed", []poll{held, held, straddled, straddled},
			[]brief{{"A", 0, 0, 3, 2, EndQuorumLost}}},
		{"expired at its TTL", []poll{held, {cells: []cell{{"A", time.Second, 0}, {"A", time.Second, 0}, {"A", time.Second, 0}, {}, {}}}, none},
			[]brief{{"A", 0, 0, 2, 1, EndExpired}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkIntervals(t, historyOf(t, story(t, Config{}, tt.polls...)), tt.want)
		})
	}
}

// handovers is a story of n polls, each with a new holder on all five masters.
func handovers(n int) []poll {
	polls := make([]poll, n)
	for i := range polls {
		polls[i] = poll{cells: cells(fmt.Sprintf("T%03d", i), 5)}
	}
	return polls
}

// TestHoldLogIsBoundedByCountAndWindow: a lock that changes hands at every poll keeps at most MaxIntervals
// intervals, and none that ended before the window; a lock gone for longer than the window leaves no log.
func TestHoldLogIsBoundedByCountAndWindow(t *testing.T) {
	t.Parallel()
	snaps := story(t, Config{MaxIntervals: 32}, handovers(200)...)
	h := snaps[len(snaps)-1].holdLogs[0]
	if n := closedCount(h); n > 32 || n <= 32-holds.ChunkLen {
		t.Errorf("kept %d closed intervals, want at most MaxIntervals (32), more than %d", n, 32-holds.ChunkLen)
	}
	if iv := h.Intervals(t0)[0]; iv.End.Before(sec(199 - 32)) {
		t.Errorf("the oldest interval kept ended at %v: not among the last 32", iv.End.Sub(t0))
	}
	snaps = story(t, Config{History: 20 * time.Second}, handovers(100)...)
	last := snaps[len(snaps)-1]
	h = last.holdLogs[0]
	if n := closedCount(h); n > 20+holds.ChunkLen {
		t.Errorf("kept %d closed intervals with a 20s window at one a second, want at most %d", n, 20+holds.ChunkLen)
	}
	if n := len(h.Intervals(last.Time.Add(-20 * time.Second))); n != 21 {
		t.Errorf("%d intervals in the window, want 20 closed and the open one", n)
	}
	polls := append(handovers(3), make([]poll, 30)...)
	for i := 3; i < len(polls); i++ {
		polls[i] = poll{cells: make([]cell, 5)}
	}
	snaps = story(t, Config{History: 20 * time.Second}, polls...)
	if logs := snaps[len(snaps)-1].holdLogs; len(logs) != 0 {
		t.Errorf("a lock gone 30s with a 20s window still has a log: %+v", logs[0])
	}
	if logs := snaps[20].holdLogs; len(logs) != 1 {
		t.Errorf("a lock gone 18s with a 20s window has no log")
	}
}

// TestHoldLogOfAnEarlierSnapshotNeverChanges: snapshots share hold logs, so a later poll must leave an earlier
// snapshot's intervals as they were.
func TestHoldLogOfAnEarlierSnapshotNeverChanges(t *testing.T) {
	t.Parallel()
	snaps := story(t, Config{MaxIntervals: 16}, handovers(60)...)
	for i := 10; i < 60; i += 7 {
		got := snaps[i].holdLogs[0].Intervals(t0)
		again := story(t, Config{MaxIntervals: 16}, handovers(i+1)...)
		if want := again[i].holdLogs[0].Intervals(t0); !reflect.DeepEqual(got, want) {
			t.Fatalf("snapshot %d's intervals changed after later polls:\n got %+v\nwant %+v", i, got, want)
		}
	}
	// Two snapshots built on the same one do not see each other's intervals.
	base := story(t, Config{}, handovers(5)...)
	prev := &base[4]
	a := Aggregate(prev, fixture(sec(5), addrs5, map[string][]cell{"r": cells("X", 5)}), nil, sec(5), Config{})
	b := Aggregate(prev, fixture(sec(5), addrs5, map[string][]cell{"r": cells("Y", 5)}), nil, sec(5), Config{})
	ia, ib := a.holdLogs[0].Intervals(t0), b.holdLogs[0].Intervals(t0)
	if ia[len(ia)-1].Token != "X" || ib[len(ib)-1].Token != "Y" || ia[len(ia)-2].Ended != EndTakenOver || len(ia) != len(ib) {
		t.Errorf("forked snapshots share a change: %+v / %+v", ia, ib)
	}
}

// TestHoldLogNotesWhenAKeyThatOutlivedItsQuorumIsGone: the trouble after a lost quorum lasts until the lock is
// seen on no master; the interval keeps when.
func TestHoldLogNotesWhenAKeyThatOutlivedItsQuorumIsGone(t *testing.T) {
	held := poll{cells: cells("A", 5)}
	straddled := poll{cells: []cell{{}, {}, {}, at9("A"), at9("A")}}
	none := poll{cells: make([]cell, 5)}
	snaps := story(t, Config{}, held, held, straddled, straddled, straddled, none, none)
	got := historyOf(t, snaps)
	checkIntervals(t, got, []brief{{"A", 0, 0, 3, 2, EndQuorumLost}})
	if !got[0].Gone.Equal(sec(5)) {
		t.Errorf("Gone = %v, want 5s (the first poll without the key)", got[0].Gone.Sub(t0))
	}
	if gone := historyOf(t, snaps[:5]); !gone[0].Gone.IsZero() {
		t.Errorf("Gone set while the key lives on: %v", gone[0].Gone.Sub(t0))
	}
}

// closedCount is how many closed intervals h keeps.
func closedCount(h *HoldLog) int {
	n := 0
	for _, iv := range h.Intervals(time.Unix(0, 0)) {
		if iv.Ended != EndOpen {
			n++
		}
	}
	return n
}
