package monitor

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// quietCluster is a monitor of three real redis-server masters, tracked, with 50 locks held on all of them
// for a minute, polled until its polls are quiet.
func quietCluster(t *testing.T) (*cluster, Snapshot) {
	t.Helper()
	if *polling {
		t.Skip("a test of tracking, run without -polling")
	}
	servers := realServers(t, 3)
	c := watch(t, []redlocktest.Master{servers[0], servers[1], servers[2]}, Config{})
	t.Cleanup(func() { _ = c.mon.Close() })
	for i := range 50 {
		c.set(t, fmt.Sprintf("quiet:%02d", i), fmt.Sprintf("token-%02d-0123456789abcdef", i), time.Minute, 0, 1, 2)
	}
	s := pollUntil(t, c.mon, 30*time.Second, "a quiet poll with the 50 locks held", func(s Snapshot) bool {
		return s.quiet && len(s.Locks) == 50 && lockOf(t, s, "quiet:00").State == StateHeld
	})
	return c, s
}

// TestQuietPollsShareTheLocksAndTheirValidityRunsOn requires polls of tracked masters where nothing changed to
// share the locks of the snapshot before, with a validity that still counts down, and the first change on
// one master to end that, shown by the very next poll.
func TestQuietPollsShareTheLocksAndTheirValidityRunsOn(t *testing.T) {
	t.Parallel()
	c, first := quietCluster(t)
	second := c.mon.Poll(context.Background())
	if !second.quiet || &second.Locks[0] != &first.Locks[0] {
		t.Fatalf("second poll with nothing changed: quiet %v, shares the locks %v; want both", second.quiet, &second.Locks[0] == &first.Locks[0])
	}
	l := lockOf(t, second, "quiet:07")
	if v1, v2 := l.ValidityAt(first.Time), l.ValidityAt(second.Time); v2 >= v1 || v2 <= 0 {
		t.Errorf("validity %v at the first quiet poll, %v at the second; want it to count down and stay positive", v1, v2)
	}
	c.set(t, "quiet:07", "token-new-0123456789abcdef", time.Minute, 1)
	third := c.mon.Poll(context.Background())
	if third.quiet {
		t.Fatal("the poll after a lock changed on master 1 is quiet")
	}
	if l := lockOf(t, third, "quiet:07"); l.Masters[1].Token != "token-new-0123456789abcdef" || l.Count != 2 {
		t.Errorf("after the change on master 1: its cell %q, count %d; want the new token, the old one on 2", l.Masters[1].Token, l.Count)
	}
}

// TestQuietPollsLetALockExpire holds a short lock beside the quiet ones: polls that read nothing must never
// show it held without validity, and it must be reported expired once its keys run out.
func TestQuietPollsLetALockExpire(t *testing.T) {
	t.Parallel()
	c, _ := quietCluster(t)
	c.set(t, "quiet:short", "token-short-0123456789ab", 1500*time.Millisecond, 0, 1, 2)
	deadline := time.Now().Add(20 * time.Second)
	var quiet int
	for s := c.mon.Poll(context.Background()); ; s = c.mon.Poll(context.Background()) {
		if s.quiet {
			quiet++
		}
		l := s.Lock("quiet:short")
		if l != nil && l.State == StateHeld && l.ValidityAt(s.Time) <= 0 {
			t.Fatalf("poll %d (quiet %v) shows the short lock held with no validity", s.Seq, s.quiet)
		}
		gone := l == nil || l.State == StateFree && l.Holder == "" && !slices.ContainsFunc(l.Masters, MasterLock.Present)
		if gone && slices.ContainsFunc(s.Events, func(e Event) bool { return e.Kind == EventLockExpired && e.Resource == "quiet:short" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the short lock is still shown 20s after it was set: %+v", l)
		}
		time.Sleep(c.mon.cfg.Interval / 5)
	}
	if quiet == 0 {
		t.Error("no quiet poll while the short lock ran out: the test did not test quiet polls")
	}
}
