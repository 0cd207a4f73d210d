package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Habits that users bring from other tools: redis-cli's connection flags, and the help subcommand that shell
// completion offers (cobra adds it to the command tree the completions are made from).

// redisCLIHabit returns a usage error pointing to this program's way when args (before a "--") use one of
// redis-cli's connection flags, which are not flags here or mean something else: -h HOST (here -h is help),
// -p PORT (here -P is a profile), -a PASSWORD and -u URL. It returns nil when none is used. The values of fs's
// flags are skipped, so that a value is never taken for a flag. A password given with -a is never repeated in
// the message.
func redisCLIHabit(args []string, fs *pflag.FlagSet) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		if takesValue(a, fs) {
			i++
			continue
		}
		if a == "-h" && next != "" && !strings.HasPrefix(next, "-") {
			return usagef("-h is --help here; redis-cli's -h HOST -p PORT is -m HOST:PORT (e.g. -m %s:%s; "+
				"several masters as a comma list)", hostOf(next), portIn(args))
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		value := a[2:] // -p7601, -ax
		if value == "" {
			value = next
		}
		switch a[1] {
		case 'p':
			return usagef("-p: redis-cli's port is part of each master here: -m HOST:PORT (e.g. -m %s:%s; "+
				"several masters as a comma list); -P names a profile", hostIn(args), portIn(args))
		case 'a':
			return usagef("-a: a password on the command line shows in the process list: give --password-file " +
				"FILE (a file only you can read; in a profile, password_file), or set $REDISCLI_AUTH (as redis-cli " +
				"reads it); a password in a -m URL shows in the process list too")
		case 'u':
			return usagef("-u: redis-cli's URL is a master here: -m redis://[USER[:PASSWORD]@]HOST:PORT " +
				"(rediss:// for TLS; several masters as a comma list)")
		}
	}
	return nil
}

// takesValue reports whether arg is one of fs's flags that takes its value from the next argument: --name or
// -x without "=" or an attached value, for a flag that is not a boolean.
func takesValue(arg string, fs *pflag.FlagSet) bool {
	var f *pflag.Flag
	switch {
	case strings.HasPrefix(arg, "--") && !strings.Contains(arg, "="):
		f = fs.Lookup(arg[2:])
	case len(arg) == 2 && arg[0] == '-':
		f = fs.ShorthandLookup(arg[1:])
	}
	return f != nil && f.Value.Type() != "bool"
}

// hostOf is the host of a redis-cli -h value for the example in the message: the value when it looks like a
// host name or an address, else a placeholder, so that no stray text is echoed.
func hostOf(s string) string {
	if s == "" || len(s) > 253 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '.' || r == '-' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return "HOST"
	}
	return s
}

// portIn is the port a redis-cli -p in args gives (-p PORT or -pPORT), for the example in a message; 6379
// when there is none that is a port number.
func portIn(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return "6379"
		case a == "-p" && i+1 < len(args) && checkPort(args[i+1]) == nil:
			return args[i+1]
		case strings.HasPrefix(a, "-p") && checkPort(a[2:]) == nil:
			return a[2:]
		}
	}
	return "6379"
}

// hostIn is the host a redis-cli -h in args gives, for the example in a message; 127.0.0.1 when none.
func hostIn(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" && i+1 < len(args) && hostOf(args[i+1]) != "HOST" {
			return args[i+1]
		}
	}
	return "127.0.0.1"
}

// commands are the subcommands, as --help and help list them.
var commands = []struct{ name, what string }{
	{"run", "run a command while holding a lock (redlock-tui help run)"},
	{"replay", "the locks as a recording (--record) saw them, later (redlock-tui help replay)"},
	{"version", "print the version"},
	{"completion", "print the shell completion script: bash, zsh, fish or powershell"},
	{"man", "print the man page in roff (man run, man replay: theirs): redlock-tui man | man -l -"},
	{"help", "print this help, or a subcommand's (help run)"},
}

// commandsUsage lists the subcommands for --help.
func commandsUsage() string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.what)
	}
	return b.String()
}

// helpCommand answers "redlock-tui help [COMMAND]", as shell completion offers it: the program's help, run's,
// or the help of a subcommand cobra answers. It returns the exit status.
func helpCommand(args []string, sys system) int {
	if len(args) == 0 {
		fmt.Fprint(sys.stdout, usage())
		return ExitOK
	}
	if len(args) > 1 {
		fmt.Fprintf(sys.stderr, "redlock-tui: help takes one command, got %d (redlock-tui help [COMMAND])\n", len(args))
		return ExitUsage
	}
	switch args[0] {
	case "run":
		fmt.Fprint(sys.stdout, runUsage())
		return ExitOK
	case "replay":
		return replayCommand([]string{"--help"}, sys)
	case "help":
		fmt.Fprint(sys.stdout, usage())
		return ExitOK
	case "version":
		fmt.Fprintln(sys.stdout, "redlock-tui version: print the version and exit (also -v, --version)")
		return ExitOK
	case "completion", "man":
		return runGenerated([]string{args[0], "--help"}, sys)
	}
	err := usagef("help: no command %q (commands: %s)", args[0], strings.Join(commandNames(), ", "))
	if close := closeNames(args[0], commandNames()); len(close) > 0 {
		err = usagef("help: no command %q (did you mean help %s?)", args[0], strings.Join(close, " or help "))
	}
	fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
	return ExitUsage
}
