package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestOurLockLeftToExpireIsAWarningClearedByItsRelease: issue 42, item 7. Our own lock left to run out at its
// TTL is what the operator did on purpose: a warning that it expired, not an UNSAFE header nor "has no quorum";
// its release then says it had expired, with no warning about masters that did not confirm, and clears it.
func TestOurLockLeftToExpireIsAWarningClearedByItsRelease(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	d := c.dashboard(ui.Options{TTL: time.Second})
	d.acquire("acq:a")
	c.heldOnQuorum("acq:a")
	c.goneEverywhere("acq:a") // its TTL ran out on every master

	if w, ok := expiredWarning(c.pollSnapshot(d), "acq:a"); !ok || w.Severity != monitor.SeverityWarning {
		t.Errorf("the snapshot's warning on our expired lock: %+v (found %v); want a warning of kind %q", w, ok, monitor.WarnOwnExpired)
	}
	view := d.m.View()
	if !strings.Contains(view, `our lock on "acq:a" expired`) {
		t.Errorf("the screen does not say our lock expired:\n%s", view)
	}
	for _, bad := range []string{"UNSAFE", "has no quorum", "✖"} {
		if strings.Contains(view, bad) {
			t.Errorf("our own lock left to expire shows %q:\n%s", bad, view)
		}
	}

	d.press("tab", "r")
	d.waitView("released acq:a: it had expired at its TTL")
	view = d.m.View()
	for _, bad := range []string{"did not confirm", "had already expired", "unconfirmed"} {
		if strings.Contains(view, bad) {
			t.Errorf("the release of our expired lock warns %q:\n%s", bad, view)
		}
	}
	if w, ok := expiredWarning(c.pollSnapshot(d), "acq:a"); ok {
		t.Errorf("the warning stays after the release: %+v", w)
	}
}

// pollSnapshot hands the dashboard a fresh snapshot and returns it.
func (c *cluster) pollSnapshot(d *driver) monitor.Snapshot {
	s := c.mon.Poll(context.Background())
	d.update(ui.SnapshotMsg{Snapshot: s})
	return s
}

// expiredWarning returns s's warning that our lock on resource expired, if it has one.
func expiredWarning(s monitor.Snapshot, resource string) (monitor.Warning, bool) {
	for _, w := range s.Warnings {
		if w.Kind == monitor.WarnOwnExpired && w.Resource == resource {
			return w, true
		}
	}
	return monitor.Warning{}, false
}

// TestOurLockDeletedBeforeItsTTLIsStillLost: only the expiry at the TTL is on purpose; our key deleted from
// every master while its validity lasts is a loss, an error.
func TestOurLockDeletedBeforeItsTTLIsStillLost(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.acquire("acq:b")
	c.heldOnQuorum("acq:b")
	for _, cl := range c.clients {
		if err := cl.Del(context.Background(), "acq:b").Err(); err != nil {
			t.Fatal(err)
		}
	}
	s := c.pollSnapshot(d)
	if w, ok := expiredWarning(s, "acq:b"); ok {
		t.Errorf("our lock deleted with 30s of validity left is called expired: %+v", w)
	}
	lost := false
	for _, w := range s.Warnings {
		lost = lost || w.Kind == monitor.WarnLockLost && w.Resource == "acq:b" && w.Severity == monitor.SeverityError
	}
	if !lost {
		t.Errorf("our lock deleted before its TTL is not an error %q: %+v", monitor.WarnLockLost, s.Warnings)
	}
}
