package reading

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestWritePauseKeepsReadingWithScriptsAsBeforeRedis7 pauses writes on a real master (CLIENT PAUSE WRITE, as a
// failover or a resharding does) read with its scripts run as before Redis 7 (unflagged: forced here, the
// pause holds such scripts): every read meanwhile must answer, with the string lock read in that very read
// with plain commands, and the Redisson hash lock, which plain commands do not read, never absent. Tracked,
// such a master reads only what changes: a key whose TTL runs out in the pause, read on the tracking
// connection, whose scripts the pause holds, is read again with plain commands, and is absent by the end.
// (monitor's TestWritePauseKeepsReadingTheMaster reads scripts flagged no-writes, as Redis 7 runs them.)
func TestWritePauseKeepsReadingWithScriptsAsBeforeRedis7(t *testing.T) {
	t.Parallel()
	const pausedWritesFor = 3 * time.Second
	for _, tracked := range []bool{false, true} {
		t.Run(map[bool]string{false: "polled", true: "tracked"}[tracked], func(t *testing.T) {
			t.Parallel()
			srv, client, admin := realMaster(t)
			p := NewMaster(client, srv.Addr(), nil, tracked, time.Minute).(*poller)
			t.Cleanup(p.Close)
			p.scripts = scriptsCompat
			ctx := context.Background()
			const key, token, hashKey, short = "orders:paused", "token-paused-0123456789", "reports:paused", "orders:short"
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(admin.Set(ctx, key, token, time.Minute).Err())
			must(admin.HSet(ctx, hashKey, "8e5c5f3e-7a8b-4b3c-9d2e-0f1a2b3c4d5e:1", 1).Err())
			must(admin.PExpire(ctx, hashKey, time.Minute).Err())
			must(admin.Set(ctx, short, "token-short-0123456789", pausedWritesFor/2).Err()) // its TTL runs out in the pause
			known := NewKnownList([]string{key, short, hashKey})                           // sorted
			cfg := Config{Pattern: DefaultPattern, ScanCount: 100, ScanBudget: 0.03, MaxKeys: 100_000, MaxValueLen: 256,
				Interval: 2 * time.Second}
			// read reads p once, within the interval, as a poll does: a read that waited for the pause to end
			// would outlast it.
			read := func() Reading {
				t.Helper()
				rctx, cancel := context.WithTimeout(ctx, cfg.Interval)
				defer cancel()
				r := p.Read(rctx, cfg, known)
				p.Accept(r)
				return r
			}
			find := func(r Reading, k string) *KeyReading {
				if i := slices.IndexFunc(r.Keys, func(kr KeyReading) bool { return kr.Key == k }); i >= 0 {
					return &r.Keys[i]
				}
				return nil
			}
			if r := read(); r.Err != nil || find(r, key) == nil || find(r, hashKey) == nil {
				t.Fatalf("before the pause: error %v, the string lock read %v, the hash lock read %v", r.Err, find(r, key) != nil, find(r, hashKey) != nil)
			}
			must(admin.Do(ctx, "client", "pause", pausedWritesFor.Milliseconds(), "write").Err())
			pausedAt := time.Now()
			t.Cleanup(func() { _ = admin.Do(context.Background(), "client", "unpause").Err() })
			reads, shortGone := 0, false
			for time.Since(pausedAt) < pausedWritesFor-200*time.Millisecond {
				before := time.Now()
				r := read()
				reads++
				if r.Err != nil {
					t.Fatalf("read %d, %s into the write pause: %v", reads, time.Since(pausedAt).Round(time.Millisecond), r.Err)
				}
				if !tracked && !r.PlainReads {
					t.Fatalf("read %d into the write pause is not with plain commands: the pause did not hold the scripts", reads)
				}
				k := find(r, key)
				if k == nil && !tracked || k != nil && (k.Absent || k.Value != token || k.ReadAt.Before(before) && !tracked) {
					t.Fatalf("read %d into the write pause: the string lock read %+v, want %q read in this read (after %s)",
						reads, k, token, before.Format("15:04:05.000"))
				}
				if h := find(r, hashKey); h != nil && h.Absent {
					t.Fatalf("read %d into the write pause: the hash lock is absent", reads)
				}
				if s := find(r, short); s != nil && s.Absent {
					shortGone = true
				}
			}
			if reads < 2 {
				t.Fatalf("only %d reads in the %s write pause", reads, pausedWritesFor)
			}
			if s := find(read(), short); !shortGone && (s == nil || !s.Absent) {
				t.Errorf("%s, whose TTL ran out in the pause, was never read absent: %+v", short, s)
			}
		})
	}
}
