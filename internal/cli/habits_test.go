package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestRedisCLIFlagsPointToTheWayHere: redis-cli's -h HOST, -p PORT, -a PASSWORD and -u URL are refused with
// the way this program takes them (-m HOST:PORT, --password-file, $REDISCLI_AUTH, a URL), never with a bare "unknown shorthand
// flag", and a password given with -a is not repeated.
func TestRedisCLIFlagsPointToTheWayHere(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "7601"}, "-m 127.0.0.1:7601"},
		{[]string{"-p7601"}, "-m 127.0.0.1:7601"},
		{[]string{"-h", "10.0.0.1"}, "-h is --help here; redis-cli's -h HOST -p PORT is -m HOST:PORT (e.g. -m 10.0.0.1:6379"},
		{[]string{"-h", "10.0.0.1", "-p", "7601"}, "-m 10.0.0.1:7601"},
		{[]string{"-p", "7601", "-h", "10.0.0.1"}, "-m 10.0.0.1:7601"},
		{[]string{"-a", "hunter2"}, "set $REDISCLI_AUTH"},
		{[]string{"-ahunter2"}, "--password-file"},
		{[]string{"-u", "redis://:hunter2@h:1"}, "-m redis://[USER[:PASSWORD]@]HOST:PORT"},
		{[]string{"-m", "a:1", "-p", "7601"}, "-m HOST:PORT"},
		{[]string{"run", "-p", "7601", "job", "--", "true"}, "-m 127.0.0.1:7601"},
		{[]string{"run", "-h", "h1", "job", "--", "true"}, "-m h1:6379"},
		{[]string{"run", "-m", "a:1", "-a", "hunter2", "job", "--", "true"}, "$REDISCLI_AUTH"},
	} {
		code, stdout, stderr := runCapture(tc.args, fakeEnv(nil, nil))
		checkOneUsageLine(t, tc.args, code, stderr, tc.want, "hunter2")
		if strings.Contains(stderr, "unknown shorthand flag") || stdout != "" {
			t.Errorf("%q: stdout %q, stderr %q; want only the pointer on stderr", tc.args, stdout, stderr)
		}
	}
	// -a's advice: the safest first (a file, then the environment, which the processes run starts inherit),
	// and never a password in a URL on the command line, which shows in the process list as -a's does.
	_, _, stderr := runCapture([]string{"-a", "hunter2"}, fakeEnv(nil, nil))
	file, env := strings.Index(stderr, "--password-file"), strings.Index(stderr, "$REDISCLI_AUTH")
	if file < 0 || env < 0 || file > env || strings.Contains(stderr, "-m redis://:PASSWORD@") ||
		!strings.Contains(stderr, "a password in a -m URL shows in the process list too") {
		t.Errorf("-a: %q; want --password-file first, then $REDISCLI_AUTH, and a URL's password not advised", stderr)
	}
	// Not redis-cli's: help alone, a flag's value that looks like one of its flags, a command's own flags.
	for _, args := range [][]string{{"-h"}, {"--pattern", "-p", "--help"}, {"-m", "a:1", "--retry-delay", "-a", "-h"},
		{"run", "-h"}} {
		if code, stdout, stderr := runCapture(args, fakeEnv(nil, nil)); code != ExitOK || stdout == "" || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want the help, exit 0", args, code, stderr)
		}
	}
	if err := redisCLIHabit([]string{"job", "--", "psql", "-h", "db", "-p", "5432"}, newFlagSet(runGroups, &flagValues{})); err != nil {
		t.Errorf("the command's own -h and -p, after --, were taken for redis-cli's: %v", err)
	}
}

// TestHelpCommandAnswersWhatCompletionOffers: every subcommand that completion offers, help among them, works
// as "redlock-tui help COMMAND", and --help lists them all.
func TestHelpCommandAnswersWhatCompletionOffers(t *testing.T) {
	subcommands := offered(t, "")
	for _, want := range []string{"completion", "help", "man", "run", "version"} {
		if !slices.Contains(subcommands, want) {
			t.Errorf("completion offers %q; want %s among them", subcommands, want)
		}
	}
	_, usageText, _ := runCapture([]string{"--help"}, fakeEnv(nil, nil))
	for _, c := range subcommands {
		if !strings.Contains(usageText, "\n  "+c+" ") {
			t.Errorf("--help does not list the %s command:\n%s", c, usageText)
		}
		args := []string{"help", c}
		if code, stdout, stderr := runCapture(args, fakeEnv(nil, nil)); code != ExitOK || stdout == "" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want its help on stdout, exit 0", args, code, stdout, stderr)
		}
	}
	for args, want := range map[string]string{"help": usage(), "help run": runUsage(), "help help": usage()} {
		if code, stdout, _ := runCapture(strings.Fields(args), fakeEnv(nil, nil)); code != ExitOK || stdout != want {
			t.Errorf("%q: exit %d, printed\n%s\nwant the same as --help of that command", args, code, stdout)
		}
	}
	code, _, stderr := runCapture([]string{"help", "nosuch"}, fakeEnv(nil, nil))
	checkOneUsageLine(t, []string{"help", "nosuch"}, code, stderr, `no command "nosuch" (commands: run, replay, version, completion, man, help)`)
}
