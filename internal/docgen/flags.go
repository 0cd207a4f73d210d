package docgen

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/internal/cli"
)

// Flags writes docs/flags.md: every command and its flags, in the groups its --help lists them under, as the
// command line declares them (cli.Commands).
func Flags() ([]byte, error) {
	var b strings.Builder
	header(&b, "Flags", "the command line's flag sets (internal/cli)")
	b.WriteString("Every flag of every command, grouped as `--help` groups them, with the `REDLOCK_TUI_*` variable " +
		"it is also read from. The dashboard, `--once` and " +
		"`--headless` share one set; `run` takes the connection, lock and debugging groups and its own. " +
		"[Usage](usage.md) says more of the main ones, with examples; `redlock-tui man` has the same as a man page.\n\n")
	cmds := cli.Commands()
	b.WriteString("## Commands\n\n| Command | What it does |\n|---|---|\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "| [%s](#%s) | %s |\n", code(c.Name), anchor(c.Name), cell(c.Short))
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n```\n%s\n```\n", c.Name, upperFirst(c.Short), c.Usage)
		if len(c.Groups) == 0 {
			b.WriteString("\nNo flags.\n")
		}
		if c.Vars != nil {
			b.WriteString("\nEach flag not given on the command line is read from its variable when that is set and not " +
				"empty ([settings from the environment](headless.md#settings-from-the-environment)).\n")
		}
		for _, g := range c.Groups {
			fmt.Fprintf(&b, "\n### %s: %s\n\n", c.Name, g.Title)
			if c.Vars == nil {
				b.WriteString("| Flag | Type | Default | Meaning |\n|---|---|---|---|\n")
			} else {
				b.WriteString("| Flag | Variable | Type | Default | Meaning |\n|---|---|---|---|---|\n")
			}
			for _, f := range g.Flags {
				if c.Vars == nil {
					fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", flagName(f), flagType(f), code(flagDefault(f)), cell(f.Usage))
				} else {
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", flagName(f), code(c.Vars[f.Name]), flagType(f),
						code(flagDefault(f)), cell(f.Usage))
				}
			}
		}
	}
	return []byte(b.String()), nil
}

// flagName is how a flag is written: its shorthand, if any, then its name.
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return code("-"+f.Shorthand) + ", " + code("--"+f.Name)
	}
	return code("--" + f.Name)
}

// flagType is the kind of value a flag takes, as pflag names it ("" for a switch).
func flagType(f *pflag.Flag) string {
	t := f.Value.Type()
	switch t {
	case "bool":
		return "switch"
	case "stringArray", "stringSlice":
		return "strings, repeatable"
	}
	return t
}

// flagDefault is a flag's default, "" when it has none worth saying (off, empty).
func flagDefault(f *pflag.Flag) string {
	switch d := f.DefValue; d {
	case "", "false", "[]":
		return ""
	default:
		return d
	}
}

// upperFirst is s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
