package monitor

import (
	"slices"
	"testing"
)

// TestConfirmStepsAnAlarmTowardsBeingRaised checks the confirmation table: an alarm is raised only by the
// second poll in a row that shows it the same way, and a confirmed alarm stands without a new event.
func TestConfirmStepsAnAlarmTowardsBeingRaised(t *testing.T) {
	tests := []struct {
		name string
		prev lockHistory
		same bool
		want alarmStep
	}{
		{"first shown: pending", lockHistory{}, true, alarmPends},
		{"pending, shown the same way: raised", lockHistory{pending: alarmSplit}, true, alarmRaised},
		{"pending, shown another way: pending again", lockHistory{pending: alarmSplit}, false, alarmPends},
		{"another alarm pending: this one is new", lockHistory{pending: alarmLost}, true, alarmPends},
		{"standing, shown the same way: stands", lockHistory{standing: alarmSplit}, true, alarmStands},
		{"standing, shown another way: still stands", lockHistory{standing: alarmSplit}, false, alarmStands},
		{"another alarm standing: this one is new", lockHistory{standing: alarmQuorumLost}, true, alarmPends},
	}
	for _, tt := range tests {
		if got := confirm(tt.prev, alarmSplit, tt.same); got != tt.want {
			t.Errorf("%s: confirm = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestAggregateASplitIsConfirmedOnlyByTheSameTokens: contention shows a new pair of tokens at each attempt,
// and only a split of the same tokens two polls in a row is one.
func TestAggregateASplitIsConfirmedOnlyByTheSameTokens(t *testing.T) {
	held := poll{cells: cells("A", 5)}
	ab := poll{cells: []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}}}
	cd := poll{cells: []cell{at9("C"), at9("C"), at9("D"), at9("D"), {}}}
	snaps := story(t, Config{}, held, ab, cd)
	if l := lockOf(t, snaps[2], "r"); l.State != StateUnconfirmed || slices.Contains(raised(snaps[2]), EventLockSplit) {
		t.Errorf("a split into new tokens: state %s, events %v; want it unconfirmed, without %s", l.State, raised(snaps[2]), EventLockSplit)
	}
	snaps = story(t, Config{}, held, ab, ab)
	if l := lockOf(t, snaps[2], "r"); l.State != StateSplit || !slices.Contains(raised(snaps[2]), EventLockSplit) {
		t.Errorf("a split into the same tokens: state %s, events %v; want it split, with %s", l.State, raised(snaps[2]), EventLockSplit)
	}
}

// TestAggregateANewLockStartsInItsAlarm checks the appearances table: a lock first seen split is split at
// once (there is no earlier poll to confirm it against), and its next poll keeps it so without a new event.
func TestAggregateANewLockStartsInItsAlarm(t *testing.T) {
	ab := poll{cells: []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}}}
	snaps := story(t, Config{}, poll{}, ab, ab)
	if l := lockOf(t, snaps[1], "r"); l.State != StateSplit || !slices.Equal(raised(snaps[1]), []EventKind{EventLockAppeared}) {
		t.Errorf("first seen split: state %s, events %v; want split, %s", l.State, raised(snaps[1]), EventLockAppeared)
	}
	if l := lockOf(t, snaps[2], "r"); l.State != StateSplit || len(raised(snaps[2])) != 0 {
		t.Errorf("split again: state %s, events %v; want split and no event", l.State, raised(snaps[2]))
	}
}
