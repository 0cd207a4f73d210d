package app

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestOwnershipIsWhatTheMonitorCallsOurs opens real masters as the dashboard does and drives the register as
// its lock commands do: a lock recorded as acquired is Mine, and lost when its keys go without its release
// being recorded; a force-deletion recorded before the keys go is reported as that deletion, not as its
// holder's release, and the record is settled once no master shows the tokens.
func TestOwnershipIsWhatTheMonitorCallsOurs(t *testing.T) {
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	a, err := Open(Config{Masters: masters(redlocktest.Addrs(servers)...)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mon, err := a.Watch(monitor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	locker, err := a.Lock()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lock, err := locker.TryAcquire(ctx, "jobs:ours", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	acquired := time.Now()
	a.Own.Acquired(lock.Resource(), lock.Token(), acquired, lock.TTL())
	for _, c := range a.Clients {
		if err := c.Set(ctx, "jobs:theirs", "their-token", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	s := pollUntil(t, mon, func(s monitor.Snapshot) bool { return held(s, "jobs:ours") && held(s, "jobs:theirs") })
	if ours, theirs := lockIn(s, "jobs:ours"), lockIn(s, "jobs:theirs"); !ours.Mine || theirs.Mine {
		t.Fatalf("Mine: ours %v, theirs %v; want only ours", ours.Mine, theirs.Mine)
	}

	a.Own.Deleting("jobs:theirs", "their-token")
	for _, c := range a.Clients {
		if err := c.Del(ctx, "jobs:ours", "jobs:theirs").Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A loss is confirmed by a second poll before it is reported; Snapshot.Events keeps the earlier events.
	s = pollUntil(t, mon, func(s monitor.Snapshot) bool {
		return hasEvent(s, "jobs:theirs", monitor.EventLockDeleted) && hasEvent(s, "jobs:ours", monitor.EventLockLost)
	})
	var kinds []monitor.EventKind
	for _, e := range s.Events {
		if e.Resource == "jobs:theirs" {
			kinds = append(kinds, e.Kind)
		}
	}
	if slices.Contains(kinds, monitor.EventLockReleased) {
		t.Errorf("jobs:theirs events %v: a deletion of ours reported as its holder's release", kinds)
	}
	if _, left := a.Own.OwnLocks()["jobs:theirs"]; left {
		t.Errorf("the deletion is still recorded after a snapshot without its tokens: %v", a.Own.OwnLocks())
	}
	a.Own.Ended(lock.Resource(), "another-token")
	if got := a.Own.OwnLocks()["jobs:ours"].Token; got != lock.Token() {
		t.Errorf("Ended with another token removed our record: token now %q", got)
	}
	a.Own.Ended(lock.Resource(), lock.Token())
	if len(a.Own.OwnLocks()) != 0 {
		t.Errorf("register after our lock ended: %v, want empty", a.Own.OwnLocks())
	}
}

// pollUntil polls mon until ok holds for the snapshot, failing t after a generous deadline.
func pollUntil(t *testing.T, mon *monitor.Monitor, ok func(monitor.Snapshot) bool) monitor.Snapshot {
	t.Helper()
	var s monitor.Snapshot
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if s = mon.Poll(context.Background()); ok(s) {
			return s
		}
	}
	t.Fatalf("condition not met within 20s; last snapshot's locks: %+v", s.Locks)
	return s
}

// lockIn returns resource's view in s (the zero view when s has none).
func lockIn(s monitor.Snapshot, resource string) monitor.LockView {
	for _, l := range s.Locks {
		if l.Resource == resource {
			return *l
		}
	}
	return monitor.LockView{}
}

// held reports whether s shows resource held.
func held(s monitor.Snapshot, resource string) bool {
	return lockIn(s, resource).State == monitor.StateHeld
}

// hasEvent reports whether s's events include kind on resource.
func hasEvent(s monitor.Snapshot, resource string, kind monitor.EventKind) bool {
	return slices.ContainsFunc(s.Events, func(e monitor.Event) bool { return e.Resource == resource && e.Kind == kind })
}
