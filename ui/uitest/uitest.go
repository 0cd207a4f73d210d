// Package uitest holds what the UI's tests share: the dashboard's real key bindings. The tests cannot import
// package main, where keymap.go chooses every key, so go generate copies keymap.go's newKeyMap here as KeyMap
// (keymap_gen.go, by genkeymap); the root package's TestKeyMapIsKeymapGos fails when the copy is stale.
package uitest

//go:generate go run ./genkeymap ../../keymap.go keymap_gen.go
