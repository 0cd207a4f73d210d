package main

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// TestKeyMapIsKeymapGos checks that the key bindings the UI's tests press, which go generate copies from
// keymap.go into ui/uitest, are the ones newKeyMap gives the program: every binding, keys and help, demo keys
// too. When it fails, run go generate ./ui/uitest.
func TestKeyMapIsKeymapGos(t *testing.T) {
	want, got := reflect.ValueOf(newKeyMap()), reflect.ValueOf(uitest.KeyMap())
	compareBindings(t, "", want, got)
}

// compareBindings compares the key.Binding fields of two key maps, recursing into nested ones.
func compareBindings(t *testing.T, prefix string, want, got reflect.Value) {
	t.Helper()
	for i := range want.NumField() {
		name := prefix + want.Type().Field(i).Name
		w, g := want.Field(i), got.Field(i)
		b, ok := w.Interface().(key.Binding)
		if !ok {
			compareBindings(t, name+".", w, g)
			continue
		}
		gb := g.Interface().(key.Binding)
		if len(b.Keys()) == 0 {
			t.Errorf("%s: keymap.go gives it no keys", name)
		}
		if !reflect.DeepEqual(b.Keys(), gb.Keys()) || b.Help() != gb.Help() {
			t.Errorf("%s: the UI's tests read keys %q help %+v; keymap.go gives %q %+v", name, gb.Keys(), gb.Help(),
				b.Keys(), b.Help())
		}
	}
}
