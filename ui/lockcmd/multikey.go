package lockcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// A lock over several keys (LockView.Keys: node-redlock's acquire(["X","Y"]) and bsm/redislock write one random
// token on each key) is one lock: force-deleting one key leaves the others held until the client releases them,
// and that release then fails. The confirmation names every key and deletes them together, each where it still
// holds the lock's token (compare-and-delete), unless the operator asks for the selected key alone.

// withOtherKeys makes c, the confirmation of row, one of a lock over several keys: it names the other keys and
// deletes them too, by lead, the token they share with the selected key. Nothing changes for a lock of one key,
// or when lead is not among the tokens to delete (ours).
func (c *DeleteConfirm) withOtherKeys(row *kit.LockRow, lead string) {
	if len(row.Lv.Keys) < 2 || !slices.Contains(c.tokens, lead) {
		return
	}
	c.lead = lead
	for _, k := range row.Lv.Keys {
		if k != c.resource {
			c.others = append(c.others, k)
		}
	}
	next := c.Shared.Keys.NextPanel
	next.SetHelp(next.Help().Key, "this key only / every key")
	c.Keys = []key.Binding{c.Shared.Keys.Confirm, c.Shared.Keys.Cancel, next}
}

// otherKeys are the keys deleted with the selected one: none when the operator asked for it alone.
func (c *DeleteConfirm) otherKeys() []string {
	if c.onlyThis {
		return nil
	}
	return c.others
}

// keysView names every key of a lock over several keys.
func (c *DeleteConfirm) keysView(inner int) []string {
	names := make([]string, 0, 1+len(c.others))
	for _, k := range append([]string{c.resource}, c.others...) {
		names = append(names, kit.Sanitize(k, kit.NameCap))
	}
	return kit.Labelled(c.Shared.St, "one lock", strings.Join(names, ", "), inner, c.Shared.St.Text.Normal)
}

// keysHint says what the deletion does to the keys of a lock over several keys.
func (c *DeleteConfirm) keysHint(hint func(string)) {
	tab := c.Shared.Keys.NextPanel.Help().Key
	if c.onlyThis {
		hint(fmt.Sprintf("Deletes %s alone: the lock stays held on %s until its client releases it, and that "+
			"release then fails. %s: every key.", c.name, kit.Sanitize(strings.Join(c.others, ", "), kit.TextCap), tab))
		return
	}
	hint(fmt.Sprintf("One lock over %d keys, one token on all: deletes every key where it still holds that "+
		"token; a key that changed holder meanwhile is left alone. %s: this key only.", 1+len(c.others), tab))
}
