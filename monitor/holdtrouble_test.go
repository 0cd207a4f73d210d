package monitor

import (
	"testing"
	"time"
)

// troublesOf returns the trouble spans of "r" kept by the story's last snapshot, over its whole window.
func troublesOf(t *testing.T, snaps []Snapshot) []Trouble {
	t.Helper()
	s := snaps[len(snaps)-1]
	for _, h := range s.holdLogs {
		if h.Resource == "r" {
			return h.Troubles(s.Time.Add(-s.Window()))
		}
	}
	return nil
}

// checkTroubles compares got with want, given as pairs of polls (end -1: lasts).
func checkTroubles(t *testing.T, got []Trouble, want [][2]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("troubles = %+v, want %v", got, want)
	}
	for k, w := range want {
		wantEnd := time.Time{}
		if w[1] >= 0 {
			wantEnd = sec(w[1])
		}
		if !got[k].Start.Equal(sec(w[0])) || !got[k].End.Equal(wantEnd) {
			t.Errorf("trouble %d = %v to %v, want polls %v", k, got[k].Start.Sub(t0), got[k].End.Sub(t0), w)
		}
	}
}

// TestHoldLogRecordsSplitAndQuorumLossSpans: the polls that decide a lock split or without quorum open a span
// that the next poll deciding otherwise (or not showing the lock) closes; a poll awaiting confirmation or
// unable to decide opens and closes nothing, and a split on a lock never held still leaves a log.
func TestHoldLogRecordsSplitAndQuorumLossSpans(t *testing.T) {
	held, heldB := poll{cells: cells("A", 5)}, poll{cells: cells("B", 5)}
	split := poll{cells: []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}}}
	straddled := poll{cells: []cell{{}, {}, {}, at9("A"), at9("A")}}
	unknown := poll{cells: cells("A", 5), silent: []int{0, 1, 2}}
	none := poll{cells: make([]cell, 5)}
	tests := []struct {
		name  string
		polls []poll
		want  [][2]int
	}{
		{"a split, confirmed, then a holder", []poll{held, split, split, split, heldB}, [][2]int{{2, 4}}},
		{"a split seen once is not confirmed", []poll{held, split, heldB}, nil},
		{"a split that lasts, on a lock first seen split", []poll{none, split, split}, [][2]int{{1, -1}}},
		{"a lost quorum until the key goes", []poll{held, held, straddled, straddled, straddled, none}, [][2]int{{3, 5}}},
		{"an unknown poll does not end it", []poll{held, split, split, unknown, split, heldB}, [][2]int{{2, 5}}},
		{"two splits", []poll{held, split, split, held, split, split, heldB}, [][2]int{{2, 3}, {5, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkTroubles(t, troublesOf(t, story(t, Config{}, tt.polls...)), tt.want)
		})
	}
}

// TestHoldLogTroublesAreBoundedByCountAndWindow: a lock split every other poll keeps at most MaxIntervals
// spans, and a log with nothing but spans that ended before the window is dropped.
func TestHoldLogTroublesAreBoundedByCountAndWindow(t *testing.T) {
	t.Parallel()
	split := poll{cells: []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}}}
	none := poll{cells: make([]cell, 5)}
	var polls []poll
	for range 100 {
		polls = append(polls, split, split, none)
	}
	snaps := story(t, Config{MaxIntervals: 16}, polls...)
	if n := len(snaps[len(snaps)-1].holdLogs[0].Troubles(time.Unix(0, 0))); n > 16 {
		t.Errorf("kept %d trouble spans, want at most MaxIntervals (16)", n)
	}
	polls = append([]poll{none, split, split}, make([]poll, 30)...)
	for i := 3; i < len(polls); i++ {
		polls[i] = none
	}
	snaps = story(t, Config{History: 20 * time.Second}, polls...)
	if logs := snaps[len(snaps)-1].holdLogs; len(logs) != 0 {
		t.Errorf("a split that ended 30s ago with a 20s window still has a log: %+v", logs[0])
	}
	if got := troublesOf(t, snaps[:15]); len(got) != 1 {
		t.Errorf("a split that ended 12s ago with a 20s window: troubles %+v, want one", got)
	}
}
