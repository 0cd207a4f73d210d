package cli

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// Command describes one command of the command line for its reference page (docs/flags.md, written by
// internal/docgen): what is typed, what it does, and its flags in the groups its --help lists them under.
type Command struct {
	Name   string      // as typed: "redlock-tui", "redlock-tui run", "redlock-tui completion bash"
	Usage  string      // the synopsis, as cobra's UseLine gives it: "redlock-tui run [flags] RESOURCE -- ..."
	Short  string      // what the command does, in a line
	Groups []FlagGroup // its flags, by group; empty when it takes none
	// Vars are the REDLOCK_TUI_* variables its flags are also read from (EnvName), by flag name; nil for a
	// command that reads none (cobra's completion and man).
	Vars map[string]string
}

// FlagGroup is a titled group of a command's flags, in the order its help lists them.
type FlagGroup struct {
	Title string
	Flags []*pflag.Flag
}

// Commands returns every command of the program with its flags: the dashboard's (also --once and
// --headless) and run's from the very flag groups their parsers and --help compose, the others from the
// cobra tree that shell completion and the man pages are made from (completion's subcommands included).
func Commands() []Command {
	tree := commandTree(io.Discard, Environment{}, "", kit.KeyMap{})
	tree.InitDefaultCompletionCmd()

	var v flagValues
	var groups []FlagGroup
	for _, g := range dashboardGroups {
		groups = append(groups, FlagGroup{Title: g.title, Flags: flagsOf(newFlagSet([]flagGroup{g}, &v))})
	}
	out := []Command{{Name: tree.Name(), Usage: tree.UseLine(), Short: tree.Short, Groups: groups,
		Vars: envVars(newFlagSet(dashboardGroups, &v))}}
	listed := map[string]bool{}
	for _, sub := range commands { // in the order --help lists them
		listed[sub.name] = true
		c, _, err := tree.Find([]string{sub.name})
		switch {
		case err != nil || c == tree: // answered outside cobra: help
			out = append(out, Command{Name: tree.Name() + " " + sub.name, Usage: tree.Name() + " " + sub.name + " [COMMAND]",
				Short: sub.what})
		case sub.name == "run":
			var rv flagValues
			var rc runConfig
			out = append(out, Command{Name: c.CommandPath(), Usage: c.UseLine(), Short: c.Short, Groups: runFlagGroups(),
				Vars: envVars(newRunFlagSet(&rv, &rc))})
		case sub.name == "replay":
			var rc replayConfig
			cmd := cobraCommands(c)[0]
			cmd.Vars = envVars(newReplayFlagSet(&rc))
			out = append(out, cmd)
		default:
			out = append(out, cobraCommands(c)...)
		}
	}
	for _, c := range tree.Commands() { // any that --help does not list
		if !listed[c.Name()] {
			out = append(out, cobraCommands(c)...)
		}
	}
	return out
}

// runFlagGroups are run's flags by group, as runUsage lists them in one set: each shared group's flags with
// the words run gives them, then run's own.
func runFlagGroups() []FlagGroup {
	var v flagValues
	var rc runConfig
	all := newRunFlagSet(&v, &rc)
	seen := map[string]bool{}
	var out []FlagGroup
	for _, g := range runGroups {
		var scratch flagValues
		fg := FlagGroup{Title: g.title}
		for _, f := range flagsOf(newFlagSet([]flagGroup{g}, &scratch)) {
			fg.Flags = append(fg.Flags, all.Lookup(f.Name))
			seen[f.Name] = true
		}
		out = append(out, fg)
	}
	own := FlagGroup{Title: "Run"}
	for _, f := range flagsOf(all) {
		if !seen[f.Name] {
			own.Flags = append(own.Flags, f)
		}
	}
	return append(out, own)
}

// cobraCommands describes c and its subcommands, leaving out those cobra hides.
func cobraCommands(c *cobra.Command) []Command {
	if c.Hidden {
		return nil
	}
	cmd := Command{Name: c.CommandPath(), Usage: c.UseLine(), Short: c.Short}
	if flags := flagsOf(c.LocalFlags()); len(flags) > 0 {
		cmd.Groups = []FlagGroup{{Title: "Flags", Flags: flags}}
	}
	out := []Command{cmd}
	for _, sub := range c.Commands() {
		out = append(out, cobraCommands(sub)...)
	}
	return out
}

// flagsOf lists fs's flags in the order they were declared (or sorted, where fs sorts them), hidden ones
// left out.
func flagsOf(fs *pflag.FlagSet) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f)
		}
	})
	return out
}
