package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestHeadlessFlagsBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"--headless"}, "--headless needs"},
		{[]string{"--headless", "--once", "--metrics", ":0"}, "exclude"},
		{[]string{"--events", "-"}, "needs --headless"}, // the dashboard owns standard output
		{[]string{"--headless", "--metrics", "nowhere"}, "--metrics"},
		{[]string{"--headless", "--events", "-", "--metrics-locks", "a"}, "--metrics-locks needs --metrics"},
		{[]string{"--headless", "--metrics", ":0", "--metrics-locks", "a,,b"}, "empty resource"},
	} {
		var stdout, stderr strings.Builder
		sys := system{Environment: Environment{Getenv: func(string) string { return "" }, ReadFile: os.ReadFile},
			stdout: &stdout, stderr: &stderr}
		code := run(append([]string{"-m", "localhost:1"}, tc.args...), sys)
		if code != ExitUsage || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
			!strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and one line mentioning %q",
				tc.args, code, stdout.String(), stderr.String(), ExitUsage, tc.want)
		}
	}
}

func TestRunBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"-m", "localhost:1", "res", "true"}, "put --"},
		{[]string{"-m", "localhost:1", "res", "--"}, "no command"},
		{[]string{"-m", "localhost:1", "res"}, "no command"},
		{[]string{"-m", "localhost:1", "--", "true"}, "no resource"},
		{[]string{"-m", "localhost:1"}, "no resource"},
		{[]string{"-m", "localhost:1", "a", "b", "--", "true"}, "one resource"},
		{[]string{"-m", "localhost:1", "", "--", "true"}, "resource must not be empty"},
		{[]string{"-m", "localhost:1", "res", "--", ""}, "command must not be empty"},
		{[]string{"res", "--", "true"}, "--masters"},
		{[]string{"-m", "localhost:1", "--once", "res", "--", "true"}, "--once"},
		{[]string{"-m", "localhost:1", "--wait", "-1s", "res", "--", "true"}, "--wait"},
		{[]string{"-m", "localhost:1", "--grace", "soon", "res", "--", "true"}, "--grace"},
		{[]string{"-m", "localhost:1", "--ttl", "0", "res", "--", "true"}, "--ttl"},
		{[]string{"-m", "localhost:1,127.0.0.1:1", "res", "--", "true"}, "same master"},
		{[]string{"-m", "localhost:1", "--password-file", "/nonexistent/pw", "res", "--", "true"}, "--password-file"},
	} {
		var stdout, stderr bytes.Buffer
		sys := system{Environment: Environment{Getenv: func(string) string { return "" }, ReadFile: os.ReadFile},
			stdout: &stdout, stderr: &stderr}
		code := run(append([]string{"run"}, tc.args...), sys)
		if code != ExitUsage || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
			!strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want %d and one line on stderr mentioning %q",
				tc.args, code, stdout.String(), stderr.String(), ExitUsage, tc.want)
		}
	}
}
