package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// generated are the subcommands that cobra answers: the shell completion scripts, the requests those scripts
// make while the user types (cobra's __complete), and the man pages.
var generated = map[string]bool{"completion": true, "__complete": true, "__completeNoDesc": true, "man": true}

// commandTree is the command line as cobra sees it, built from the very flag sets the parser uses, so that
// completions and the man page offer exactly the flags there are; the man page lists keys, the dashboard's
// key bindings. It only describes: the program runs through run, never through these commands' Run
// functions, which do nothing.
func commandTree(stdout io.Writer, env Environment, release string, keys kit.KeyMap) *cobra.Command {
	nothing := func(*cobra.Command, []string) {}
	var dashboardFlags flagValues
	root := &cobra.Command{
		Use:   "redlock-tui",
		Short: "a terminal dashboard for Redlock distributed locks across N Redis masters",
		Long: "redlock-tui watches N independent Redis masters for lock keys, their holders' tokens and their TTLs, " +
			"and shows which locks hold a quorum, which are split or half-acquired, how far each master's clock has " +
			"drifted, and which masters are down. Operators acquire, extend and release locks from it. Without " +
			"--masters it starts embedded demo masters and a workload. With --once it prints one snapshot; with " +
			"--headless it serves metrics and an event stream.",
		Run:               nothing,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
	}
	root.Flags().AddFlagSet(newFlagSet(dashboardGroups, &dashboardFlags))
	_ = root.RegisterFlagCompletionFunc("profile", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return profileNames(c.Flag("config").Value.String(), env), cobra.ShellCompDirectiveNoFileComp
	})

	var runFlags flagValues
	var rc runConfig
	runSet := newRunFlagSet(&runFlags, &rc)
	runCmd := &cobra.Command{
		Use:   "run [flags] RESOURCE -- COMMAND [ARGS...]",
		Short: "run a command while holding a Redlock lock on your masters",
		Long: "run acquires the lock, extends it while the command runs, and releases it when the command exits; " +
			"when the lock is lost the command's process group is terminated, and when run dies a watchdog kills " +
			"it. Exit status: the command's; 2 bad usage; 75 not acquired; 76 lost; 126 and 127 not started.",
		Run: nothing,
	}
	runCmd.Flags().AddFlagSet(runSet)
	_ = runCmd.RegisterFlagCompletionFunc("profile", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return profileNames(c.Flag("config").Value.String(), env), cobra.ShellCompDirectiveNoFileComp
	})

	var replayFlags replayConfig
	replayCmd := &cobra.Command{
		Use:   "replay FILE [--at TIME] [--json | --markdown]",
		Short: "the locks as a recording (--record) saw them: its moments, or the locks at one of them",
		Long:  replayDescription,
		Run:   nothing,
	}
	replayCmd.Flags().AddFlagSet(newReplayFlagSet(&replayFlags))

	versionCmd := &cobra.Command{Use: "version", Short: "print the version and exit", Run: nothing}

	manCmd := &cobra.Command{
		Use:   "man [COMMAND]",
		Short: "print the man page of redlock-tui, or of one of its commands (man run, man replay), in roff",
		RunE: func(c *cobra.Command, args []string) error {
			page, sections := root, rootManSections(keys)
			if len(args) > 0 { // every page a SEE ALSO names: redlock-tui-completion-bash(1) is man completion bash
				sub, rest, err := root.Find(args)
				if err != nil || sub == root || len(rest) > 0 || !sub.IsAvailableCommand() {
					return fmt.Errorf("no man page for %q: redlock-tui man [COMMAND], where COMMAND is %s",
						strings.Join(args, " "), strings.Join(manPages(root), ", "))
				}
				page, sections = sub, nil
				switch sub {
				case runCmd:
					sections = runManSections()
				case replayCmd:
					sections = replayManSections()
				}
			}
			date := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // fixed, so the page does not change with the day
			return writeManPage(stdout, page, &doc.GenManHeader{Title: "REDLOCK-TUI", Section: "1", Source: "redlock-tui " +
				buildVersion(release), Manual: "User Commands", Date: &date}, sections)
		},
	}
	for _, c := range []*cobra.Command{root, runCmd} {
		_ = c.RegisterFlagCompletionFunc("key-format", completeKeyFormats)
	}
	root.AddCommand(runCmd, replayCmd, versionCmd, manCmd)
	root.SetOut(stdout)
	return root
}

// completeKeyFormats offers --key-format's conventions by name, and Laravel's for an app as a form to fill in.
func completeKeyFormats(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return append(monitor.KeyFormatNames(), "laravel:"), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// manPages are the commands that have a man page, as man takes them: "run", "completion bash".
func manPages(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				out = append(out, strings.TrimSpace(path+" "+sub.Name()))
				walk(sub, path+" "+sub.Name())
			}
		}
	}
	walk(root, "")
	return out
}

// runGenerated answers a subcommand of generated with cobra; it returns the exit status.
func runGenerated(args []string, sys system) int {
	tree := commandTree(sys.stdout, sys.Environment, sys.release, sys.keys)
	tree.SetErr(sys.stderr)
	tree.SetArgs(args)
	if err := tree.Execute(); err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}
