package ui_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// These tests check that our own locks stay ours until they are proven gone: a release or an extension that the
// masters did not confirm leaves the lock listed with what happened and the validity it has left.

// clusterOver is a cluster whose Redlock client talks through lockClients and whose monitor reads through
// monClients, aligned with addrs.
func clusterOver(t *testing.T, lockClients, monClients []*redis.Client, addrs []string) *cluster {
	// A generous node timeout: the suite runs beside others under -race on two cores.
	locker, err := redlock.New(lockClients, redlock.WithNodeTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locker.Close)
	return watched(t, monClients, addrs, locker, monitor.Config{Interval: 50 * time.Millisecond})
}

// newPausableCluster starts three masters and returns them with a cluster over them, so that a test can pause
// some.
func newPausableCluster(t *testing.T) (*cluster, []redlocktest.Master) {
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := make([]string, len(masters))
	for i, m := range masters {
		addrs[i] = m.Addr()
		t.Cleanup(func() { _ = m.Resume() })
	}
	return clusterOver(t, clients, clients, addrs), masters
}

// aclUser is the ACL user the Redlock client of an ACL cluster logs in as.
const aclUser, aclPassword = "locker", "locker-secret"

// aclCluster is three redis-server masters on which the Redlock client logs in as aclUser. After denyScripts
// the user may still acquire (SET) but not run scripts (EVALSHA, EVAL): every release and extension fails with
// NOPERM while the keys stay, until allowScripts. The monitor reads as the default user.
type aclCluster struct {
	*cluster
	admins []*redis.Client
}

// newACLCluster starts the masters; it skips the test where there is no redis-server (embedded masters have no
// ACLs) unless REDLOCK_TEST_REDIS=required.
func newACLCluster(t *testing.T) *aclCluster {
	if redlocktest.Backend() != "redis-server" {
		t.Skip("ACL users need redis-server")
	}
	servers := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{})
	a := &aclCluster{}
	var users []*redis.Client
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
		admin := s.NewClient()
		user := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: aclUser, Password: aclPassword,
			ContextTimeoutEnabled: true, DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond,
			WriteTimeout: 500 * time.Millisecond, MaxRetries: -1})
		t.Cleanup(func() { _ = admin.Close(); _ = user.Close() })
		a.admins, users = append(a.admins, admin), append(users, user)
	}
	a.cluster = clusterOver(t, users, a.admins, addrs)
	a.acl("on", ">"+aclPassword, "~*", "+@all")
	return a
}

// acl applies ACL SETUSER rules for aclUser on every master.
func (a *aclCluster) acl(rules ...string) {
	a.t.Helper()
	args := []any{"ACL", "SETUSER", aclUser}
	for _, r := range rules {
		args = append(args, r)
	}
	for i, c := range a.admins {
		if err := c.Do(context.Background(), args...).Err(); err != nil {
			a.t.Fatalf("ACL SETUSER on master %d: %v", i+1, err)
		}
	}
}

// denyScripts forbids aclUser to run scripts: releases and extensions fail from now on. Acquisitions are left
// to work normally first, so that an acquisition's cleanup is never refused.
func (a *aclCluster) denyScripts() { a.acl("-@scripting") }

// allowScripts lets aclUser run scripts again: releases and extensions work from now on.
func (a *aclCluster) allowScripts() { a.acl("+@scripting") }

// waitDenied waits until master 1 has refused a command of aclUser since the ACL log was last reset.
func (a *aclCluster) waitDenied() {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		entries, err := a.admins[0].Do(context.Background(), "ACL", "LOG").Slice()
		if err != nil {
			a.t.Fatalf("ACL LOG: %v", err)
		}
		if len(entries) > 0 {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatal("no command of the ACL user was refused within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// resetDenied clears the ACL log of master 1.
func (a *aclCluster) resetDenied() {
	a.t.Helper()
	if err := a.admins[0].Do(context.Background(), "ACL", "LOG", "RESET").Err(); err != nil {
		a.t.Fatalf("ACL LOG RESET: %v", err)
	}
}

// heldOnQuorum waits until a quorum of masters holds key with one token and returns it, failing after 5s. A
// round is decided at quorum: on a loaded machine the last master's SET may time out and be cleaned up.
func (c *cluster) heldOnQuorum(key string) string {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		vals := c.values(key)
		count := map[string]int{}
		for _, v := range vals {
			if v != "" {
				count[v]++
			}
		}
		for v, n := range count {
			if n >= len(vals)/2+1 {
				return v
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s is not held with one token on a quorum of masters: %q", key, vals)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// oursRow returns the line of our locks panel (the bottom left quarter of the 140-column screen) that shows
// resource, or "" when none does.
func oursRow(view, resource string) string {
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, resource) && strings.Contains(line, " ext ") {
			return line
		}
	}
	return ""
}

// wantOurs fails unless our locks panel lists resource in state and does not say it is lost.
func wantOurs(t *testing.T, view, resource, state string) {
	t.Helper()
	row := oursRow(view, resource)
	switch {
	case row == "":
		t.Fatalf("%s is not in our locks any more:\n%s", resource, view)
	case !strings.Contains(row, state):
		t.Fatalf("%s is not shown %q in our locks: %q\n%s", resource, state, row, view)
	}
}

// waitDone waits until our locks panel no longer shows resource busy with what ("releasing", ...), or no longer
// lists it.
func (d *driver) waitDone(resource, what string) {
	d.t.Helper()
	d.waitFor(what+" "+resource+" to end", func(v string) bool {
		row := oursRow(v, resource)
		return row == "" || !strings.Contains(row, what)
	})
}

// wantNotLost fails if the screen calls resource lost anywhere: our locks, the locks panel, the banner, the log.
func wantNotLost(t *testing.T, view, resource string) {
	t.Helper()
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, resource) && strings.Contains(strings.ReplaceAll(line, "not lost", ""), "lost") ||
			strings.Contains(line, "LOST") {
			t.Fatalf("the screen says %s is lost while its keys hold: %q\n%s", resource, line, view)
		}
	}
}

func TestUnconfirmedReleaseKeepsTheLockOursUntilARetryIsConfirmed(t *testing.T) {
	c := newACLCluster(t)
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.acquire("acl:job")
	token := c.heldOnQuorum("acl:job")
	c.denyScripts()

	d.press("tab", "r") // our locks, then release: every master refuses the script
	d.waitDone("acl:job", "releasing")
	view := d.m.View()
	if !strings.Contains(view, "release of acl:job unconfirmed") {
		t.Errorf("the status line does not say the release was not confirmed:\n%s", view)
	}
	wantOurs(t, view, "acl:job", "unconfirmed")
	if !strings.Contains(view, "Our locks 1 · 1 release unconfirmed") {
		t.Errorf("our locks panel does not count the unconfirmed release:\n%s", view)
	}
	if got := c.heldOnQuorum("acl:job"); got != token {
		t.Fatalf("the token changed: %q, want %q", got, token)
	}

	// Still ours: the locks panel refuses to force-delete it.
	c.poll(d)
	d.press("shift+tab", "D")
	d.waitView("delete: acl:job is ours: r releases it")

	c.allowScripts()
	d.press("tab", "r") // r tries the release again
	d.waitView("released acl:job")
	c.goneEverywhere("acl:job")
	if row := oursRow(d.m.View(), "acl:job"); row != "" {
		t.Errorf("the lock is still ours after a confirmed release: %q", row)
	}
}

func TestReleaseWithAMajorityPausedStaysOurs(t *testing.T) {
	t.Parallel()
	c, masters := newPausableCluster(t)
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.acquire("paused:job")
	c.heldOnQuorum("paused:job")

	for _, m := range masters[1:] {
		if err := m.Pause(); err != nil {
			t.Fatal(err)
		}
	}
	d.press("tab", "r")
	d.waitDone("paused:job", "releasing")
	wantOurs(t, d.m.View(), "paused:job", "unconfirmed")

	for _, m := range masters[1:] { // the queued releases run now
		if err := m.Resume(); err != nil {
			t.Fatal(err)
		}
	}
	d.press("r")
	d.waitView("released paused:job")
	c.goneEverywhere("paused:job")
	if row := oursRow(d.m.View(), "paused:job"); row != "" {
		t.Errorf("the lock is still ours after a confirmed release: %q", row)
	}
}

func TestQuitCountsAnUnconfirmedRelease(t *testing.T) {
	t.Parallel()
	c := newACLCluster(t)
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.acquire("acl:quit")
	c.heldOnQuorum("acl:quit")
	c.denyScripts()
	d.press("tab", "r")
	d.waitDone("acl:quit", "releasing")

	d.press("q", "enter") // quitting while holding locks asks first
	d.waitFor("quit", func(string) bool { return d.quit })
	got := d.m.Summary()
	if !strings.Contains(got, "1 still held") || !strings.Contains(got, "unconfirmed") {
		t.Errorf("summary %q does not count the lock whose release was not confirmed", got)
	}
	c.heldOnQuorum("acl:quit")
}

func TestQuitRetriesAnUnconfirmedRelease(t *testing.T) {
	t.Parallel()
	c := newACLCluster(t)
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.acquire("acl:retry")
	c.heldOnQuorum("acl:retry")
	c.denyScripts()
	d.press("tab", "r")
	d.waitDone("acl:retry", "releasing")

	c.resetDenied()
	d.press("q", "enter") // quitting while holding locks asks first
	// The quit's first release was refused: only a retry can release the lock now.
	c.waitDenied()
	c.allowScripts()
	d.waitFor("quit", func(string) bool { return d.quit })
	if got, want := d.m.Summary(), "released 1 lock; 0 still held"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	// The retry released it on a quorum. The ACL changes one master after another, so a retry sent between
	// two of them may still be refused by one master, which then keeps the key until its TTL.
	var left int
	for _, v := range c.values("acl:retry") {
		if v != "" {
			left++
		}
	}
	if quorum := len(c.clients)/2 + 1; len(c.clients)-left < quorum {
		t.Errorf("acl:retry is still on %d of %d masters: released on fewer than a quorum", left, len(c.clients))
	}
}

func TestExtendFailingWithErrorsIsNotLost(t *testing.T) {
	t.Parallel()
	c := newACLCluster(t)
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.acquire("acl:ext")
	token := c.heldOnQuorum("acl:ext")
	c.denyScripts()

	d.press("tab", "e")
	d.waitView("extend acl:ext failed")
	view := d.m.View()
	wantNotLost(t, view, "acl:ext")
	wantOurs(t, view, "acl:ext", "ext failed")
	if !strings.Contains(view, "not lost, valid ") {
		t.Errorf("the status line does not say the lock is not lost and how long it stays valid:\n%s", view)
	}
	if got := c.heldOnQuorum("acl:ext"); got != token {
		t.Fatalf("the token changed: %q, want %q", got, token)
	}
	c.poll(d)
	wantNotLost(t, d.m.View(), "acl:ext")

	// The lock is still held: once the masters run scripts again, extending it works.
	c.allowScripts()
	d.press("e")
	d.waitView("extended acl:ext")
	wantOurs(t, d.m.View(), "acl:ext", "held")
	if got := c.heldOnQuorum("acl:ext"); got != token {
		t.Fatalf("the token changed after the extension: %q, want %q", got, token)
	}
}

func TestAutoExtendFailingWithErrorsIsNotLost(t *testing.T) {
	t.Parallel()
	c := newACLCluster(t)
	d := c.dashboard(ui.Options{TTL: 3 * time.Second}) // the keeper extends after 2s
	d.exec(d.m.Init())                                 // ticks refresh our locks while the keeper tries again
	d.acquire("acl:auto")
	c.heldOnQuorum("acl:auto")
	c.denyScripts()
	d.press("tab", "x")
	d.waitView("auto-extend on for acl:auto")
	d.waitFor("the keeper's extension to fail", func(v string) bool {
		return strings.Contains(oursRow(v, "acl:auto"), "ext failed")
	})
	view := d.m.View()
	wantNotLost(t, view, "acl:auto")
	if !strings.Contains(view, "auto-extend acl:auto failed") {
		t.Errorf("the event log does not say the auto-extension failed:\n%s", view)
	}
	// The keeper tries again until the validity runs out: then the lock expired, which is not a loss to others.
	// The row says so on the tick that finds the validity over, the log once the keeper has given up: both come.
	d.waitFor("the lock's validity to run out, and the screen to say so after failed extensions", func(v string) bool {
		return strings.Contains(oursRow(v, "acl:auto"), "expired") && strings.Contains(v, "its validity ran out after")
	})
	wantNotLost(t, d.m.View(), "acl:auto")
}

func TestNewLockIsNeverReportedLostByAPollThatBeganBeforeIt(t *testing.T) {
	t.Parallel()
	c, masters := newPausableCluster(t)
	if err := masters[2].Pause(); err != nil { // every poll now waits for it until the monitor's timeout
		t.Fatal(err)
	}
	d := c.dashboard(ui.Options{TTL: 30 * time.Second})
	d.exec(d.m.Init())
	d.waitView(masters[0].Addr()) // the monitor loop runs: a poll is under way whenever a lock is acquired

	for i := range 4 {
		resource := fmt.Sprintf("fresh:%d", i)
		d.submitAcquire(resource)
		// Until a poll that began after the acquisition shows the lock held by us, no screen may call it lost.
		deadline := time.After(20 * time.Second)
		for !shownOursInLocks(d.m.View(), resource) {
			wantNotLost(t, d.m.View(), resource)
			select {
			case msg := <-d.msgs:
				d.update(msg)
			case <-deadline:
				t.Fatalf("%s never shown held by us; the screen:\n%s", resource, d.m.View())
			}
		}
		wantNotLost(t, d.m.View(), resource)
	}
}

// shownOursInLocks reports whether the locks panel shows resource held by us.
func shownOursInLocks(view, resource string) bool {
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, resource) && strings.Contains(line, "you") && strings.Contains(line, "held") {
			return true
		}
	}
	return false
}

// TestOurLocksTellHowLongTheAcquisitionWaited acquires a lock another holder keeps for a moment: the event log
// says after how many rounds and how long it was won, and Our locks, under its rows, the same.
func TestOurLocksTellHowLongTheAcquisitionWaited(t *testing.T) {
	t.Parallel()
	c := newCluster(t, redlock.WithRetries(1000), redlock.WithRetryDelay(10*time.Millisecond, 30*time.Millisecond))
	c.set("jobs:queued", "someone-else", 600*time.Millisecond)
	d := c.dashboard(ui.Options{TTL: 10 * time.Second})
	d.submitAcquire("jobs:queued")
	d.waitView("acquired jobs:queued after ")
	view := d.m.View()
	logged := regexp.MustCompile(`acquired jobs:queued after (\d+) rounds \(([^)]+)\)`).FindStringSubmatch(view)
	row := regexp.MustCompile(`jobs:queued acquired \d\d:\d\d:\d\d after (\d+) rounds \(([^)]+)\)`).FindStringSubmatch(view)
	if logged == nil || row == nil {
		t.Fatalf("the wait is not in both the log and Our locks:\n%s", view)
	}
	if logged[1] != row[1] || logged[2] != row[2] || logged[1] == "1" {
		t.Errorf("log says %s rounds in %s, Our locks %s rounds in %s: want the same, over 1 round", logged[1], logged[2], row[1], row[2])
	}
}
