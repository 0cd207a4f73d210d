package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// fakeConfigDir is the user's config directory in fakeEnv.
const fakeConfigDir = "/home/test/.config"

// fakeEnv is an Environment with the given variables and files and nothing else; its config directory is
// fakeConfigDir.
func fakeEnv(vars, files map[string]string) Environment {
	return Environment{
		ConfigDir: func() (string, error) { return fakeConfigDir, nil },
		Getenv:    func(k string) string { return vars[k] },
		ReadFile: func(name string) ([]byte, error) {
			if data, ok := files[name]; ok {
				return []byte(data), nil
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		},
	}
}

// runCapture runs the program with a fake environment and a non-terminal stdout.
func runCapture(args []string, env Environment) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, system{Environment: env, stdout: &out, stderr: &errOut})
	return code, out.String(), errOut.String()
}

func TestBadCommandLinesExitTwoWithOneLineNamingTheFlag(t *testing.T) {
	files := map[string]string{
		"empty.txt":  "",
		"two.txt":    "one\ntwo\n",
		"notpem.txt": "hello",
	}
	tests := []struct {
		args []string
		flag string // the message must name it
	}{
		{[]string{"--ttl=0"}, "--ttl"},
		{[]string{"--ttl=-1s"}, "--ttl"},
		{[]string{"--ttl=abc"}, "--ttl"},
		{[]string{"--ttl"}, "--ttl"},
		{[]string{"--poll=0"}, "--poll"},
		{[]string{"--poll=-5ms"}, "--poll"},
		{[]string{"--poll=5"}, "--poll"},
		{[]string{"--history=10s"}, "--history"},
		{[]string{"--history=48h"}, "--history"},
		{[]string{"--node-timeout=0"}, "--node-timeout"},
		{[]string{"--node-timeout=20s"}, "--node-timeout"},
		{[]string{"--retries=-1"}, "--retries"},
		{[]string{"--retries=many"}, "--retries"},
		{[]string{"--retry-delay=abc"}, "--retry-delay"},
		{[]string{"--retry-delay=300ms-100ms"}, "--retry-delay"},
		{[]string{"--retry-delay=-5ms"}, "--retry-delay"},
		{[]string{"--retry-delay=1s-"}, "--retry-delay"},
		{[]string{"--retry-delay="}, "--retry-delay"},
		{[]string{"--drift-factor=1"}, "--drift-factor"},
		{[]string{"--drift-factor=1.5"}, "--drift-factor"},
		{[]string{"--drift-factor=-0.1"}, "--drift-factor"},
		{[]string{"--drift-factor=NaN"}, "--drift-factor"},
		{[]string{"--drift-factor=Inf"}, "--drift-factor"},
		{[]string{"--max-keys=0"}, "--max-keys"},
		{[]string{"--full-read-every=100ms"}, "--full-read-every"},
		{[]string{"--full-read-every=48h"}, "--full-read-every"},
		{[]string{"--pattern="}, "--pattern"},
		{[]string{"--json"}, "--json"},
		{[]string{"--demo-clients=-1"}, "--demo-clients"},
		{[]string{"--demo-clients=0"}, "--demo-clients"},
		{[]string{"--demo-resources=51"}, "--demo-resources"},
		{[]string{"--demo-resources=0"}, "--demo-resources"},
		{[]string{"--demo-clients=1000000"}, "--demo-clients"},
		{[]string{"--demo-clients=3", "-m", "h:1"}, "--demo-clients"},
		{[]string{"--bogus"}, "--bogus"},
		{[]string{"--masters"}, "--masters"},
		{[]string{"-m"}, "'m'"},
		{[]string{"-m", "host:"}, "--masters"},
		{[]string{"-m", ":6379"}, "--masters"},
		{[]string{"-m", "host:99999"}, "--masters"},
		{[]string{"-m", "host:0"}, "--masters"},
		{[]string{"-m", "host:-1"}, "--masters"},
		{[]string{"-m", "host:"}, "--masters"},
		{[]string{"-m", "host:abc"}, "--masters"},
		{[]string{"-m", "::1:6379"}, "--masters"},
		{[]string{"-m", "ho st:1"}, "--masters"},
		{[]string{"-m", "host/x:1"}, "--masters"},
		{[]string{"-m", "a:1,,b:2"}, "--masters"},
		{[]string{"-m", ""}, "--masters"},
		{[]string{"-m", "a:1,"}, "--masters"},
		{[]string{"-m", "redis://"}, "--masters"},
		{[]string{"-m", "redis://:6379"}, "--masters"},
		{[]string{"-m", "redis://host:99999"}, "--masters"},
		{[]string{"-m", "redis://host:abc"}, "--masters"},
		{[]string{"-m", "redis://host:"}, "--masters"},
		{[]string{"-m", "redis://host/abc"}, "--masters"},
		{[]string{"-m", "redis://host/1/2"}, "--masters"},
		{[]string{"-m", "redis://host/-1"}, "--masters"},
		{[]string{"-m", "redis://host?nonsense=1"}, "--masters"},
		{[]string{"-m", "redis://user:pa%zzss@host"}, "--masters"},
		{[]string{"-m", "http://host:1"}, "--masters"},
		{[]string{"-m", "unix:///tmp/redis.sock"}, "--masters"},
		{[]string{"-m", "localhost:6379,127.0.0.1:6379"}, "--masters"},
		{[]string{"-m", "a:1", "-m", "a:1"}, "--masters"},
		{[]string{"-m", "redis://127.0.0.1:6379/1,localhost:6379"}, "--masters"},
		{[]string{"-m", "[::1]:6379,localhost:6379"}, "--masters"},
		{[]string{"-m", "0.0.0.0:6379,localhost:6379"}, "--masters"},
		{[]string{"-m", "[::ffff:10.0.0.1]:6379,10.0.0.1:6379"}, "--masters"},
		{[]string{"-m", "Host.Example:6379,host.example.:6379"}, "--masters"},
		{[]string{"-m", "h:6379,h:06379"}, "--masters"},
		{[]string{"-m", "rediss://h:6380,h:6380"}, "--masters"},
		{[]string{"-m", "redis://h,h:6379"}, "--masters"},
		{[]string{"-m", "h:1", "--password-file", "missing.txt"}, "--password-file"},
		{[]string{"-m", "h:1", "--password-file", "empty.txt"}, "--password-file"},
		{[]string{"-m", "h:1", "--password-file", "two.txt"}, "--password-file"},
		{[]string{"-m", "h:1", "--tls-ca-file", "notpem.txt"}, "--tls-ca-file"},
		{[]string{"-m", "rediss://h:1", "--tls-ca-file", "notpem.txt"}, "--tls-ca-file"},
		{[]string{"-m", "rediss://h:1", "--tls-ca-file", "missing.txt"}, "--tls-ca-file"},
		{[]string{"-m", "h:1", "--tls-skip-verify"}, "--tls-skip-verify"},
		{[]string{"h:6379"}, "--masters"},
		{[]string{"-m", "a\nb:1"}, "--masters"},
		{[]string{"--pattern", "x", "--ttl", "\x1b[2J"}, "--ttl"},
		{[]string{"--background", "sepia"}, "--background"},
		{[]string{"--background", ""}, "--background"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env := fakeEnv(nil, files)
			_, err := parseConfig(tc.args, env)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("parseConfig(%q) = %v, want a *UsageError", tc.args, err)
			}
			code, stdout, stderr := runCapture(tc.args, env)
			if code != ExitUsage {
				t.Errorf("exit status %d, want %d (stderr %q)", code, ExitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout should be empty on a usage error, got %q", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr should be exactly one line, got %q", stderr)
			}
			if strings.ContainsRune(stderr, '\x1b') {
				t.Errorf("stderr carries a raw escape character: %q", stderr)
			}
			if !strings.Contains(stderr, tc.flag) {
				t.Errorf("stderr %q does not name %s", stderr, tc.flag)
			}
			if !strings.HasPrefix(stderr, "redlock-tui: ") {
				t.Errorf("stderr %q does not start with the program name", stderr)
			}
		})
	}
}

func TestURLPasswordNeverAppearsInErrors(t *testing.T) {
	for _, m := range []string{
		"redis://user:hunter2@host:99999",
		"redis://user:hunter2@host/abc",
		"redis://user:hunter2@host:1?nonsense=1",
		"http://user:hunter2@host:1",
		"redis://user:hunter2@host:1,redis://other:hunter2@host:1",
	} {
		_, err := parseConfig([]string{"-m", m}, fakeEnv(nil, nil))
		if err == nil {
			t.Fatalf("-m %q: want an error", m)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("-m %q: error %q shows the password", m, err)
		}
	}
}

func TestDefaults(t *testing.T) {
	c, err := parseConfig(nil, fakeEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Pattern: "*", TTL: 10 * time.Second, Poll: 500 * time.Millisecond, NodeTimeout: 50 * time.Millisecond,
		Retries: 3, RetryDelayMin: 50 * time.Millisecond, RetryDelayMax: 250 * time.Millisecond, DriftFactor: 0.01,
		MaxKeys: 100000, DemoClients: defaultDemoClients, DemoResources: defaultDemoResources,
		Masters: []app.Master{},
	}
	if c.Pattern != want.Pattern || c.TTL != want.TTL || c.Poll != want.Poll || c.NodeTimeout != want.NodeTimeout ||
		c.Retries != want.Retries || c.RetryDelayMin != want.RetryDelayMin || c.RetryDelayMax != want.RetryDelayMax ||
		c.DriftFactor != want.DriftFactor || c.MaxKeys != want.MaxKeys || c.DemoClients != want.DemoClients ||
		c.DemoResources != want.DemoResources || len(c.Masters) != 0 || c.ReadOnly || c.Once || c.JSON {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestFlagsAreParsed(t *testing.T) {
	c, err := parseConfig([]string{
		"-m", "a:1,b:2", "--masters=c:3", "--pattern", "lock:*", "--ttl", "30s", "--poll", "1s",
		"--node-timeout", "20ms", "--retries", "0", "--retry-delay", "10ms-20ms", "--drift-factor", "0",
		"--max-keys", "50", "--read-only", "--once", "--json",
	}, fakeEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range c.Masters {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, " "); got != "a:1 b:2 c:3" {
		t.Errorf("masters (comma list then repeated flag) = %q, want in order a:1 b:2 c:3", got)
	}
	if c.Pattern != "lock:*" || c.TTL != 30*time.Second || c.Poll != time.Second || c.NodeTimeout != 20*time.Millisecond ||
		c.Retries != 0 || c.RetryDelayMin != 10*time.Millisecond || c.RetryDelayMax != 20*time.Millisecond ||
		c.DriftFactor != 0 || c.MaxKeys != 50 || !c.ReadOnly || !c.Once || !c.JSON {
		t.Errorf("parsed config does not match the flags: %+v", c)
	}
}

func TestRetryDelay(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi time.Duration
	}{
		{"50ms-250ms", 50 * time.Millisecond, 250 * time.Millisecond},
		{"300ms", 0, 300 * time.Millisecond},
		{" 1s - 2s ", time.Second, 2 * time.Second},
		{"0", 0, 0},
		{"100ms-100ms", 100 * time.Millisecond, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		lo, hi, err := parseRetryDelay(tc.in)
		if err != nil || lo != tc.lo || hi != tc.hi {
			t.Errorf("parseRetryDelay(%q) = %v, %v, %v; want %v, %v", tc.in, lo, hi, err, tc.lo, tc.hi)
		}
	}
}

func TestMasterURLs(t *testing.T) {
	tests := []struct {
		entry                  string
		name, addr, user, pass string
		db                     int
		tls                    bool
	}{
		{"redis://alice:s3cret@db1.example.com:6380/2", "db1.example.com:6380/2", "db1.example.com:6380", "alice", "s3cret", 2, false},
		{"rediss://bob:pw@h:6390", "rediss://h:6390", "h:6390", "bob", "pw", 0, true},
		{"redis://h", "h:6379", "h:6379", "", "", 0, false},
		{"redis://:onlypw@h:1/0", "h:1", "h:1", "", "onlypw", 0, false},
		{"redis://u:p%40ss%2Cword@h:1", "h:1", "h:1", "u", "p@ss,word", 0, false},
		{"redis://[::1]:7000/3", "[::1]:7000/3", "[::1]:7000", "", "", 3, false},
		{"REDIS://H:1", "H:1", "H:1", "", "", 0, false},
		{"h:1", "h:1", "h:1", "", "", 0, false},
		{"[2001:db8::1]:6379", "[2001:db8::1]:6379", "[2001:db8::1]:6379", "", "", 0, false},
	}
	for _, tc := range tests {
		c, err := parseConfig([]string{"-m", tc.entry}, fakeEnv(nil, nil))
		if err != nil {
			t.Errorf("-m %q: %v", tc.entry, err)
			continue
		}
		m := c.Masters[0]
		o := m.Options
		if m.Name != tc.name || o.Addr != tc.addr || o.Username != tc.user || o.Password != tc.pass || o.DB != tc.db ||
			(o.TLSConfig != nil) != tc.tls {
			t.Errorf("-m %q: got name %q addr %q user %q password %q db %d tls %v; want %q %q %q %q %d %v",
				tc.entry, m.Name, o.Addr, o.Username, o.Password, o.DB, o.TLSConfig != nil,
				tc.name, tc.addr, tc.user, tc.pass, tc.db, tc.tls)
		}
		if strings.Contains(m.Name, tc.pass) && tc.pass != "" {
			t.Errorf("-m %q: the screen name %q shows the password", tc.entry, m.Name)
		}
	}
}

func TestPasswordSources(t *testing.T) {
	env := map[string]string{"REDISCLI_AUTH": "envpw"}
	files := map[string]string{"pw": "filepw\n", "crlf": "crlfpw\r\n"}
	tests := []struct {
		name  string
		args  []string
		vars  map[string]string
		wants []string // password per master
	}{
		{"none", []string{"-m", "a:1"}, nil, []string{""}},
		{"REDISCLI_AUTH for host:port and URLs without one", []string{"-m", "a:1,redis://u@b:2,redis://:own@c:3"}, env,
			[]string{"envpw", "envpw", "own"}},
		{"--password-file wins over REDISCLI_AUTH", []string{"-m", "a:1", "--password-file", "pw"}, env, []string{"filepw"}},
		{"--password-file with CRLF", []string{"-m", "a:1", "--password-file", "crlf"}, nil, []string{"crlfpw"}},
		{"URL password wins over the file", []string{"-m", "redis://:own@a:1", "--password-file", "pw"}, nil, []string{"own"}},
	}
	for _, tc := range tests {
		c, err := parseConfig(tc.args, fakeEnv(tc.vars, files))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for i, want := range tc.wants {
			if got := c.Masters[i].Options.Password; got != want {
				t.Errorf("%s: master %d password %q, want %q", tc.name, i+1, got, want)
			}
		}
	}
}

func TestTLSOptions(t *testing.T) {
	files := map[string]string{"ca.pem": testCertPEM(t)}
	c, err := parseConfig([]string{"-m", "rediss://h:1,plain:2", "--tls-ca-file", "ca.pem", "--tls-skip-verify"},
		fakeEnv(nil, files))
	if err != nil {
		t.Fatal(err)
	}
	tlsConf := c.Masters[0].Options.TLSConfig
	if tlsConf == nil || tlsConf.RootCAs == nil || !tlsConf.InsecureSkipVerify || tlsConf.ServerName != "h" {
		t.Errorf("rediss:// master: TLS config %+v, want the CA file's roots, skip-verify and server name h", tlsConf)
	}
	if c.Masters[1].Options.TLSConfig != nil {
		t.Errorf("host:port master got TLS; only rediss:// masters use it")
	}
}

// testCertPEM returns a self-signed certificate in PEM form.
func testCertPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestDistinctMastersAreNotDuplicates(t *testing.T) {
	for _, list := range []string{
		"127.0.0.1:6379,127.0.0.1:6380",
		"127.0.0.1:6379,127.0.0.2:6379",
		"a.example:6379,b.example:6379",
		"redis://h:1,rediss://h:2",
	} {
		if _, err := parseConfig([]string{"-m", list}, fakeEnv(nil, nil)); err != nil {
			t.Errorf("-m %s: %v; these are different masters", list, err)
		}
	}
}

func TestClientSettings(t *testing.T) {
	c, err := parseConfig([]string{"-m", "a:1,redis://b:2?dial_timeout=30s", "--node-timeout", "10ms"}, fakeEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Masters {
		o := m.Options
		if !o.ContextTimeoutEnabled || o.MaxRetries != -1 || o.DialTimeout < minDialTimeout || o.DialTimeout > time.Second ||
			o.ReadTimeout <= 0 || o.ReadTimeout > time.Second || o.WriteTimeout <= 0 || o.WriteTimeout > time.Second ||
			o.PoolSize <= 0 || o.PoolSize > 10 {
			t.Errorf("%s: client options %+v: want context deadlines honoured, no retries, short timeouts, a small pool",
				m.Name, o)
		}
	}
}

// TestRunHelpDescribesRunsFlags: run shares the connection and lock flags with the dashboard, but its help
// says what they mean for run: masters required (no demo), the TTL of the command's lock.
func TestRunHelpDescribesRunsFlags(t *testing.T) {
	code, stdout, _ := runCapture([]string{"run", "--help"}, fakeEnv(nil, nil))
	if code != ExitOK {
		t.Fatalf("run --help exited %d", code)
	}
	for _, bad := range []string{"demo", "from the dashboard", "--pattern", "--poll", "--once"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("run --help mentions %q, which does not apply to run:\n%s", bad, stdout)
		}
	}
	for _, want := range []string{"(required)", "TTL of the lock", "--wait", "--grace"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --help does not say %q:\n%s", want, stdout)
		}
	}
}

func TestHelpAndVersionExitZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"--version"}, {"-v"}, {"version"}, {"--ttl=0", "--help"}} {
		code, stdout, stderr := runCapture(args, fakeEnv(nil, nil))
		if code != ExitOK || stdout == "" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, output on stdout only", args, code, stdout, stderr)
		}
	}
	_, stdout, _ := runCapture([]string{"--help"}, fakeEnv(nil, nil))
	for _, flag := range []string{"--masters", "-P, --profile", "--config", "--password-file", "--tls-ca-file",
		"--tls-skip-verify", "--pattern", "--ttl", "--poll", "--node-timeout", "--retries", "--retry-delay",
		"--drift-factor", "--max-keys", "--read-only", "--once", "--json", "--version", "--demo-clients", "--cluster",
		"--demo-resources"} {
		if !strings.Contains(stdout, flag) {
			t.Errorf("--help does not mention %s", flag)
		}
	}
}

func TestNonTerminalWithoutOnceSuggestsOnce(t *testing.T) {
	code, stdout, stderr := runCapture(nil, fakeEnv(nil, nil))
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--once") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line suggesting --once", code, stdout, stderr)
	}
}

func TestSkipVerifyWarnsAndUnreachableMastersGiveExitThree(t *testing.T) {
	// Port 1 on the loopback refuses connections: every master is down at once.
	code, _, stderr := runCapture([]string{"-m", "rediss://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", "--tls-skip-verify",
		"--once"}, fakeEnv(nil, nil))
	if code != ExitNoQuorum {
		t.Errorf("exit %d with no master reachable, want %d", code, ExitNoQuorum)
	}
	if !strings.Contains(stderr, "WARNING") || !strings.Contains(stderr, "--tls-skip-verify") {
		t.Errorf("stderr %q: want a loud warning about --tls-skip-verify", stderr)
	}
}

// FuzzParseConfig checks that no command line panics and that every error is one line.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range [][2]string{
		{"-m", "redis://u:p@h:1/2"}, {"--retry-delay", "1s-2s"}, {"-m", "[::1]:6379,localhost:6379"},
		{"--drift-factor", "NaN"}, {"-m", "rediss://h"}, {"--ttl", "-1s"}, {"-m", "a:1,\x00"}, {"-m", "redis://%"},
	} {
		f.Add(seed[0], seed[1])
	}
	env := fakeEnv(map[string]string{"REDISCLI_AUTH": "x"}, map[string]string{"f": "pw\n"})
	f.Fuzz(func(t *testing.T, a, b string) {
		_, err := parseConfig([]string{a, b}, env)
		if err != nil && strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("parseConfig(%q, %q): error is not one line: %q", a, b, err)
		}
	})
}

// TestOnceAndHeadlessWatchTheDemoOnlyWhenToldTo: a forgotten --masters in a cron job (--once) or behind a
// scrape (--headless) used to report the embedded demo masters as a healthy cluster (issue 20).
func TestOnceAndHeadlessWatchTheDemoOnlyWhenToldTo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--once"}, "--once needs your masters"},
		{[]string{"--once", "--json"}, "--demo"},
		{[]string{"--headless", "--metrics", "127.0.0.1:0"}, "--headless needs your masters"},
		{[]string{"--demo", "-m", "a:1"}, "excludes --masters"},
		{[]string{"run", "--demo", "-m", "a:1", "r", "--", "true"}, "--demo does not apply to run"},
	} {
		code, stdout, stderr := runCapture(tc.args, fakeEnv(nil, nil))
		if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and one line with %q", tc.args, code, stdout, stderr,
				ExitUsage, tc.want)
		}
	}
}

// scanProgress matches --once's lines about a long scan.
var scanProgress = regexp.MustCompile(`(?m)^redlock-tui: (scanning for locks \(|the scan for locks took ).*\n`)

func TestOnceWithDemoUsesEmbeddedMasters(t *testing.T) {
	code, stdout, stderr := runCapture([]string{"--once", "--json", "--demo"}, fakeEnv(nil, nil))
	// A loaded machine may spread the demo masters' scan over more than onceProgressEvery, which says so.
	stderr = scanProgress.ReplaceAllString(stderr, "")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing on stderr but the scan's progress", code, stderr)
	}
	var s struct {
		Quorum  int `json:"quorum"`
		Masters []struct {
			Up bool `json:"up"`
		} `json:"masters"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	up := 0
	for _, m := range s.Masters {
		if m.Up {
			up++
		}
	}
	if len(s.Masters) != demo.MasterCount || up < s.Quorum {
		t.Errorf("%d masters, %d up, quorum %d; want the %d embedded masters with a quorum up", len(s.Masters), up,
			s.Quorum, demo.MasterCount)
	}
}

// TestCommandLineAndClientAgreeOnTheSameServer: --masters refuses a server listed twice by the client's own
// rule (redlock.ServerKey, which redlock.New applies), so the two never disagree about which spellings are
// one master. They did: the command line kept an IPv6 zone that the client drops.
func TestCommandLineAndClientAgreeOnTheSameServer(t *testing.T) {
	for _, pair := range [][2]string{
		{"localhost:6379", "127.0.0.1:6379"},
		{"[::1]:6379", "127.0.0.1:6379"},
		{"[::ffff:127.0.0.1]:6379", "127.0.0.1:6379"},
		{"127.0.0.1:06379", "127.0.0.1:6379"},
		{"EXAMPLE.com.:1", "example.com:1"},
		{"[fe80::1%eth0]:1", "[fe80::1]:1"},
		{"[0:0:0:0:0:0:0:1]:1", "[::1]:1"},
		{"0.0.0.0:1", "localhost:1"},
		{"127.0.0.2:1", "127.0.0.1:1"},
		{"a.example:1", "b.example:1"},
	} {
		_, cliErr := parseConfig([]string{"-m", pair[0] + "," + pair[1]}, fakeEnv(nil, nil))
		libSame := redlock.ServerKey(&redis.Options{Addr: pair[0]}) == redlock.ServerKey(&redis.Options{Addr: pair[1]})
		if (cliErr != nil) != libSame {
			t.Errorf("%s and %s: the command line says %v; the client takes them for one server: %v", pair[0], pair[1],
				cliErr, libSame)
		}
	}
}

// TestMasterWithoutAPortMeansTheDefaultPort: -m localhost used to say "missing port", while redis://localhost
// meant port 6379 (issue 20). "host:" with an empty port is still refused.
func TestMasterWithoutAPortMeansTheDefaultPort(t *testing.T) {
	for entry, want := range map[string]string{"localhost": "localhost:6379", "10.0.0.1": "10.0.0.1:6379",
		"[::1]": "[::1]:6379", "redis.example": "redis.example:6379"} {
		c, err := parseConfig([]string{"-m", entry}, fakeEnv(nil, nil))
		if err != nil || len(c.Masters) != 1 || c.Masters[0].Options.Addr != want {
			t.Errorf("-m %s: %v %+v; want %s", entry, err, c.Masters, want)
		}
	}
	for _, entry := range []string{"host:", "::1"} {
		if _, err := parseConfig([]string{"-m", entry}, fakeEnv(nil, nil)); err == nil {
			t.Errorf("-m %s: accepted; want an error", entry)
		}
	}
	if _, err := parseConfig([]string{"-m", "localhost,localhost:6379"}, fakeEnv(nil, nil)); err == nil {
		t.Errorf("-m localhost,localhost:6379: accepted; they are the same master")
	}
}

// TestDurationsInMessagesAreTheVocabularysWords: the limits and values of duration flags read as the rest of
// the program writes durations (vocab.ExactDuration: 24h, 1m, 500ms), never Go's 24h0m0s.
func TestDurationsInMessagesAreTheVocabularysWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ttl", "48h"}, "--ttl must be from 1ms to 24h (as in the acquire form), got 48h"},
		{[]string{"--ttl", "90m", "--node-timeout", "2h"}, "--node-timeout (2h) must be shorter than --ttl (1h30m)"},
		{[]string{"--poll", "1h"}, "--poll must be from 100ms to 30s (the range + and - step through), got 1h"},
		{[]string{"--history", "1s"}, "--history must be from 1m to 24h, got 1s"},
		{[]string{"--once", "-m", "a:1", "--watch", "25h"}, "--watch must be from 0s to 24h, got 25h"},
		{[]string{"--full-read-every", "24h0m1s"}, "--full-read-every must be from --poll (500ms) to 24h, got 24h00m01s"},
		{[]string{"--once", "-m", "a:1", "--who", "r", "--who-for", "1h"}, "--who-for must be from 1ms to 10s, got 1h"},
		{[]string{"run", "-m", "a:1", "--grace", "-90s", "r", "--", "true"}, "--grace must not be negative, got -1m30s"},
	} {
		code, _, stderr := runCapture(tc.args, fakeEnv(nil, nil))
		checkOneUsageLine(t, tc.args, code, stderr, tc.want)
		if strings.Contains(stderr, "0m0s") || strings.Contains(stderr, "h0m") {
			t.Errorf("%q: %q writes a duration as Go does", tc.args, stderr)
		}
	}
}
