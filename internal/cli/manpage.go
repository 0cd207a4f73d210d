package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// The man pages are cobra's (name, synopsis, description, options), with the sections cobra does not write
// added before SEE ALSO: the dashboard's keys, made from the key bindings main chose, so that the page never
// disagrees with the help on screen; the exit statuses; the environment; the files.

// manSection is a section of a man page: its title and its roff body.
type manSection struct{ title, body string }

// writeManPage writes the man page of cmd with header, and sections added before SEE ALSO (or at the end).
func writeManPage(w io.Writer, cmd *cobra.Command, header *doc.GenManHeader, sections []manSection) error {
	var page bytes.Buffer
	if err := doc.GenMan(cmd, header, &page); err != nil {
		return err
	}
	var extra strings.Builder
	for _, s := range sections {
		if s.body != "" {
			fmt.Fprintf(&extra, ".SH %s\n%s\n", s.title, s.body)
		}
	}
	text := page.String()
	if i := strings.Index(text, ".SH SEE ALSO"); i >= 0 {
		text = text[:i] + extra.String() + "\n" + text[i:]
	} else {
		text += extra.String()
	}
	_, err := io.WriteString(w, text)
	return err
}

// rootManSections are the sections of redlock-tui(1) that cobra does not write.
func rootManSections(keys kit.KeyMap) []manSection {
	return []manSection{
		{"KEYS", keysSection(keys)},
		{"EXIT STATUS", definitions(
			"0", "success; with --once, a quorum of distinct servers answered",
			"1", "the program could not run (for example, the embedded masters did not start)",
			"2", "bad usage: one line on stderr naming the flag, before anything is connected or drawn",
			"3", "with --once: fewer than a quorum of distinct servers answered, or a Redis Cluster's primary did not",
		)},
		{"ENVIRONMENT", definitions(environment(false)...)},
		{"FILES", definitions(files(true)...)},
	}
}

// runManSections are the sections of redlock-tui-run(1) that cobra does not write.
func runManSections() []manSection {
	return []manSection{
		{"EXIT STATUS", definitions(
			"the command's", "when it ran to its end (128+N when signal N killed it)",
			"2", "bad usage, or a read_only profile (run writes: it takes a lock)",
			"75", "not acquired: another holder has the lock, or too few masters answered; --wait DURATION keeps trying that long",
			"76", "the lock was lost while the command ran (taken over, evicted, deleted or expired; stderr says which), and the command was ended",
			"126", "the command (or the watchdog) could not be started",
			"127", "the command was not found",
		)},
		{"ENVIRONMENT", definitions(append(environment(true),
			"REDLOCK_RESOURCE, REDLOCK_TOKEN, REDLOCK_VALID_UNTIL, REDLOCK_FENCE",
			"given to the command: the lock's key, its token, when it lapses unless extended (RFC 3339), and its fencing token with --fencing")...)},
		{"FILES", definitions(files(false)...)},
	}
}

// replayManSections are the sections of redlock-tui-replay(1) that cobra does not write.
func replayManSections() []manSection {
	return []manSection{
		{"EXIT STATUS", definitions(
			"0", "success",
			"1", "the recording could not be read (missing, cut short before its first poll, of a later format version, or "+
				"crafted), or printing failed",
			"2", "bad usage, or an --at outside the recording (the message names its span)",
		)},
	}
}

// environment lists the environment variables the program reads, as term and definition pairs; forRun leaves
// out what only the dashboard reads.
func environment(forRun bool) []string {
	env := []string{
		"REDLOCK_TUI_*", envHelp,
		"REDISCLI_AUTH", "the masters' password, as redis-cli reads it, for masters whose URL gives none, unless " +
			"--password-file (or a profile's password_env or password_file) gives one",
		"XDG_CONFIG_HOME", "where the profiles' file is looked for, on Linux (default ~/.config)",
	}
	if !forRun {
		env = append(env, "NO_COLOR", "when set, the dashboard draws without colours (every state keeps its glyph or word)",
			"COLORFGBG", "the terminal's colours (15;0: light on dark), read for --background auto where the terminal does not answer its background query")
	}
	return env
}

// files lists the files the program reads or writes unasked, as term and definition pairs; reports adds the
// dashboard's incident reports.
func files(reports bool) []string {
	out := []string{
		"~/.config/redlock-tui/config.toml", "the connection profiles (--profile); $XDG_CONFIG_HOME/redlock-tui/config.toml " +
			"where it is set, ~/Library/Application Support/redlock-tui/config.toml on macOS; --config names another",
	}
	if reports {
		out = append(out, "./redlock-report-YYYYMMDD-HHMMSS.md", "an incident report the dashboard saves on ctrl+s (mode 0600), "+
			"in the working directory; never over an existing file")
	}
	return out
}

// keysSection is the dashboard's keys as roff: each column of the full help, and the demo's.
func keysSection(k kit.KeyMap) string {
	demo := k.Demo.FullHelp()
	all := k.FullHelp()
	var b strings.Builder
	b.WriteString("In the dashboard, ? shows the keys that act in the mode it runs in. q and esc close the help, a view or a " +
		"dialog; on the main screen q quits, and asks first while the dashboard holds locks it acquired, which quitting releases.\n")
	b.WriteString(bindingList(all[:len(all)-len(demo)]))
	if demo := bindingList(demo); demo != "" {
		b.WriteString(".PP\nIn demo mode, the presenter's keys (faults hit the selected master):\n" + demo)
	}
	if !strings.Contains(b.String(), ".TP") {
		return ""
	}
	return b.String()
}

// bindingList is the bindings of columns as a roff list of key and what it does.
func bindingList(columns [][]key.Binding) string {
	var b strings.Builder
	for _, col := range columns {
		for _, kb := range col {
			if len(kb.Keys()) == 0 {
				continue
			}
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fP\n%s\n", roff(kb.Help().Key), roff(kb.Help().Desc))
		}
	}
	return b.String()
}

// definitions is a roff list of term and definition pairs.
func definitions(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fP\n%s\n", roff(pairs[i]), roff(pairs[i+1]))
	}
	return b.String()
}

// roff escapes text for a roff line: backslashes and minus signs, and a line that would start a request.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
