package cli

import (
	"strings"
	"testing"
)

// TestMistypedCommandsAndFlagsAreToldWhatIsClose: a mistyped subcommand or flag exits 2 with one line naming
// what it is close to; what is close to nothing gets no guess.
func TestMistypedCommandsAndFlagsAreToldWhatIsClose(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for no guess
	}{
		{[]string{"rn"}, "did you mean redlock-tui run?"},
		{[]string{"replya"}, "did you mean redlock-tui replay?"},
		{[]string{"verison"}, "did you mean redlock-tui version?"},
		{[]string{"compl"}, "did you mean redlock-tui completion?"},
		{[]string{"help", "rn"}, "did you mean help run?"},
		{[]string{"--mastrs", "a:1"}, "unknown flag: --mastrs (did you mean --masters?)"},
		{[]string{"--pol", "1s"}, "(did you mean --poll?)"},
		{[]string{"--jsno", "--once"}, "(did you mean --json?)"},
		{[]string{"run", "--mastrs", "a:1", "job", "--", "true"}, "(did you mean --masters?)"},
		{[]string{"run", "-m", "a:1", "--wiat", "5s", "job", "--", "true"}, "(did you mean --wait?)"},
		{[]string{"replay", "f.rec", "--momnets"}, "(did you mean --moments?)"},
		{[]string{"localhost:6379"}, ""},
		{[]string{"ab"}, ""},
		{[]string{"--zzzzzzzz"}, ""},
	} {
		code, _, stderr := runCapture(tc.args, realEnv)
		if tc.want == "" {
			checkOneUsageLine(t, tc.args, code, stderr, "redlock-tui")
			if strings.Contains(stderr, "did you mean") {
				t.Errorf("%q: a guess for what is close to nothing: %q", tc.args, stderr)
			}
			continue
		}
		checkOneUsageLine(t, tc.args, code, stderr, tc.want)
	}
	// The dashboard's argument that is no command still says where masters go.
	_, _, stderr := runCapture([]string{"rn"}, realEnv)
	if !strings.Contains(stderr, "masters go in --masters") {
		t.Errorf("rn: %q does not say where masters go", stderr)
	}
}

func TestCloseNames(t *testing.T) {
	names := []string{"run", "replay", "version", "completion", "man", "help"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"rn", []string{"run"}}, {"RUN", []string{"run"}}, {"ran", []string{"run", "man"}}, {"x", nil}, {"ab", nil},
		{"rpelay", []string{"replay"}}, {"vers", []string{"version"}}, {"he", nil}, {"hlep", []string{"help"}},
	} {
		if got := closeNames(tc.typed, names); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("closeNames(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
