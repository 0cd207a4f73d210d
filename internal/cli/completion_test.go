package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// visibleFlags lists the flags of fs that help shows, as --name, and -x for a shorthand.
func visibleFlags(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		out = append(out, "--"+f.Name)
		if f.Shorthand != "" {
			out = append(out, "-"+f.Shorthand)
		}
	})
	slices.Sort(out)
	return out
}

// offered is what the completion requests of the shell scripts answer for args: the candidates, without
// their descriptions and cobra's closing directive lines.
func offered(t *testing.T, args ...string) []string {
	t.Helper()
	code, stdout, stderr := runCapture(append([]string{"__complete"}, args...), fakeEnv(nil, nil))
	if code != ExitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
	}
	var out []string
	for _, line := range strings.Split(stdout, "\n") {
		if line == "" || strings.HasPrefix(line, ":") || strings.HasPrefix(line, "Completion ended") {
			continue
		}
		out = append(out, strings.SplitN(line, "\t", 2)[0])
	}
	slices.Sort(out)
	return out
}

func TestCompletionOffersExactlyTheFlagsThereAre(t *testing.T) {
	var v flagValues
	if got, want := offered(t, "-"), visibleFlags(newFlagSet(dashboardGroups, &v)); !slices.Equal(got, want) {
		t.Errorf("completing a dashboard flag offers\n%q\nthe flag set has\n%q", got, want)
	}
	var rv flagValues
	var rc runConfig
	runSet := newRunFlagSet(&rv, &rc)
	if got, want := offered(t, "run", "-"), visibleFlags(runSet); !slices.Equal(got, want) {
		t.Errorf("completing a run flag offers\n%q\nrun's flag set has\n%q", got, want)
	}
	if got := offered(t, ""); !slices.Contains(got, "run") || !slices.Contains(got, "version") {
		t.Errorf("completing a subcommand offers %q; want run and version among them", got)
	}
}

// TestCompletionOffersTheKeyFormatsByName: --key-format completes to every client convention by name, for the
// dashboard and for run (issue 46), and to Laravel's form for an app's name.
func TestCompletionOffersTheKeyFormatsByName(t *testing.T) {
	for _, args := range [][]string{{"--masters", "a:1", "--key-format", ""}, {"run", "--key-format", ""}} {
		got := offered(t, args...)
		for _, want := range []string{"plain", "malkusch", "django-redis", "medusa", "laravel", "laravel:"} {
			if !slices.Contains(got, want) {
				t.Errorf("completing %q offers %q; want %s among them", args, got, want)
			}
		}
	}
}

func TestCompletionOffersTheProfilesOfTheConfigFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte("[profiles.prod]\nmasters = [\"a:1\"]\n[profiles.staging]\nmasters = [\"b:1\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := run([]string{"__complete", "--config", file, "--profile", ""},
		system{Environment: Environment{Getenv: os.Getenv, ReadFile: readInputFile, ConfigDir: os.UserConfigDir},
			stdout: &out, stderr: &out})
	if code != ExitOK || !strings.Contains(out.String(), "prod\nstaging\n") {
		t.Errorf("completing --profile: exit %d, %q; want prod and staging", code, out.String())
	}
}

func TestZshAndFishCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"zsh": "#compdef redlock-tui", "fish": "complete -c redlock-tui",
		"powershell": "Register-ArgumentCompleter"} {
		code, stdout, stderr := runCapture([]string{"completion", shell}, fakeEnv(nil, nil))
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("completion %s: exit %d, %s; want a script with %q", shell, code, stderr, want)
		}
	}
}

// TestManPageRenders renders both pages with man, as a user reads them, and finds every flag there.
func TestManPageRenders(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		if os.Getenv("REDLOCK_TEST_REDIS") == "required" {
			t.Fatal("man is not on PATH (.ci/run installs man-db)")
		}
		t.Skip("man is not on PATH")
	}
	var v, rv flagValues
	var rc runConfig
	runSet := newRunFlagSet(&rv, &rc)
	for _, page := range []struct {
		args  []string
		title string
		flags []string
	}{
		{[]string{"man"}, "REDLOCK-TUI(1)", visibleFlags(newFlagSet(dashboardGroups, &v))},
		{[]string{"man", "run"}, "redlock-tui-run - run a command while holding a Redlock lock", visibleFlags(runSet)},
	} {
		code, roff, stderr := runCapture(page.args, fakeEnv(nil, nil))
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", page.args, code, stderr)
		}
		cmd := exec.Command("man", "-l", "-")
		cmd.Stdin = strings.NewReader(roff)
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100", "LANG=C.UTF-8")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("man -l: %v", err)
		}
		text := string(out)
		if !strings.Contains(text, page.title) {
			t.Errorf("%q rendered without %q:\n%s", page.args, page.title, text)
		}
		for _, f := range page.flags {
			if strings.HasPrefix(f, "--") && !strings.Contains(text, f) {
				t.Errorf("%q: the rendered page does not mention %s", page.args, f)
			}
		}
	}
	if code, _, stderr := runCapture([]string{"man", "nosuch"}, fakeEnv(nil, nil)); code != ExitUsage || stderr == "" {
		t.Errorf("man nosuch: exit %d, stderr %q; want 2 and a message", code, stderr)
	}
}
