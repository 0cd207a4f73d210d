package docgen

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/redlock-tui/redlock-tui/ui/kit"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// Titles of the full help's columns (ui.KeyMap.FullHelp), in their order: the dashboard's, then the demo's
// (DemoKeyMap.FullHelp), then the replay's (ReplayKeyMap.FullHelp). KeysPage fails when the help has another
// number of columns, so that a new column gets a title here.
var (
	dashboardColumns = []string{"Navigation", "Lock actions", "View", "Event log and polling", "App"}
	demoColumns      = []string{"Demo: faults on the selected master", "Demo: workload and scenarios"}
	replayColumns    = []string{"Replay: the time cursor"}
)

// Keys writes docs/keys.md from the key bindings keymap.go gives the dashboard (copied as uitest.KeyMap, which
// TestKeyMapIsKeymapGos checks against the program's own), grouped as the full help (?) groups them.
func Keys() ([]byte, error) {
	return KeysPage(uitest.KeyMap())
}

// KeysPage writes the keys page of km: each column of its full help as a table of keys and what they do. It
// fails when a binding of km is in no column, or the help has a column without a title.
func KeysPage(km kit.KeyMap) ([]byte, error) {
	all := km.FullHelp()
	demo := km.Demo.FullHelp()
	if len(all) != len(dashboardColumns)+len(demo)+len(replayColumns) || len(demo) != len(demoColumns) {
		return nil, fmt.Errorf("the full help has %d columns (%d of them the demo's); docgen titles %d and %d: "+
			"give the new column a title", len(all), len(demo), len(dashboardColumns), len(demoColumns))
	}
	if missing := notInHelp(reflect.ValueOf(km), "", all); len(missing) > 0 {
		return nil, fmt.Errorf("bindings in no column of the full help: %s", strings.Join(missing, ", "))
	}
	var b strings.Builder
	header(&b, "Key bindings", "keymap.go, grouped as ui.KeyMap.FullHelp groups them")
	b.WriteString("Every key of the dashboard, in the columns of its full help (`?`). The help shows only the keys " +
		"that can act in the current mode: the lock actions are hidden with `--read-only`, and the demo's keys " +
		"exist only in demo mode, the replay's only in `redlock-tui replay`. In a form a letter is a letter; the footer lists what acts right now. The " +
		"[dashboard](dashboard.md) page says more of what each does.\n")
	titles := append(append(slices.Clone(dashboardColumns), demoColumns...), replayColumns...)
	for i, col := range all {
		fmt.Fprintf(&b, "\n## %s\n\n| Keys | Shown as | Action |\n|---|---|---|\n", titles[i])
		for _, k := range col {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", keyNames(k.Keys()), code(k.Help().Key), cell(k.Help().Desc))
		}
	}
	return []byte(b.String()), nil
}

// keyNames writes the keys that trigger a binding, as Bubble Tea names them.
func keyNames(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if k == " " {
			k = "space"
		}
		out[i] = code(k)
	}
	return strings.Join(out, " ")
}

// notInHelp names the bindings of the key map v (nested ones as Demo.Crash) that no column of help holds.
func notInHelp(v reflect.Value, prefix string, help [][]key.Binding) []string {
	var missing []string
	for i := range v.NumField() {
		name := prefix + v.Type().Field(i).Name
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			missing = append(missing, notInHelp(v.Field(i), name+".", help)...)
			continue
		}
		found := false
		for _, col := range help {
			for _, h := range col {
				found = found || slices.Equal(h.Keys(), b.Keys()) && h.Help() == b.Help()
			}
		}
		if !found {
			missing = append(missing, name)
		}
	}
	return missing
}
