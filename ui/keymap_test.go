package ui_test

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/redlock-tui/redlock-tui/ui"
)

// TestDefaultKeyMapGivesEveryBindingKeysAndHelp: no binding of the dashboard, the demo's and the replay's
// nested ones included, is left without keys to press or the help text the footer and the full help show.
func TestDefaultKeyMapGivesEveryBindingKeysAndHelp(t *testing.T) {
	var check func(v reflect.Value, prefix string)
	check = func(v reflect.Value, prefix string) {
		for i := range v.NumField() {
			name := prefix + v.Type().Field(i).Name
			b, ok := v.Field(i).Interface().(key.Binding)
			if !ok {
				check(v.Field(i), name+".")
				continue
			}
			if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("%s: keys %q, help %+v; want keys and both parts of the help", name, b.Keys(), b.Help())
			}
		}
	}
	check(reflect.ValueOf(ui.DefaultKeyMap()), "")
}
