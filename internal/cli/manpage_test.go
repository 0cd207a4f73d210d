package cli

import (
	"os"
	"os/exec"
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
