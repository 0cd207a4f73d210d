package main

import (
	"bytes"
	"flag"
	"go/format"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ui/uitest/keymap.go from keymap.go")

// uitestKeyMap is the path of the UI tests' copy of the key bindings.
const uitestKeyMap = "ui/uitest/keymap.go"

// uitestCopy is keymap.go as the UI's tests use it: package uitest, newKeyMap exported as KeyMap. The UI's
// tests cannot import package main, and their screens must show the keys users press.
func uitestCopy(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("keymap.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for old, repl := range map[string]string{
		"package main\n": "// Code generated from keymap.go by TestUITestsUseTheRealKeyMap -update. DO NOT EDIT.\n\n" +
			"package uitest\n",
		"// newKeyMap returns":       "// KeyMap returns",
		"func newKeyMap() ui.KeyMap": "func KeyMap() ui.KeyMap",
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("keymap.go has no %q: update uitestCopy", old)
		}
		s = strings.Replace(s, old, repl, 1)
	}
	out, err := format.Source([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUITestsUseTheRealKeyMap checks that the key bindings the UI's tests press and their golden screens
// show are keymap.go's, to the byte (go test -run TestUITestsUseTheRealKeyMap -update rewrites the copy).
func TestUITestsUseTheRealKeyMap(t *testing.T) {
	want := uitestCopy(t)
	if *update {
		if err := os.WriteFile(uitestKeyMap, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(uitestKeyMap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not keymap.go's bindings: run go test -run TestUITestsUseTheRealKeyMap -update .", uitestKeyMap)
	}
}
