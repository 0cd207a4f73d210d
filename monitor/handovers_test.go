package monitor

import (
	"reflect"
	"testing"
	"time"
)

// TestHandoversCountsEachPartOfTheWindow: holders beginning their tenure are counted in the part of the window
// they began in; the holder already there at the first poll is not a handover, and the parts before the first
// poll are not watched rather than quiet.
func TestHandoversCountsEachPartOfTheWindow(t *testing.T) {
	t.Parallel()
	// A 40s window in 8 parts of 5s; 35 polls a second apart, from t0.
	polls := make([]poll, 35)
	for i := range polls {
		tok := "A"
		switch {
		case i >= 30:
			tok = []string{"F", "G", "H", "I", "J"}[i-30] // a new holder at every poll: five in the last part
		case i >= 20:
			tok = "E"
		case i >= 12:
			tok = []string{"B", "C"}[(i-12)/4%2] // B at 12, C at 16
		}
		polls[i] = poll{cells: cells(tok, 5)}
	}
	snaps := story(t, Config{History: 40 * time.Second}, polls...)
	s := snaps[len(snaps)-1] // at 34s: the window is (-6s, 34s], its parts end at -1s, 4s, 9s ... 34s
	got := s.Handovers(s.HoldLog("r"), 8)
	if want := []int{NotWatched, 0, 0, 1, 1, 1, 0, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("handovers by part = %v, want %v (none for A, B at 12s, C at 16s, E at 20s, F to J from 30s)", got, want)
	}
}
