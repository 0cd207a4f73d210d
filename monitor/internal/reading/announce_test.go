package reading

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestFamilyPrefix(t *testing.T) {
	for key, want := range map[string]string{
		"billing:nightly":      "billing:",
		"lock:orders:42":       "lock:orders:",
		"lock_4f2a9c":          "lock_",
		"app:job_7":            "app:",
		"mylock":               "",
		"trailing:":            "",
		":leading":             "",
		"{redisson}":           "",
		"a:b:c_d":              "a:b:",
		"lock:\x1b[2J":         "lock:",
		"semaphore:pool:lease": "semaphore:pool:",
	} {
		if got := familyPrefix(key); got != want {
			t.Errorf("familyPrefix(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestChoosePrefixesCoversEveryFamilyWithoutOverlaps(t *testing.T) {
	t.Parallel()
	none := func(string) bool { return false }
	keys := []string{"lock:a", "lock:b", "lock:orders:1", "lock:orders:2", "billing:nightly", "lock_x", "plain"}
	got, complete := choosePrefixes(keys, none)
	// lock:orders: is under lock:, which covers it; the master refuses overlapping prefixes.
	if want := []string{"billing:", "lock:", "lock_"}; !slices.Equal(got, want) || !complete {
		t.Errorf("choosePrefixes = %q, complete %v; want %q, complete", got, complete, want)
	}
	got, complete = choosePrefixes(keys, func(p string) bool { return p == "lock:" })
	if want := []string{"billing:", "lock_"}; !slices.Equal(got, want) || complete {
		t.Errorf("with lock: stormy: %q, complete %v; want %q, not complete", got, complete, want)
	}
	if got, complete := choosePrefixes([]string{"plain", "{hash}"}, none); len(got) != 0 || !complete {
		t.Errorf("keys of no family: %q, complete %v; want none, complete", got, complete)
	}

	var many []string
	for i := range maxAnnouncedPrefixes + 10 {
		for j := range i + 1 { // family i has i+1 keys: the largest are kept
			many = append(many, fmt.Sprintf("fam%03d:%d", i, j))
		}
	}
	got, complete = choosePrefixes(many, none)
	if len(got) != maxAnnouncedPrefixes || complete || !slices.IsSorted(got) {
		t.Fatalf("%d families: %d prefixes (complete %v, sorted %v), want the %d largest, not complete", maxAnnouncedPrefixes+10,
			len(got), complete, slices.IsSorted(got), maxAnnouncedPrefixes)
	}
	if got[0] != "fam010:" {
		t.Errorf("the smallest family kept is %q, want fam010: (the 10 smallest left to the scan)", got[0])
	}
}

// TestAStormsKeysStillOnTheirWayWaitForNoOtherFamily: a receiver behind on a storm takes the stormy prefix's
// keys after the poll left it to the scan; they are not queued, so another family's new lock, announced after
// them, is in the next read's first chunk.
func TestAStormsKeysStillOnTheirWayWaitForNoOtherFamily(t *testing.T) {
	n := newNotifier(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}))
	a := n.announce
	a.prefixes = []string{"app:", "orders:lock:"}
	announce := func(from, to int) {
		for i := from; i < to; i++ {
			a.take(&redis.Message{Channel: invalidateChannel, PayloadSlice: []string{fmt.Sprintf("app:cache:%d", i)}})
		}
	}
	start := time.Now()
	a.guardStorms(start) // the first count: no rate judged
	announce(0, 3*announceStormRate)
	if !a.guardStorms(start.Add(announceStormWindow)) || !a.storms["app:"].stormy {
		t.Fatalf("%d keys named in a second under app: did not leave it to the scan", 3*announceStormRate)
	}
	if keys := n.take(notifiedChunk); len(keys) != 0 {
		t.Fatalf("the storm's queued keys are left to the scan, yet a read takes %d (%q...)", len(keys), keys[0])
	}
	announce(3*announceStormRate, 3*announceStormRate+2*notifiedChunk) // still on their way when it was judged
	a.take(&redis.Message{Channel: invalidateChannel, Payload: "orders:lock:2"})
	if keys := n.take(notifiedChunk); !slices.Equal(keys, []string{"orders:lock:2"}) {
		t.Errorf("the read after the storm takes %d keys, first %q; want only orders:lock:2", len(keys), keys[:min(1, len(keys))])
	}
}
