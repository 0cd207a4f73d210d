package reading

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTrackingStormRetriesAfterBackoff storms a tracked real master (its tracking table shrunk below the locks
// known): it is polled, every known key read, saying when tracking is tried again; after the backoff it is
// tracked again, every key read anew; the storm, still there, turns it to polling again for twice as long.
func TestTrackingStormRetriesAfterBackoff(t *testing.T) {
	t.Parallel()
	srv, client, admin := realMaster(t)
	p := NewMaster(client, srv.Addr(), nil, true, time.Minute).(*poller)
	t.Cleanup(p.Close)
	p.track.backoff = 2 * time.Second // no read runs now
	const locks = 400
	ctx := context.Background()
	keys := make([]string, locks)
	for i := range keys {
		keys[i] = fmt.Sprintf("lock:%03d", i)
		if err := admin.Set(ctx, keys[i], "token-one-0123456789", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	known := NewKnownList(keys) // sorted: the numbers are zero-padded
	cfg := Config{Pattern: DefaultPattern, ScanCount: 100, ScanBudget: 0.03, MaxKeys: 100_000, MaxValueLen: 256,
		Interval: 500 * time.Millisecond}
	readUntil := func(what string, ok func(Reading) bool) Reading {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(cfg.Interval / 5) {
			if r := readOnce(t, p, cfg, known); ok(r) {
				return r
			}
			if time.Now().After(deadline) {
				t.Fatalf("not within 30s: %s", what)
			}
		}
	}
	// allRead reports whether r is whole, every known key read there (a key the scan came across as well is
	// read twice).
	allRead := func(r Reading) bool {
		read := map[string]bool{}
		for _, k := range r.Keys {
			read[k.Key] = read[k.Key] || !k.Absent
		}
		return !r.Delta && len(read) == locks && !slices.Contains(slices.Collect(maps.Values(read)), false)
	}
	readUntil("every lock, quietly tracked", func(r Reading) bool { return r.Refresh == RefreshTracking && r.RefreshWhy == "" })
	if err := admin.ConfigSet(ctx, "tracking-table-max-keys", "10").Err(); err != nil {
		t.Fatal(err)
	}
	stormedFor := func(wait string) {
		t.Helper()
		r := readUntil("the master polled after a storm", func(r Reading) bool { return r.Refresh == RefreshPolling })
		if !strings.HasPrefix(r.RefreshWhy, StormWhy) || !strings.Contains(r.RefreshWhy, "tracking tried again after "+wait+", at ") {
			t.Fatalf("polled because %q, want a storm and tracking tried again after %s", r.RefreshWhy, wait)
		}
		if slices.ContainsFunc(r.Keys, func(k KeyReading) bool { return k.Absent }) {
			t.Fatalf("the read that found the storm has a key absent")
		}
		// The read that found the storm re-read what was invalidated (a delta the monitor merges); the next,
		// polled, is whole.
		if r = readOnce(t, p, cfg, known); r.Refresh != RefreshPolling || !allRead(r) {
			t.Fatalf("the read after the storm: %s, %d readings (delta %v); want polled, all %d", r.Refresh, len(r.Keys), r.Delta, locks)
		}
	}
	stormedFor("2.0s")
	r := readUntil("the master tracked again after the backoff", func(r Reading) bool { return r.Refresh == RefreshTracking })
	if r.RefreshWhy != "full re-read: tracking (re)started" {
		t.Fatalf("the first tracked read after the backoff: %q, want a full re-read", r.RefreshWhy)
	}
	if !allRead(r) {
		t.Fatalf("tracked again: %d readings (delta %v), want all %d", len(r.Keys), r.Delta, locks)
	}
	stormedFor("4.0s")
}

// TestTrackedReadOfManyFoundKeysStaysScripted reads 10,000 keys found elsewhere on a tracked real master at
// once, as the poll after a sweep does: the read script's arguments overflowed the server's Lua stack in one
// batch, and the refusal turned the master to pipelined reads (five times the work) for good.
func TestTrackedReadOfManyFoundKeysStaysScripted(t *testing.T) {
	t.Parallel()
	srv, client, _ := realMaster(t)
	p := NewMaster(client, srv.Addr(), nil, true, time.Minute).(*poller)
	t.Cleanup(p.Close)
	cfg := Config{Pattern: DefaultPattern, ScanCount: 100, ScanBudget: 0.03, MaxKeys: 100_000, MaxValueLen: 256,
		Interval: 500 * time.Millisecond}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(cfg.Interval / 5) {
		if r := readOnce(t, p, cfg, nil); r.Refresh == RefreshTracking && r.RefreshWhy == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not quietly tracked within 20s")
		}
	}
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = fmt.Sprintf("found:%05d", i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	r := p.ReadKeys(ctx, cfg, keys)
	if r.Err != nil || len(r.Keys) != len(keys) || r.PlainReads {
		t.Fatalf("read of %d keys: error %v, %d readings, scripted %v; want every key read by the script", len(keys), r.Err, len(r.Keys), !r.PlainReads)
	}
}
