package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// TestManPageHasKeysExitStatusEnvironmentAndFiles renders the pages with man and finds the sections cobra
// does not write: the dashboard's keys (from the bindings main gives), the exit statuses, the environment and
// the files.
func TestManPageHasKeysExitStatusEnvironmentAndFiles(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		if os.Getenv("REDLOCK_TEST_REDIS") == "required" {
			t.Fatal("man is not on PATH (.ci/run installs man-db)")
		}
		t.Skip("man is not on PATH")
	}
	keys := uitest.KeyMap()
	for _, page := range []struct {
		args []string
		want []string
	}{
		{[]string{"man"}, []string{"KEYS", keys.Report.Help().Key, keys.Report.Help().Desc, keys.Demo.Crash.Help().Desc,
			keys.Quit.Help().Desc, "EXIT STATUS", "fewer than a quorum", "ENVIRONMENT", "REDISCLI_AUTH", "NO_COLOR",
			"FILES", "config.toml", "redlock-report-"}},
		{[]string{"man", "run"}, []string{"EXIT STATUS", "75", "--wait", "76", "127", "ENVIRONMENT", "REDISCLI_AUTH",
			"REDLOCK_TOKEN", "FILES", "config.toml"}},
		{[]string{"man", "replay"}, []string{"p plays and pauses", "--moments", "EXIT STATUS", "a later format version",
			"an --at outside the recording"}},
	} {
		var stdout, stderr strings.Builder
		code := run(page.args, system{Environment: fakeEnv(nil, nil), stdout: &stdout, stderr: &stderr, keys: keys})
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", page.args, code, stderr.String())
		}
		cmd := exec.Command("man", "-l", "-")
		cmd.Stdin = strings.NewReader(stdout.String())
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=200", "LANG=C.UTF-8")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("man -l: %v", err)
		}
		text := string(out)
		for _, w := range page.want {
			if !strings.Contains(text, w) {
				t.Errorf("%q: the rendered page does not say %q:\n%s", page.args, w, text)
			}
		}
		if strings.Index(text, "SEE ALSO") < strings.Index(text, "EXIT STATUS") {
			t.Errorf("%q: the added sections come after SEE ALSO", page.args)
		}
	}
}

// TestEveryPageSeeAlsoNamesIsPrinted: each page that a SEE ALSO names, from redlock-tui(1) on, is one that
// redlock-tui man prints (redlock-tui-replay(1) is man replay); a command without a page is refused with the
// ones there are.
func TestEveryPageSeeAlsoNamesIsPrinted(t *testing.T) {
	seeAlso := regexp.MustCompile(`\\fB(redlock-tui[a-z-]*)\(1\)\\fP`)
	seen := map[string]bool{"redlock-tui": true}
	for todo := []string{"redlock-tui"}; len(todo) > 0; todo = todo[1:] {
		page := todo[0]
		args := append([]string{"man"}, strings.Split(strings.TrimPrefix(strings.TrimPrefix(page, "redlock-tui"), "-"), "-")...)
		if page == "redlock-tui" {
			args = []string{"man"}
		}
		code, stdout, stderr := runCapture(args, fakeEnv(nil, nil))
		if code != ExitOK || !strings.Contains(stdout, ".SH NAME\n"+page+" - ") {
			t.Errorf("%s(1): %q exits %d, stderr %q, and prints:\n%.300s", page, args, code, stderr, stdout)
			continue
		}
		i := strings.Index(stdout, ".SH SEE ALSO")
		if i < 0 {
			t.Errorf("%s(1) has no SEE ALSO", page)
			continue
		}
		for _, m := range seeAlso.FindAllStringSubmatch(stdout[i:], -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				todo = append(todo, m[1])
			}
		}
	}
	for _, want := range []string{"redlock-tui-run", "redlock-tui-replay", "redlock-tui-version", "redlock-tui-man",
		"redlock-tui-completion", "redlock-tui-completion-bash"} {
		if !seen[want] {
			t.Errorf("no SEE ALSO names %s(1); named: %v", want, seen)
		}
	}
	code, _, stderr := runCapture([]string{"man", "nosuch"}, fakeEnv(nil, nil))
	checkOneUsageLine(t, []string{"man", "nosuch"}, code, stderr, `no man page for "nosuch": redlock-tui man [COMMAND], where COMMAND is completion, completion bash`)
	if !strings.Contains(stderr, "replay, run, version") {
		t.Errorf("man nosuch: %q does not list the pages there are", stderr)
	}
}
