package ui_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// nodeToken is a token of node-redlock's shape: 16 random bytes in hex.
func nodeToken(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// confirmDelete opens the force-delete confirmation on the selected lock and waits for it to name every key of
// the lock (one lock over several keys).
func confirmDelete(d *driver, keys string) {
	d.t.Helper()
	d.press("D")
	d.waitView("Force-delete a lock that is not ours")
	d.waitView("one lock  " + keys)
}

// A lock over two keys, written as node-redlock writes it (one token on both, on every master): the confirmation
// names both keys and deletes them together, each where it holds that token; with tab, the selected key alone.
// confirmMultiKeyDelete sets one node-redlock token on jobs:a and jobs:b, shows them on a dashboard and opens
// the force-delete confirmation of jobs:a, which names both keys.
func confirmMultiKeyDelete(t *testing.T) (*cluster, *driver, string) {
	t.Helper()
	c := newCluster(t)
	token := nodeToken(t)
	c.set("jobs:a", token, time.Minute)
	c.set("jobs:b", token, time.Minute)
	d := c.dashboard(ui.Options{})
	c.poll(d)
	confirmDelete(d, "jobs:a, jobs:b")
	return c, d, token
}

func TestForceDeleteOfALockOverSeveralKeysDeletesThemTogether(t *testing.T) {
	c, d, _ := confirmMultiKeyDelete(t)
	d.waitView("One lock over 2 keys, one token on all")
	d.typeText("jobs:a")
	d.press("enter")
	d.waitView("force-delete jobs:a: 6 keys deleted")
	c.goneEverywhere("jobs:a")
	c.goneEverywhere("jobs:b")
}

func TestForceDeleteOfOneKeyOfALockOverSeveralKeysOnRequest(t *testing.T) {
	c, d, token := confirmMultiKeyDelete(t)
	d.press("tab")
	d.waitView("Deletes jobs:a alone: the lock stays held on jobs:b")
	d.typeText("jobs:a")
	d.press("enter")
	d.waitView("force-delete jobs:a: 3 keys deleted")
	c.goneEverywhere("jobs:a")
	if c.heldEverywhere("jobs:b") != token {
		t.Fatal("jobs:b lost its token though only jobs:a was to be deleted")
	}
}

// The other key of the lock changes holder after the confirmation went out: deleting together leaves it alone.
func TestForceDeleteTogetherLeavesAKeyThatChangedHolder(t *testing.T) {
	c, d, token := confirmMultiKeyDelete(t)
	d.typeText("jobs:a")
	newer := nodeToken(t)
	c.set("jobs:b", newer, time.Minute) // another client took jobs:b meanwhile
	d.press("enter")
	d.waitView("force-delete jobs:a: 3 keys deleted")
	c.goneEverywhere("jobs:a")
	if got := c.heldEverywhere("jobs:b"); got != newer {
		t.Fatalf("jobs:b holds %q, want its newer holder's %q untouched", got, newer)
	}
	d.waitView("delete jobs:b token " + token[:7] + "…: no master held it any more")
}

// A lock taken by the real node-redlock 4.2.0 over two keys (redlock.lock(["jobs:x","jobs:y"], ttl)): the
// confirmation names both.
func TestForceDeleteNamesEveryKeyOfANodeRedlockLock(t *testing.T) {
	const dir = "../monitor/testdata/noderedlock"
	if _, err := exec.LookPath("node"); err != nil || !exists(filepath.Join(dir, "node_modules", "redlock")) {
		if os.Getenv("REDLOCK_TEST_NODE") == "required" {
			t.Fatalf("REDLOCK_TEST_NODE=required but node-redlock is not installed: npm ci --prefix monitor/testdata/noderedlock")
		}
		t.Skip("node-redlock is not installed (npm ci --prefix monitor/testdata/noderedlock)")
	}
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := make([]string, len(masters))
	for i, m := range masters {
		addrs[i] = m.Addr()
	}
	out, err := exec.Command("node", append(append([]string{filepath.Join(dir, "multikey.js")}, addrs...), "--", "jobs:x", "jobs:y")...).Output()
	if err != nil {
		t.Fatalf("node-redlock: %v: %s", err, out)
	}
	var got struct{ Token string }
	if err := json.Unmarshal(out, &got); err != nil || got.Token == "" {
		t.Fatalf("node-redlock printed %q: %v", out, err)
	}
	locker, err := redlock.New(clients, redlock.WithNodeTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locker.Close)
	c := watched(t, clients, addrs, locker, monitor.Config{})
	d := c.dashboard(ui.Options{})
	c.poll(d)
	confirmDelete(d, "jobs:x, jobs:y")
	if !strings.Contains(d.m.View(), got.Token) {
		t.Errorf("the confirmation does not show node-redlock's token %s:\n%s", got.Token, d.m.View())
	}
}

// exists reports whether path names a file or directory.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
