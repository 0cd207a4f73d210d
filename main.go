// Command redlock-tui is a terminal dashboard for Redis distributed locks
// (Redlock) across N independent masters: who holds what, on which masters,
// for how long, and what is wrong with the masters. Without --masters it
// starts embedded demo masters; with --once it prints one snapshot and exits.
// The command line lives in internal/cli; the key bindings in keymap.go.
package main

import (
	"os"

	"github.com/redlock-tui/redlock-tui/internal/cli"
)

// version is the release, set at build time with -ldflags "-X main.version=v1.2.3";
// empty means the module version from the build information.
var version string

func main() {
	os.Exit(cli.Main(os.Args[1:], newKeyMap(), version))
}
