package reading

import (
	"slices"
	"testing"
)

// TestKeyQueueKeepsKeysUntilTheReadingIsAccepted queues keys named twice, more than the queue holds, and one
// taken out: a read takes them oldest first, once each; a read whose reading is not accepted leaves them to the
// next, and an accepted one drops them.
func TestKeyQueueKeepsKeysUntilTheReadingIsAccepted(t *testing.T) {
	q := newKeyQueue(4)
	for _, k := range []string{"a", "b", "a", "c", "d"} {
		if !q.push(k) {
			t.Fatalf("push %q refused below the limit", k)
		}
	}
	if q.push("e") {
		t.Fatal("push beyond the limit accepted")
	}
	q.remove("b") // read through the other queue
	if got := q.take(2); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("first take %q, want a and c (b taken out)", got)
	}
	if got := q.take(5); !slices.Equal(got, []string{"d"}) {
		t.Fatalf("second take %q, want d", got)
	}
	q.taken = 0 // the next read begins: the reading of this one was not accepted
	if got := q.take(5); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Fatalf("take after a reading not accepted %q, want a, c and d again", got)
	}
	q.accept()
	if got := q.take(5); len(got) != 0 || q.has("a") || len(q.keys) != 0 {
		t.Fatalf("after the accepted reading: take %q, a queued %v, %d entries; want none", got, q.has("a"), len(q.keys))
	}
	if !q.push("e") || !slices.Equal(q.take(1), []string{"e"}) {
		t.Fatal("an emptied queue takes no key again")
	}
}
