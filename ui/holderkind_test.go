package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/ui"
)

// TestMedusaHoldersShownAsOwners shows locks written as Medusa's locking module writes them, on three real
// masters: "*" (acquire() without an owner) as anyone, the caller's owner id as an owner, and execute()'s
// "execute:<uuid>" as the token it is, in the locks panel and in the selected lock's detail.
func TestMedusaHoldersShownAsOwners(t *testing.T) {
	c := newCluster(t)
	execute := "execute:3fa85f64-5717-4562-b3fc-2c963f66afa6"
	c.set("medusa_lock:cart:1", "*", time.Minute)
	c.set("medusa_lock:cart:2", execute, time.Minute)
	c.set("medusa_lock:cart:3", "worker-7", time.Minute)
	d := c.dashboard(ui.Options{})
	c.poll(d)
	d.waitView("cart:3 (Medusa")
	view := d.m.View()
	// The panel's HOLDER column is narrow: the start of each holder says what it is.
	for key, holder := range map[string]string{"cart:1": "anyone", "cart:2": "execute", "cart:3": "owner w"} {
		if !screenRowHas(view, key+" (Medusa", holder) {
			t.Errorf("the row of %s does not show its holder as %q:\n%s", key, holder, view)
		}
	}
	// The detail of the selected lock names it in full: the first row is selected, then the next ones.
	for _, holder := range []string{"holder    anyone (*)", "holder    " + execute[:30], "holder    owner worker-7"} {
		d.waitView(holder)
		d.press("down")
	}
}

// screenRowHas reports whether a line of the screen names key and holds want.
func screenRowHas(view, key, want string) bool {
	for line := range strings.Lines(view) {
		if strings.Contains(line, key) && strings.Contains(line, want) {
			return true
		}
	}
	return false
}
