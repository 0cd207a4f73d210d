package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// defaultConfigPath is where fakeEnv's user keeps the profiles.
const defaultConfigPath = fakeConfigDir + "/redlock-tui/config.toml"

// prodProfile is a production profile that uses every key.
const prodProfile = `
[profiles.prod]
masters = ["10.0.0.1:6379", "redis://10.0.0.2:6379/2", "redis://bob@10.0.0.3:6379"]
user = "ops"
password_env = "PROD_PW"
tls = true
tls_ca_file = "ca.pem"
pattern = "lock:*"
production = true
color = "#ff5f5f"

[profiles.staging]
masters = ["s1:6379", "s2:6379", "s3:6379"]
password_file = "/run/secrets/staging"
read_only = true
color = "214"

[profiles.dev]
masters = ["127.0.0.1:7001", "127.0.0.1:7002", "redis://:own@127.0.0.1:7003"]
`

// profileFiles are the files of the profile tests: the config file in its default place, and the files it
// names (the CA relative to it).
func profileFiles(t *testing.T, config string) map[string]string {
	return map[string]string{
		defaultConfigPath:                     config,
		fakeConfigDir + "/redlock-tui/ca.pem": testCertPEM(t),
		"/run/secrets/staging":                "filesecret\n",
		"/tmp/other.toml":                     "[profiles.other]\nmasters = [\"o:1\"]\n",
		"/tmp/other-pw":                       "flagsecret\n",
	}
}

// masterNames lists the masters' screen names.
func masterNames(c Config) string {
	names := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		names[i] = m.Name
	}
	return strings.Join(names, " ")
}

// passwords lists the masters' passwords.
func passwords(c Config) string {
	pws := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		pws[i] = m.Options.Password
	}
	return strings.Join(pws, " ")
}

func TestProfileFillsTheConnectionSettings(t *testing.T) {
	vars := map[string]string{"PROD_PW": "envsecret", "REDISCLI_AUTH": "cliauth"}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, c Config)
	}{
		{"masters, user, password from the environment, TLS, pattern, production, colour", []string{"-P", "prod"},
			func(t *testing.T, c Config) {
				if got, want := masterNames(c), "rediss://10.0.0.1:6379 rediss://10.0.0.2:6379/2 rediss://10.0.0.3:6379"; got != want {
					t.Errorf("masters %q, want %q (tls = true makes every master rediss://)", got, want)
				}
				for i, want := range []string{"ops", "ops", "bob"} {
					o := c.Masters[i].Options
					if o.Username != want {
						t.Errorf("master %d: user %q, want %q (a URL's user wins over the profile's)", i+1, o.Username, want)
					}
					if o.Password != "envsecret" {
						t.Errorf("master %d: password %q, want the one in $PROD_PW", i+1, o.Password)
					}
					host := strings.Split(o.Addr, ":")[0]
					if o.TLSConfig == nil || o.TLSConfig.RootCAs == nil || o.TLSConfig.ServerName != host ||
						o.TLSConfig.InsecureSkipVerify {
						t.Errorf("master %d: TLS %+v, want the profile's CA (relative to the config file) and server name %s",
							i+1, o.TLSConfig, host)
					}
				}
				if c.Masters[1].Options.DB != 2 {
					t.Errorf("the /2 of a URL was lost: db %d", c.Masters[1].Options.DB)
				}
				if c.Pattern != "lock:*" || !c.ReadOnly || !c.Production || c.Profile != "prod" || c.ProfileColor != "#ff5f5f" {
					t.Errorf("pattern %q read-only %v production %v profile %q colour %q; want lock:*, true, true, prod, #ff5f5f",
						c.Pattern, c.ReadOnly, c.Production, c.Profile, c.ProfileColor)
				}
			}},
		{"password from a file, read-only, an ANSI colour", []string{"--profile", "staging"},
			func(t *testing.T, c Config) {
				if got := passwords(c); got != "filesecret filesecret filesecret" {
					t.Errorf("passwords %q, want the first line of password_file for each", got)
				}
				if !c.ReadOnly || c.Production || c.ProfileColor != "214" || c.Pattern != "*" {
					t.Errorf("read-only %v production %v colour %q pattern %q; want true, false, 214, the default *",
						c.ReadOnly, c.Production, c.ProfileColor, c.Pattern)
				}
				if c.Masters[0].Options.TLSConfig != nil || c.Masters[0].Options.Username != "" {
					t.Errorf("a profile without tls or user got TLS %v, user %q", c.Masters[0].Options.TLSConfig,
						c.Masters[0].Options.Username)
				}
			}},
		{"no password key: $REDISCLI_AUTH as without a profile, a URL's own password first", []string{"-P", "dev"},
			func(t *testing.T, c Config) {
				if got := passwords(c); got != "cliauth cliauth own" {
					t.Errorf("passwords %q, want cliauth cliauth own", got)
				}
				if c.ReadOnly || c.Production || c.ProfileColor != "" {
					t.Errorf("read-only %v production %v colour %q; want a writable, plain profile", c.ReadOnly,
						c.Production, c.ProfileColor)
				}
			}},
		{"--config points elsewhere", []string{"-P", "other", "--config", "/tmp/other.toml"},
			func(t *testing.T, c Config) {
				if got := masterNames(c); got != "o:1" || c.Profile != "other" {
					t.Errorf("masters %q profile %q, want o:1 from /tmp/other.toml", got, c.Profile)
				}
			}},
		{"the client settings are those of --masters", []string{"-P", "dev", "--node-timeout", "10ms"},
			func(t *testing.T, c Config) {
				for _, m := range c.Masters {
					if o := m.Options; !o.ContextTimeoutEnabled || o.MaxRetries != -1 || o.PoolSize != poolSize {
						t.Errorf("%s: %+v: want context deadlines, no retries, the small pool", m.Name, o)
					}
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, fakeEnv(vars, profileFiles(t, prodProfile)))
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tc.args, err)
			}
			tc.check(t, c)
		})
	}
}

func TestFlagsGivenWinOverTheProfile(t *testing.T) {
	vars := map[string]string{"PROD_PW": "envsecret"}
	tests := []struct {
		name  string
		args  []string
		check func(c Config) string // what is wrong, "" nothing
	}{
		{"--pattern", []string{"-P", "prod", "--pattern", "job:*"}, func(c Config) string {
			return unless(c.Pattern == "job:*", "pattern %q, want job:*", c.Pattern)
		}},
		{"--password-file over password_env", []string{"-P", "prod", "--password-file", "/tmp/other-pw"},
			func(c Config) string {
				return unless(passwords(c) == "flagsecret flagsecret flagsecret", "passwords %q, want flagsecret", passwords(c))
			}},
		{"--password-file over password_file", []string{"-P", "staging", "--password-file", "/tmp/other-pw"},
			func(c Config) string {
				return unless(passwords(c) == "flagsecret flagsecret flagsecret", "passwords %q, want flagsecret", passwords(c))
			}},
		{"--tls-skip-verify with a profile's TLS", []string{"-P", "prod", "--tls-skip-verify"}, func(c Config) string {
			return unless(c.Masters[0].Options.TLSConfig.InsecureSkipVerify, "certificates are still verified")
		}},
		{"--read-only=false over read_only", []string{"-P", "staging", "--read-only=false"}, func(c Config) string {
			return unless(!c.ReadOnly, "still read-only")
		}},
		{"--read-only over a writable profile", []string{"-P", "dev", "--read-only"}, func(c Config) string {
			return unless(c.ReadOnly, "not read-only")
		}},
		{"production starts read-only", []string{"-P", "prod"}, func(c Config) string {
			return unless(c.ReadOnly && c.Production, "read-only %v production %v, want both", c.ReadOnly, c.Production)
		}},
		{"--read-only=false overrides production", []string{"-P", "prod", "--read-only=false"}, func(c Config) string {
			return unless(!c.ReadOnly && c.Production, "read-only %v production %v, want writable and still marked production",
				c.ReadOnly, c.Production)
		}},
		{"--read-only=true with production", []string{"-P", "prod", "--read-only=true"}, func(c Config) string {
			return unless(c.ReadOnly, "not read-only")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, fakeEnv(vars, profileFiles(t, prodProfile)))
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tc.args, err)
			}
			if wrong := tc.check(c); wrong != "" {
				t.Errorf("%q: %s", tc.args, wrong)
			}
		})
	}
}

// unless is "" when ok, else the formatted complaint.
func unless(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func TestProductionIsReadOnlyEvenWhenItsProfileSaysReadOnlyFalse(t *testing.T) {
	config := "[profiles.p]\nmasters = [\"a:1\"]\nproduction = true\nread_only = false\n"
	c, err := parseConfig([]string{"-P", "p"}, fakeEnv(nil, map[string]string{defaultConfigPath: config}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.ReadOnly {
		t.Errorf("production = true with read_only = false starts writable; only --read-only=false may do that")
	}
}

func TestBadProfilesExitTwoWithOneClearLine(t *testing.T) {
	const header = "[profiles.prod]\nmasters = [\"a:1\", \"b:2\", \"c:3\"]\n"
	many := ""
	for i := range 15 {
		many += fmt.Sprintf("[profiles.p%02d]\nmasters = [\"a:1\"]\n", i)
	}
	tests := []struct {
		name   string
		config string // "" no config file at all
		args   []string
		vars   map[string]string
		want   string // the message says it
		secret string // the message must not show it
	}{
		{"unknown key", header + "colour = \"#fff\"\n", nil, nil, "unknown key profiles.prod.colour (a profile's keys: masters,", ""},
		{"unknown table", "[profile.prod]\nmasters = [\"a:1\"]\n", nil, nil, "unknown key profile.prod (the file holds [profiles.NAME] tables)", ""},
		{"a literal password", header + "password = \"hunter2\"\n", nil, nil,
			"profiles.prod.password: passwords are never stored in the config file: use password_env or password_file", "hunter2"},
		{"a literal password in another profile", header + "[profiles.dev]\nmasters = [\"d:1\"]\npassword = \"hunter2\"\n", nil, nil,
			"profiles.dev.password: passwords are never stored", "hunter2"},
		{"a literal password after an unknown key", header + "colour = 1\npassword = \"hunter2\"\n", nil, nil,
			"passwords are never stored", "hunter2"},
		{"a literal password, unquoted", header + "password = hunter2\n", nil, nil,
			"line 3: malformed TOML near profiles.prod.password (the text is not shown", "hunter"},
		{"a password put in password_env, unquoted", header + "password_env = hunter2\n", nil, nil,
			"line 3: malformed TOML near profiles.prod.password_env", "hunter"},
		{"a password put in password_env", header + "password_env = \"hunter2 pw\"\n", nil, nil,
			"password_env must name an environment variable", "hunter2"},
		{"unknown profile", header + "[profiles.dev]\nmasters = [\"d:1\"]\n", []string{"-P", "nope"}, nil,
			`--profile "nope": no such profile in "` + defaultConfigPath + `" (known: "dev", "prod")`, ""},
		{"unknown profile among many", many, []string{"-P", "nope"}, nil, `"p09" and 5 more)`, ""},
		{"unknown profile in a file without any", "", []string{"-P", "prod", "--config", "/tmp/empty.toml"}, nil,
			"no such profile in \"/tmp/empty.toml\" (it has none)", ""},
		{"unknown profile among hostile names", header + "[profiles.\"ev\u202eil\\u001b[2J\"]\nmasters = [\"d:1\"]\n",
			[]string{"-P", "x\u202ey"}, nil, `known: "ev\u202eil\x1b[2J"`, ""},
		{"missing default file", "", nil, nil, `--profile "prod": no config file "` + defaultConfigPath + `"`, ""},
		{"missing --config file", header, []string{"-P", "prod", "--config", "/nowhere/p.toml"}, nil,
			`no config file "/nowhere/p.toml"`, ""},
		{"malformed TOML", "[profiles.prod]\nmasters = [\"a:1\"\n", nil, nil, "line 2: malformed TOML: expected a comma", ""},
		{"a value of the wrong type", header + "tls = \"yes\"\n", nil, nil,
			`line 3 (last key "profiles.prod.tls"): incompatible types`, ""},
		{"a colour name", header + "color = \"red\"\n", nil, nil, `--profile "prod": color "red": want #RRGGBB, #RGB or an ANSI`, ""},
		{"a colour of 5 hex digits", header + "color = \"#12345\"\n", nil, nil, `color "#12345"`, ""},
		{"an ANSI colour above 255", header + "color = \"256\"\n", nil, nil, `color "256"`, ""},
		{"an empty colour", header + "color = \"\"\n", nil, nil, `--profile "prod": color must not be empty`, ""},
		{"unset password_env", header + "password_env = \"PROD_PW\"\n", nil, nil,
			`--profile "prod": password_env: $PROD_PW is not set, or empty`, ""},
		{"empty password_env", header + "password_env = \"PROD_PW\"\n", nil, map[string]string{"PROD_PW": ""},
			"$PROD_PW is not set, or empty", ""},
		{"password_env and password_file", header + "password_env = \"PW\"\npassword_file = \"/pw\"\n", nil,
			map[string]string{"PW": "hunter2"}, "password_env and password_file exclude each other", "hunter2"},
		{"missing password_file", header + "password_file = \"/run/none\"\n", nil, nil,
			`--profile "prod": password_file: open /run/none`, ""},
		{"two-line password_file", header + "password_file = \"/two\"\n", nil, nil,
			`--profile "prod": password_file "/two": more than one line`, "hunter2"},
		{"tls_ca_file without TLS", header + "tls_ca_file = \"/ca.pem\"\n", nil, nil,
			`--profile "prod": tls_ca_file: no rediss:// master`, ""},
		{"tls_ca_file not PEM", header + "tls = true\ntls_ca_file = \"/two\"\n", nil, nil,
			`--profile "prod": tls_ca_file "/two": no PEM certificate`, "hunter2"},
		{"no masters", "[profiles.prod]\nuser = \"ops\"\n", nil, nil, `--profile "prod": masters: none given`, ""},
		{"an empty masters list", "[profiles.prod]\nmasters = []\n", nil, nil, `masters: none given`, ""},
		{"a malformed master", "[profiles.prod]\nmasters = [\"a:1\", \"host:\"]\n", nil, nil,
			`--profile "prod": masters: "host:": missing port`, ""},
		{"a master with a password, malformed", "[profiles.prod]\nmasters = [\"redis://u:hunter2@h:99999\"]\n", nil, nil,
			`--profile "prod": masters: "redis://u:xxxxx@h:99999"`, "hunter2"},
		{"the same master twice", "[profiles.prod]\nmasters = [\"localhost:1\", \"127.0.0.1:1\"]\n", nil, nil,
			`--profile "prod": masters: localhost:1 and 127.0.0.1:1 are the same master`, ""},
		{"an empty pattern", header + "pattern = \"\"\n", nil, nil, `--profile "prod": pattern must not be empty`, ""},
		{"--masters with --profile", header, []string{"-P", "prod", "-m", "x:1"}, nil,
			`--profile "prod" and --masters exclude each other`, ""},
		{"--config without --profile", header, []string{"--config", defaultConfigPath}, nil,
			"--config is the file of the profiles: give --profile NAME too", ""},
		{"an empty profile name", header, []string{"--profile="}, nil, "--profile: empty name", ""},
		{"-p is a port to redis-cli users, not a profile", header, []string{"-p", "prod"}, nil,
			"-p: redis-cli's port is part of each master here: -m HOST:PORT", ""},
		{"a demo flag with a profile", header, []string{"-P", "prod", "--demo-clients", "3"}, nil,
			"--demo-clients applies to demo mode only, without --masters or --profile", ""},
		{"a read_only profile for run", header + "read_only = true\n", []string{"run", "-P", "prod", "res", "--", "true"},
			nil, `--profile "prod" is read_only, so it never writes`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"/two": "hunter2\nmore\n", "/tmp/empty.toml": "", "/ca.pem": testCertPEM(t)}
			if tc.config != "" {
				files[defaultConfigPath] = tc.config
			}
			args := tc.args
			if args == nil {
				args = []string{"--profile", "prod"}
			}
			env := fakeEnv(tc.vars, files)
			if args[0] != "run" {
				_, err := parseConfig(args, env)
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("parseConfig(%q) = %v, want a *UsageError", args, err)
				}
			}
			code, stdout, stderr := runCapture(args, env)
			if stdout != "" {
				t.Errorf("stdout should be empty on a usage error, got %q", stdout)
			}
			var secrets []string
			if tc.secret != "" {
				secrets = append(secrets, tc.secret)
			}
			checkOneUsageLine(t, args, code, stderr, monitorEscaped(tc.want), secrets...)
		})
	}
}

// monitorEscaped is want as a usage message shows it: escaped whole when it holds a character that is not
// printable.
func monitorEscaped(want string) string {
	return (&UsageError{Msg: want}).Error()
}

func TestProfileWithoutAConfigDirectoryAsksForConfig(t *testing.T) {
	env := fakeEnv(nil, nil)
	env.ConfigDir = func() (string, error) { return "", errors.New("neither $XDG_CONFIG_HOME nor $HOME are defined") }
	code, _, stderr := runCapture([]string{"-P", "prod"}, env)
	checkOneUsageLine(t, []string{"-P", "prod"}, code, stderr, "$HOME are defined); give --config FILE")
}

func TestProfileConfigThatIsNotARegularFileIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "config.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	oversize := append([]byte("[profiles.prod]\nmasters = [\"a:1\"]\n#"), bytes.Repeat([]byte("x"), maxInputFile)...)
	if err := os.WriteFile(big, oversize, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{fifo, "is not a regular file"},
		{"/dev/zero", "is not a regular file"},
		{dir, "is not a regular file"},
		{big, "is larger than 1024 KiB"},
	} {
		args := []string{"-P", "prod", "--config", tc.file}
		code, stderr := runWithin(t, args, time.Second)
		checkOneUsageLine(t, args, code, stderr, tc.want)
	}
}

func TestProfileKeysNamesEveryKey(t *testing.T) {
	var tags []string
	st := reflect.TypeFor[profile]()
	for i := range st.NumField() {
		tags = append(tags, st.Field(i).Tag.Get("toml"))
	}
	if got := strings.Join(tags, ", "); got != profileKeys {
		t.Errorf("the message about an unknown key lists %q, but a profile's keys are %q", profileKeys, got)
	}
}

func TestColours(t *testing.T) {
	for s, want := range map[string]bool{
		"#ff5f5f": true, "#FF5F5F": true, "#f55": true, "0": true, "196": true, "255": true,
		"256": false, "-1": false, "#ff5f5": false, "#gg0000": false, "red": false, "#": false, "": false,
		"+1": false, "#+ff": false, "0x1f": false, " 1": false,
	} {
		if got := isColor(s); got != want {
			t.Errorf("isColor(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestProfileUserAndPasswordReachTheMasters(t *testing.T) {
	// The default user has a password of its own: only the profile's user with the profile's password gets in.
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server for users and passwords (install it, or set REDLOCK_TEST_REDIS=required)")
	}
	servers := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{Password: "default-pw",
		Args: []string{"--user", "ops", "on", ">ops-pw", "~*", "&*", "+@all"}})
	var masters []string
	for _, s := range servers {
		masters = append(masters, fmt.Sprintf("%q", s.Addr()))
	}
	list := strings.Join(masters, ", ")
	config := fmt.Sprintf("[profiles.ops]\nmasters = [%s]\nuser = \"ops\"\npassword_env = \"OPS_PW\"\n"+
		"[profiles.nouser]\nmasters = [%s]\npassword_env = \"OPS_PW\"\n", list, list)
	tests := []struct {
		name, profile, password string
		want                    int
	}{
		{"the profile's user and password", "ops", "ops-pw", ExitOK},
		{"a wrong password", "ops", "wrong", ExitNoQuorum},
		{"the password without the user", "nouser", "ops-pw", ExitNoQuorum},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := fakeEnv(map[string]string{"OPS_PW": tc.password}, map[string]string{defaultConfigPath: config})
			code, stdout, stderr := runCapture([]string{"-P", tc.profile, "--once", "--json"}, env)
			if code != tc.want {
				t.Fatalf("exit %d, want %d (stderr %q)\n%s", code, tc.want, stderr, stdout)
			}
			for _, m := range monitortest.DecodeJSON(t, stdout).Masters {
				if m.Up != (tc.want == ExitOK) {
					t.Errorf("master %s: up %v, want %v (error %q)", m.Addr, m.Up, tc.want == ExitOK, m.Error)
				}
			}
			if strings.Contains(stdout+stderr, tc.password) {
				t.Errorf("the password appears in the output")
			}
		})
	}
}

// TestRunTakesAProfileButNeverAReadOnlyOne: run -P connects with the profile's masters, user and password
// source, a production profile's too (run's write is its own lock, which the command line asks for); a
// read_only profile is refused, since run writes.
func TestRunTakesAProfileButNeverAReadOnlyOne(t *testing.T) {
	env := fakeEnv(map[string]string{"REDISCLI_AUTH": "cliauth"}, profileFiles(t, prodProfile))
	rc, err := parseRunConfig([]string{"-P", "dev", "--ttl", "5s", "job", "--", "true"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := masterNames(rc.Config), "127.0.0.1:7001 127.0.0.1:7002 127.0.0.1:7003"; got != want {
		t.Errorf("run -P dev: masters %q, want the profile's %q", got, want)
	}
	if got, want := passwords(rc.Config), "cliauth cliauth own"; got != want {
		t.Errorf("run -P dev: passwords %q, want %q ($REDISCLI_AUTH, and the URL's own)", got, want)
	}
	prod, err := parseRunConfig([]string{"-P", "prod", "job", "--", "true"},
		fakeEnv(map[string]string{"PROD_PW": "x"}, profileFiles(t, prodProfile)))
	if err != nil {
		t.Fatalf("run -P prod: %v", err)
	}
	want := "rediss://10.0.0.1:6379 rediss://10.0.0.2:6379/2 rediss://10.0.0.3:6379"
	if got := masterNames(prod.Config); got != want {
		t.Errorf("run -P prod: masters %q, want the production profile's %q", got, want)
	}
	args := []string{"run", "-P", "staging", "job", "--", "true"}
	code, stdout, stderr := runCapture(args, fakeEnv(nil, profileFiles(t, prodProfile)))
	checkOneUsageLine(t, args, code, stderr, `--profile "staging" is read_only, so it never writes, and run takes a lock`)
	if stdout != "" {
		t.Errorf("%q: stdout %q", args, stdout)
	}
	args = []string{"run", "-P", "dev", "-m", "a:1", "job", "--", "true"}
	code, _, stderr = runCapture(args, env)
	checkOneUsageLine(t, args, code, stderr, `--profile "dev" and --masters exclude each other`)
}
