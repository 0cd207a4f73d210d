package reading

import (
	"slices"
	"testing"
	"time"
)

// planAt returns what tr's next poll of changes reads, given known, at now.
func planAt(tr *tracker, known []string, now time.Time) []string {
	var pl readPlan
	tr.planChanges(&pl, known, now)
	slices.Sort(pl.read)
	return pl.read
}

// TestTrackerReadsAgainWhatItsTTLSaysIsGone: a cached key is read again once its TTL, counted from its read,
// has run out (its expiry's invalidation may come late: the server's active expiry finds keys in its own
// time), once, and a key without a TTL never is.
func TestTrackerReadsAgainWhatItsTTLSaysIsGone(t *testing.T) {
	tr := &tracker{}
	known := []string{"lock:a", "lock:b", "lock:c"}
	tr.follow(known)
	now := time.Now()
	tr.remember([]KeyReading{
		{Key: "lock:a", Value: "token-a", PTTL: time.Second, ReadAt: now},
		{Key: "lock:b", Value: "token-b", PTTL: time.Minute, ReadAt: now},
		{Key: "lock:c", Value: "token-c", PTTL: NoTTL, ReadAt: now},
	}, testInterval)
	for _, step := range []struct {
		at   time.Duration
		want []string
	}{
		{500 * time.Millisecond, nil},
		{2 * time.Second, []string{"lock:a"}},
		{3 * time.Second, nil},
		{2 * time.Minute, []string{"lock:b"}},
		{10 * time.Hour, nil},
	} {
		if got := planAt(tr, known, now.Add(step.at)); !slices.Equal(got, step.want) {
			t.Errorf("%v after the read: reads %q, want %q", step.at, got, step.want)
		}
	}
}

// TestTrackerCacheFollowsTheKnownKeys: when the known keys change, a key known before and after keeps what was
// cached of it, and the new ones are read; a read of a key no longer known is not kept.
func TestTrackerCacheFollowsTheKnownKeys(t *testing.T) {
	tr := &tracker{}
	before := []string{"lock:b", "lock:c", "lock:e"}
	tr.follow(before)
	now := time.Now()
	var read []KeyReading
	for _, k := range append(before, "lock:gone") {
		read = append(read, KeyReading{Key: k, Value: "token-" + k, PTTL: time.Hour, ReadAt: now})
	}
	tr.remember(read, testInterval)
	after := []string{"lock:a", "lock:c", "lock:d", "lock:e", "lock:f"}
	if got, want := planAt(tr, after, now), []string{"lock:a", "lock:d", "lock:f"}; !slices.Equal(got, want) {
		t.Errorf("new known keys: reads %q, want %q", got, want)
	}
	// Looked up in the poll's known list, and without it.
	for _, known := range []*KnownList{NewKnownList(after), nil} {
		for _, k := range []string{"lock:c", "lock:e"} {
			if !tr.holds(k, known) {
				t.Errorf("%s, known before and after, is no longer cached", k)
			}
		}
		for _, k := range []string{"lock:b", "lock:gone", "lock:a"} {
			if tr.holds(k, known) {
				t.Errorf("%s is cached, but not known or not read", k)
			}
		}
	}
	if got := planAt(tr, after, now); got != nil {
		t.Errorf("the same known list again: reads %q, want nothing", got)
	}
}

// testInterval is the poll interval of the tracker's tests: the monitor's default.
const testInterval = 500 * time.Millisecond
