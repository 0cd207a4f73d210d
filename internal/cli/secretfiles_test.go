package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsOthersMayReadAreWarnedOf: as ssh does with a private key, a password file (--password-file, a
// profile's password_file) or a config file holding a password in a master's URL that others may read, and a
// config file others may write (they would choose where the password goes), get a warning naming the file and
// the fix, chmod 600 FILE; the same files the owner's alone get none. Nothing is refused.
func TestSecretsOthersMayReadAreWarnedOf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return path
	}
	env := Environment{Getenv: func(string) string { return "" }, ReadFile: readInputFile, Stat: os.Stat,
		ConfigDir: func() (string, error) { return dir, nil }}
	profile := func(masters, extra string) string {
		return "[profiles.p]\nmasters = [" + masters + "]\n" + extra
	}
	for _, tc := range []struct {
		name string
		args func() []string
		want string // in the one warning; "" none
	}{
		{"password file others may read", func() []string {
			return []string{"-m", "a:1", "--password-file", write("pw-0644", "secret\n", 0o644)}
		}, "WARNING: --password-file " + dir + "/pw-0644: others may read it (mode 0644), and it holds the masters' password: chmod 600 " + dir + "/pw-0644"},
		{"password file of the owner's", func() []string {
			return []string{"-m", "a:1", "--password-file", write("pw-0600", "secret\n", 0o600)}
		}, ""},
		{"profile's password_file the group may read", func() []string {
			pw := write("pw-0640", "secret\n", 0o640)
			return []string{"--config", write("c1.toml", profile(`"a:1"`, "password_file = \""+pw+"\"\n"), 0o600), "--profile", "p"}
		}, `password_file ` + dir + "/pw-0640: others may read it (mode 0640)"},
		{"config file others may read with a password in a URL", func() []string {
			return []string{"--config", write("c2.toml", profile(`"redis://:hunter2@a:1"`, ""), 0o644), "--profile", "p"}
		}, "WARNING: --config " + dir + "/c2.toml: others may read it (mode 0644), and it holds a password in a master's URL: chmod 600 " + dir + "/c2.toml"},
		{"config file others may read without a secret", func() []string {
			return []string{"--config", write("c3.toml", profile(`"a:1"`, ""), 0o644), "--profile", "p"}
		}, ""},
		{"config file others may write", func() []string {
			return []string{"--config", write("c4.toml", profile(`"a:1"`, ""), 0o666), "--profile", "p"}
		}, "--config " + dir + "/c4.toml: others may write it (mode 0666), so they choose the masters your password is sent to: chmod 600"},
		{"config file of the owner's with a password in a URL", func() []string {
			return []string{"--config", write("c5.toml", profile(`"redis://:hunter2@a:1"`, ""), 0o600), "--profile", "p"}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args(), "--once")
			c, err := parseConfig(args, env)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && len(c.Warnings) > 0:
				t.Errorf("warnings %q; want none", c.Warnings)
			case tc.want != "" && (len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], tc.want)):
				t.Errorf("warnings %q; want one saying %q", c.Warnings, tc.want)
			}
		})
	}
	// The program says it on stderr, and goes on (a master that refuses at once: exit 3, no quorum).
	var stdout, stderr strings.Builder
	code := run([]string{"-m", "127.0.0.1:1", "--password-file", filepath.Join(dir, "pw-0644"), "--once"},
		system{Environment: env, stdout: &stdout, stderr: &stderr})
	if code != ExitNoQuorum || !strings.HasPrefix(stderr.String(), "redlock-tui: WARNING: --password-file "+dir+"/pw-0644") {
		t.Errorf("--once with a password file others may read: exit %d, stderr %q; want %d after the warning",
			code, stderr.String(), ExitNoQuorum)
	}
	// run reads the same files, and warns the same way.
	rc, err := parseRunConfig([]string{"-m", "a:1", "--password-file", filepath.Join(dir, "pw-0644"), "job", "--", "true"}, env)
	if err != nil || len(rc.Warnings) != 1 || !strings.Contains(rc.Warnings[0], "chmod 600 "+dir+"/pw-0644") {
		t.Errorf("run with a password file others may read: %v, warnings %q; want the warning", err, rc.Warnings)
	}
}
