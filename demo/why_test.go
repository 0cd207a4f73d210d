package demo

import (
	"strings"
	"testing"
)

// Every step a stepped run announces, the first to the last before "over", has a why: the story for the
// first, a sentence of its own for the others; and no why is left over for a story or a step that is not.
func TestEveryAnnouncedStepHasAWhy(t *testing.T) {
	names := map[string]bool{}
	for _, sc := range Scenarios() {
		names[sc.Name] = true
		if got, want := len(stepWhys[sc.Name]), sc.Steps-2; got != want {
			t.Errorf("%s: %d whys, want one for each of its steps 2 to %d (%d)", sc.Name, got, sc.Steps-1, want)
		}
		if stepWhy(sc, 1) != sc.Description {
			t.Errorf("%s: the first step's why is not the story", sc.Name)
		}
		for k := 2; k < sc.Steps; k++ {
			why := stepWhy(sc, k)
			if len(why) < 20 || !strings.HasSuffix(why, ".") || strings.Count(why, ". ") > 0 {
				t.Errorf("%s step %d: the why %q is not one sentence", sc.Name, k, why)
			}
		}
	}
	for name := range stepWhys {
		if !names[name] {
			t.Errorf("whys for %q, which is no scenario", name)
		}
	}
}

// The whys fit the story box: at 80 columns (78 for text) a why takes at most two lines.
func TestWhysAreShort(t *testing.T) {
	for name, whys := range stepWhys {
		for i, why := range whys {
			if len(why) > 2*78 {
				t.Errorf("%s step %d: the why is %d characters, more than two lines at 80 columns", name, i+2,
					len(why))
			}
		}
	}
}
