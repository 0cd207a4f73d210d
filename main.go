// Command redlock-tui is a terminal dashboard for Redis distributed locks (Redlock).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "redlock-tui: the dashboard is not built yet; see README.md")
	os.Exit(1)
}
