package monitor

import (
	"slices"
	"strings"
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

// TestAppearanceCountsItsMastersInWords: a lock first seen on one master appeared "on 1 master", and one
// first seen split with its most common token on one master says "1 master" too (issue 34 saw "1 masters").
func TestAppearanceCountsItsMastersInWords(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		want  string
	}{
		{"partial on one master", []cell{at9("A"), {}, {}, {}, {}}, "appeared on 1 master"},
		{"partial on two masters", []cell{at9("A"), at9("A"), {}, {}, {}}, "appeared on 2 masters"},
		{"split, each token on one master", []cell{at9("A"), at9("B"), at9("C"), at9("D"), at9("E")},
			"appeared split, 1 master with the most common token"},
		{"split, two tokens on two masters", []cell{at9("A"), at9("A"), at9("B"), at9("B"), {}},
			"appeared split, 2 masters with the most common token"},
	}
	for _, tt := range tests {
		snaps := story(t, Config{}, poll{}, poll{cells: tt.cells})
		var texts []string
		for _, e := range snaps[1].Events {
			if e.Kind == EventLockAppeared {
				texts = append(texts, e.Text)
			}
		}
		if len(texts) != 1 || !strings.HasSuffix(texts[0], tt.want) {
			t.Errorf("%s: appearance events %q, want one ending %q", tt.name, texts, tt.want)
		}
	}
}
