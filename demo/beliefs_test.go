package demo

import (
	"testing"
	"time"
)

// t0 is an arbitrary origin for the detector's timelines.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// step is one call on the detector, at a time in ms from t0.
type step struct {
	op      string // begin, extend, write, stop, pause
	client  string // also the token
	ms      int
	untilMS int // begin, extend: end of validity
}

func (s step) apply(d *detector) []Violation {
	switch s.op {
	case "begin":
		return d.begin(Belief{Client: s.client, Resource: "r", Token: s.client, Since: at(s.ms), Until: at(s.untilMS)})
	case "extend":
		return d.extend(s.client, at(s.untilMS))
	case "write":
		return d.wrote(s.client, at(s.ms))
	case "stop":
		d.stop(s.client, at(s.ms))
	case "pause":
		d.setPaused(s.client, true)
	}
	return nil
}

func TestDetectorFindsOverlapsAndStaleWrites(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []ViolationKind // in the order raised
		pair  [2]string       // First and Second client of the first violation
	}{
		{
			name: "one holder after another, each within its validity",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "write", client: "A", ms: 500},
				{op: "stop", client: "A", ms: 600},
				{op: "begin", client: "B", ms: 610, untilMS: 1590},
				{op: "write", client: "B", ms: 700},
			},
		},
		{
			name: "second holder while the first is still valid (crash or clock jump)",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "begin", client: "B", ms: 400, untilMS: 1380},
			},
			want: []ViolationKind{ViolationOverlap},
			pair: [2]string{"A", "B"},
		},
		{
			name: "second holder after the first's validity ran out, first never noticed",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "begin", client: "B", ms: 1000, untilMS: 1980},
				{op: "stop", client: "A", ms: 1200},
			},
		},
		{
			name: "frozen holder writes after another acquired (GC pause)",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "pause", client: "A"},
				{op: "begin", client: "B", ms: 1010, untilMS: 1990},
				{op: "write", client: "B", ms: 1050},
				{op: "write", client: "A", ms: 1500},
			},
			want: []ViolationKind{ViolationStaleWrite},
			pair: [2]string{"A", "B"},
		},
		{
			name: "late write after the other already released still overlaps its holding",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "begin", client: "B", ms: 1010, untilMS: 1990},
				{op: "stop", client: "B", ms: 1100},
				{op: "write", client: "A", ms: 1500},
			},
			want: []ViolationKind{ViolationStaleWrite},
			pair: [2]string{"A", "B"},
		},
		{
			name: "late write when nobody else took the lock",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "write", client: "A", ms: 1500},
			},
		},
		{
			name: "frozen holder that checks and does not write",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "pause", client: "A"},
				{op: "begin", client: "B", ms: 1010, untilMS: 1990},
				{op: "stop", client: "A", ms: 1500},
			},
		},
		{
			name: "an extension reaching into another holder's time",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "begin", client: "B", ms: 1000, untilMS: 1980},
				{op: "extend", client: "A", untilMS: 1700},
			},
			want: []ViolationKind{ViolationOverlap},
			pair: [2]string{"A", "B"},
		},
		{
			name: "an earlier validity does not shorten a belief",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "extend", client: "A", untilMS: 500},
				{op: "begin", client: "B", ms: 700, untilMS: 1680},
			},
			want: []ViolationKind{ViolationOverlap},
			pair: [2]string{"A", "B"},
		},
		{
			name: "a pair is reported once however often it overlaps again",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "begin", client: "B", ms: 400, untilMS: 1380},
				{op: "write", client: "A", ms: 500},
				{op: "write", client: "B", ms: 600},
				{op: "extend", client: "A", untilMS: 1500},
			},
			want: []ViolationKind{ViolationOverlap},
			pair: [2]string{"A", "B"},
		},
		{
			name: "three holders at once give one violation per pair",
			steps: []step{
				{op: "begin", client: "A", ms: 0, untilMS: 980},
				{op: "stop", client: "A", ms: 100},
				{op: "begin", client: "B", ms: 200, untilMS: 1180},
				{op: "begin", client: "C", ms: 300, untilMS: 1280},
				{op: "begin", client: "D", ms: 400, untilMS: 1380},
			},
			want: []ViolationKind{ViolationOverlap, ViolationOverlap, ViolationOverlap},
			pair: [2]string{"B", "C"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDetector()
			var got []Violation
			for _, s := range tt.steps {
				got = append(got, s.apply(d)...)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d violations %v, want kinds %v", len(got), got, tt.want)
			}
			for i, v := range got {
				if v.Kind != tt.want[i] {
					t.Errorf("violation %d is %s, want %s: %s", i, v.Kind, tt.want[i], v.Text)
				}
				if v.Resource != "r" || v.Text == "" {
					t.Errorf("violation %d lacks its resource or text: %+v", i, v)
				}
			}
			if len(got) > 0 && (got[0].First.Client != tt.pair[0] || got[0].Second.Client != tt.pair[1]) {
				t.Errorf("first violation is between %s and %s, want %s then %s",
					got[0].First.Client, got[0].Second.Client, tt.pair[0], tt.pair[1])
			}
		})
	}
}

func TestDetectorCurrentListsOnlyLiveBeliefsInOrder(t *testing.T) {
	d := newDetector()
	d.begin(Belief{Client: "A", Resource: "b", Token: "ta", Since: at(0), Until: at(900)})
	d.begin(Belief{Client: "B", Resource: "a", Token: "tb", Since: at(50), Until: at(950)})
	d.begin(Belief{Client: "C", Resource: "a", Token: "tc", Since: at(10), Until: at(910)})
	d.stop("tb", at(100))
	d.setPaused("ta", true)
	got := d.current()
	if len(got) != 2 || got[0].Client != "C" || got[1].Client != "A" || !got[1].Paused {
		t.Fatalf("current = %+v, want C (resource a) then paused A (resource b)", got)
	}
}

func TestDetectorPruneForgetsOldEndedBeliefs(t *testing.T) {
	d := newDetector()
	d.begin(Belief{Client: "A", Resource: "r", Token: "ta", Since: at(0), Until: at(900)})
	d.stop("ta", at(500))
	d.begin(Belief{Client: "B", Resource: "r", Token: "tb", Since: at(1000), Until: at(1900)})
	d.prune(at(500).Add(beliefRetention + time.Millisecond))
	if _, ok := d.byToken["ta"]; ok {
		t.Error("a belief ended more than the retention ago is still kept")
	}
	if _, ok := d.byToken["tb"]; !ok {
		t.Error("a live belief was pruned")
	}
}

func TestDetectorJudgesFencedHoldersByWhatTheStoreAccepted(t *testing.T) {
	fenced := func(client string, fence uint64, since, until int) Belief {
		return Belief{Client: client, Resource: "r", Token: client, Since: at(since), Until: at(until), Fence: fence}
	}
	t.Run("a paused holder's refused write is safe", func(t *testing.T) {
		d := newDetector()
		var vs []Violation
		vs = append(vs, d.begin(fenced("A", 33, 0, 980))...)
		vs = append(vs, d.fencedWrite("A", at(100), true)...)
		vs = append(vs, d.begin(fenced("B", 34, 2000, 2980))...) // A is frozen and still believes
		vs = append(vs, d.fencedWrite("B", at(2100), true)...)
		vs = append(vs, d.fencedWrite("A", at(2500), false)...) // A resumes: the store refuses 33
		if len(vs) != 0 || d.refused != 1 {
			t.Errorf("violations %v, refused %d; want none and 1", vs, d.refused)
		}
	})
	t.Run("overlapping holders whose lower token is refused are safe", func(t *testing.T) {
		d := newDetector()
		vs := d.begin(fenced("A", 34, 0, 980))
		vs = append(vs, d.begin(fenced("B", 33, 100, 1080))...) // a master lost its counter
		vs = append(vs, d.fencedWrite("A", at(200), true)...)
		vs = append(vs, d.fencedWrite("B", at(300), false)...)
		vs = append(vs, d.fencedWrite("A", at(400), true)...)
		if len(vs) != 0 || d.refused != 1 {
			t.Errorf("violations %v, refused %d; want none and 1", vs, d.refused)
		}
	})
	t.Run("the same token accepted from two holders is a violation", func(t *testing.T) {
		d := newDetector()
		vs := d.begin(fenced("A", 33, 0, 980))
		vs = append(vs, d.begin(fenced("B", 33, 100, 1080))...)
		vs = append(vs, d.fencedWrite("A", at(200), true)...)
		if len(vs) != 0 {
			t.Fatalf("violations before both wrote: %v", vs)
		}
		vs = d.fencedWrite("B", at(300), true)
		if len(vs) != 1 || vs[0].Kind != ViolationFenceReused || vs[0].First.Client != "A" || vs[0].Second.Client != "B" {
			t.Fatalf("got %+v, want one fence-reused violation between A and B", vs)
		}
		if again := d.fencedWrite("A", at(400), true); len(again) != 0 {
			t.Errorf("the same pair reported again: %v", again)
		}
	})
	t.Run("a fenced holder still overlaps an unfenced one", func(t *testing.T) {
		d := newDetector()
		d.begin(fenced("A", 33, 0, 980))
		vs := d.begin(Belief{Client: "B", Resource: "r", Token: "B", Since: at(100), Until: at(1080)})
		if len(vs) != 1 || vs[0].Kind != ViolationOverlap {
			t.Errorf("got %+v, want an overlap", vs)
		}
	})
}
