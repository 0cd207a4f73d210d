package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBashCompletionCompletesAfterSourcing sources the bash script as a user's shell would, checks that
// complete -p knows the program, and completes a flag through it, the binary on PATH.
func TestBashCompletionCompletesAfterSourcing(t *testing.T) {
	t.Parallel()
	const bashCompletion = "/usr/share/bash-completion/bash_completion" // Debian's bash-completion, as users have it
	if _, err := os.Stat(bashCompletion); err != nil {
		if os.Getenv("REDLOCK_TEST_REDIS") == "required" {
			t.Fatal("bash-completion is not installed (.ci/run installs it)")
		}
		t.Skip("bash-completion is not installed")
	}
	bin := buildBinary(t)
	script := `source ` + bashCompletion + `
source <(redlock-tui completion bash) || exit 1
complete -p redlock-tui || exit 1
COMP_WORDS=(redlock-tui --node-t); COMP_CWORD=1; COMP_LINE="redlock-tui --node-t"; COMP_POINT=${#COMP_LINE}
__start_redlock-tui
echo "offered: ${COMPREPLY[*]}"
COMP_WORDS=(redlock-tui run --gra); COMP_CWORD=2; COMP_LINE="redlock-tui run --gra"; COMP_POINT=${#COMP_LINE}
__start_redlock-tui
echo "offered: ${COMPREPLY[*]}"`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	for _, want := range []string{"complete -o default -F __start_redlock-tui redlock-tui", "offered: --node-timeout",
		"offered: --grace"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bash completion: no %q in\n%s", want, out)
		}
	}
}
