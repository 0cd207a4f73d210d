package ui_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// Symfony Lock's tokens (32 bytes, std base64) and redis-semaphore's identifiers (UUIDs), fixed for the screens.
var (
	reader1 = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x3c}, 32))
	reader2 = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x8e}, 32))
	reader3 = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xd5}, 32))
	permitA = "0f8fad5b-d9cb-469f-a165-70867728950e"
	permitB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
)

// setMembers is a sorted set read at "at": members and their scores, the key's PTTL.
func setMembers(at time.Time, key string, pttl time.Duration, members ...monitor.SetMember) monitor.KeyReading {
	return monitor.KeyReading{Key: key, Set: members, PTTL: pttl, ReadAt: at}
}

// scoreAt is a Unix-millisecond score d from at.
func scoreAt(at time.Time, d time.Duration) float64 { return float64(at.Add(d).UnixMilli()) }

// setLocksSnapshot is three masters with a Symfony shared lock of three readers (one of them on two masters
// only, as a CombinedStore leaves it when a store did not answer), a redis-semaphore semaphore with 2 of its 3
// permits taken (its limit from --permits), and a string lock, aggregated by the monitor from raw readings.
func setLocksSnapshot() monitor.Snapshot {
	cfg := monitor.Config{Permits: map[string]int{"semaphore:pool": 3}}
	read := func(at time.Time) []monitor.Reading {
		out := make([]monitor.Reading, 3)
		for i := range out {
			// Symfony: scores are expiries on the master's clock, the key PEXPIREAT the latest.
			shared := []monitor.SetMember{{Member: reader1, Score: scoreAt(at, 25*time.Second)},
				{Member: reader2, Score: scoreAt(at, 28*time.Second)}}
			if i < 2 {
				shared = append(shared, monitor.SetMember{Member: reader3, Score: scoreAt(at, 29*time.Second)})
			}
			latest := time.Duration(shared[len(shared)-1].Score-float64(at.UnixMilli())) * time.Millisecond
			// redis-semaphore: scores are acquisition times, the key PEXPIREd by lockTimeout (10s) at the last.
			pool := []monitor.SetMember{{Member: permitA, Score: scoreAt(at, -3*time.Second)},
				{Member: permitB, Score: scoreAt(at, -time.Second)}}
			out[i] = reading(i, at,
				seenAt(at, "billing:invoice:42", tokA, 8*time.Second),
				setMembers(at, "report:monthly", latest, shared...),
				setMembers(at, "semaphore:pool", 9*time.Second, pool...))
		}
		return out
	}
	var prev *monitor.Snapshot
	var s monitor.Snapshot
	for i := range 2 {
		at := testNow.Add(-time.Duration(1-i) * time.Second)
		s = monitor.Aggregate(prev, read(at), nil, at, cfg)
		prev = &s
	}
	return s
}

func TestSetLockGolden(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		keys keySeq
	}{
		{"shared_readers_80x24", 80, 24, keys("j")},
		{"shared_readers_120x40", 120, 40, keys("j")},
		{"semaphore_permits_80x24", 80, 24, keys("j", "j")},
		{"semaphore_permits_120x40", 120, 40, keys("j", "j")},
		{"shared_readers_drilldown_80x24", 80, 24, keys("j", "enter")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := goldenScreen(t, setLocksSnapshot(), tc.w, tc.h, tc.keys)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

func TestSetLockRowsSayWhoHoldsThem(t *testing.T) {
	m := newDashboard(ui.Options{}, 120, 40)
	m.Update(ui.SnapshotMsg{Snapshot: setLocksSnapshot()})
	view := m.View()
	for _, want := range []string{"3 readers", "2 of 3 permits"} {
		if !strings.Contains(view, want) {
			t.Errorf("the screen does not say %q:\n%s", want, view)
		}
	}
}

func TestAFilterFindsALockByItsResourceOrItsKey(t *testing.T) {
	for _, q := range []string{"pool*", "semaphore:p*", "pool (redis"} {
		m := newDashboard(ui.Options{}, 120, 40)
		m.Update(ui.SnapshotMsg{Snapshot: setLocksSnapshot()})
		m.Update(keyMsg("/"))
		for _, r := range q {
			m.Update(keyMsg(string(r)))
		}
		if v := m.View(); !strings.Contains(v, "Locks 1 of 3") || !strings.Contains(v, "2 of 3 permits") {
			t.Errorf("filter /%s does not keep the semaphore alone:\n%s", q, v)
		}
	}
}

func TestForceDeleteOfASetLockRemovesOnlyTheHolderPicked(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	expiry := float64(time.Now().Add(time.Minute).UnixMilli())
	// A Symfony shared lock: two readers scored with their expiry, the key PEXPIREAT the latest.
	for _, cl := range c.clients {
		if err := cl.ZAdd(ctx, "report:monthly", redis.Z{Score: expiry, Member: reader1}, redis.Z{Score: expiry, Member: reader2}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cl.PExpireAt(ctx, "report:monthly", time.UnixMilli(int64(expiry))).Err(); err != nil {
			t.Fatal(err)
		}
	}
	d := c.dashboard(ui.Options{})
	c.poll(d)
	d.press("D")
	d.waitView("Holder 1 of 2")
	d.press("tab")
	d.waitView("Holder 2 of 2")
	d.typeText("report:monthly")
	d.press("enter")
	d.waitView("force-delete report:monthly: the holder removed from 3 masters")
	for i, cl := range c.clients {
		if got := cl.ZRange(ctx, "report:monthly", 0, -1).Val(); len(got) != 1 || got[0] != reader1 {
			t.Errorf("master %d holds %v, want the other reader alone", i+1, got)
		}
	}
}

func TestTheAcquireFormTakesTheLockInThePeersKeyConvention(t *testing.T) {
	c := newCluster(t)
	format, err := monitor.KeyFormat("malkusch")
	if err != nil {
		t.Fatal(err)
	}
	d := c.dashboard(ui.Options{KeyFormat: format})
	c.poll(d)
	d.press("a")
	d.typeText("billing")
	d.waitView("lock_billing") // the key, shown in the form before it is locked
	d.press("enter")
	d.waitView("acquired lock_billing")
	c.heldEverywhere("lock_billing")
	for _, v := range c.values("billing") {
		if v != "" {
			t.Fatalf("the resource itself was locked too: %q", v)
		}
	}
}

// TestSetLockMembersAreCountedToNow: a sorted-set lock's view counts each holder's member on each master down
// to now, as the key's TTL and the holder's validity beside them are (issue 34's item 1), rather than showing
// what they were at the poll that read them: 3s after it, the member read with 25s left shows 22s.
func TestSetLockMembersAreCountedToNow(t *testing.T) {
	later := func() time.Time { return testNow.Add(3 * time.Second) }
	d := drive(t, newDashboard(ui.Options{Locker: idleLocker(t), Now: later}, 80, 24))
	d.update(ui.SnapshotMsg{Snapshot: setLocksSnapshot()})
	d.press("j", "enter")
	view := d.m.View()
	for _, want := range []string{"M1 22s  M2 22s  M3 22s", "M1 26s  M2 26s  M3 -", "key 26s"} {
		if !strings.Contains(view, want) {
			t.Errorf("3s after the poll, the lock's view lacks %q:\n%s", want, view)
		}
	}
}
