package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/render"
)

// realEnv reads files as the program does.
var realEnv = Environment{Getenv: func(string) string { return "" }, ReadFile: readInputFile}

// checkOneUsageLine fails unless the run exited 2 with one line of printable, valid UTF-8 on stderr that
// contains want and none of the secrets.
// runWithin runs the program with args and the real environment, failing the test if it has not returned
// within limit: reading a FIFO without a writer would block for ever, and /dev/zero would never end.
func runWithin(t *testing.T, args []string, limit time.Duration) (code int, stderr string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		code, _, stderr = runCapture(args, realEnv)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%q: still running after %v", args, limit)
	}
	return code, stderr
}

func checkOneUsageLine(t *testing.T, args []string, code int, stderr, want string, secrets ...string) {
	t.Helper()
	if code != ExitUsage {
		t.Errorf("%q: exit status %d, want %d; stderr %q", args, code, ExitUsage, stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("%q: stderr is not exactly one line: %q", args, stderr)
	}
	if !utf8.ValidString(stderr) || strings.ContainsAny(stderr, "\u202e\u2066\x1b\r") {
		t.Errorf("%q: stderr holds invalid UTF-8 or a raw control or bidi character: %q", args, stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("%q: stderr %q does not say %q", args, stderr, want)
	}
	for _, s := range secrets {
		if strings.Contains(stderr, s) {
			t.Errorf("%q: stderr %q shows the secret %q", args, stderr, s)
		}
	}
}

func TestCommandLineBoundsSecretsAndEscapesExitTwoWithOneLine(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		want   string
		secret string
	}{
		{"a TTL above the form's 24h", []string{"--ttl", "25h"}, "--ttl", ""},
		{"a TTL below the form's 1ms", []string{"--ttl", "900us", "--node-timeout", "100us"}, "--ttl", ""},
		{"a poll interval far below the fastest step", []string{"--poll", "1ns"}, "--poll", ""},
		{"a poll interval above the slowest step", []string{"--poll", "1h"}, "--poll", ""},
		{"a password in the URL's query", []string{"-m", "redis://host:1?password=hunter2&bogus=1"}, "--masters",
			"hunter2"},
		{"a bidi override in a flag name", []string{"--pat\u202etern", "x"}, "unknown flag", ""},
		{"invalid UTF-8 in an argument", []string{"-m", "host\xff:1"}, "--masters", ""},
		{"a terminal escape in a value", []string{"--ttl", "\x1b[31m5s"}, "--ttl", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCapture(tc.args, realEnv)
			var secrets []string
			if tc.secret != "" {
				secrets = append(secrets, tc.secret)
			}
			checkOneUsageLine(t, tc.args, code, stderr, tc.want, secrets...)
		})
	}
}

func TestPasswordFileThatIsNotARegularFileIsRefusedAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pass.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), maxInputFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{fifo, "/dev/zero", big} {
		args := []string{"-m", "127.0.0.1:1", "--password-file", file}
		code, stderr := runWithin(t, args, 10*time.Second)
		checkOneUsageLine(t, args, code, stderr, "--password-file")
	}
}

func TestOnceTableCapsItsColumns(t *testing.T) {
	long := strings.Repeat("k", 1<<20)
	s := monitor.Snapshot{Quorum: 1, UpCount: 1, Servers: 1,
		Masters: []monitor.MasterStatus{{Addr: "10.0.0.1:6379", Up: true, Role: "master", Uptime: time.Hour}},
		Locks: []*monitor.LockView{
			{Resource: long, State: monitor.StateHeld, Holder: "t", Count: 1,
				Masters: []monitor.MasterLock{{State: monitor.CellSeen, Token: "t", PTTL: time.Second}}},
			{Resource: "short", State: monitor.StateHeld, Holder: "t", Count: 1,
				Masters: []monitor.MasterLock{{State: monitor.CellSeen, Token: "t", PTTL: time.Second}}},
		}}
	var out bytes.Buffer
	if err := render.WriteTable(&out, s); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 4096 {
		t.Fatalf("a 1 MB key name made the table %d bytes long", out.Len())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "short") && len(l) > 200 {
			t.Errorf("the short key's row is padded to %d bytes by the long one: %q", len(l), l)
		}
	}
}

func TestDriftFactorZeroReachesTheMonitorAsZero(t *testing.T) {
	f := monitorConfig(Config{DriftFactor: 0}).DriftFactor
	if f <= 0 {
		t.Fatalf("the monitor gets %v, which it replaces by its default %v", f, monitor.DefaultDriftFactor)
	}
	if allowance := time.Duration(float64(24*time.Hour) * f); allowance != 0 {
		t.Errorf("the monitor's drift allowance over 24h is %v beyond the constant term, want 0 (the client's)", allowance)
	}
	if f := monitorConfig(Config{DriftFactor: 0.05}).DriftFactor; f != 0.05 {
		t.Errorf("--drift-factor 0.05 reaches the monitor as %v", f)
	}
}

// TestDriftFactorMustLeaveTimeToExtend is issue 43's item 4: from a drift factor of about 2/3 up, an extended
// lock is due for its next extension at once. Such a factor is refused, for the dashboard and run alike, with
// the largest that works with the TTL and node timeout given, which is accepted; a TTL too short for the node
// timeout whatever the factor says so.
func TestDriftFactorMustLeaveTimeToExtend(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ttl", "30s", "--drift-factor", "0.7"},
			"--drift-factor 0.7 leaves no time to extend a lock of --ttl 30s with --node-timeout 50ms: the largest that works is 0.564"},
		{[]string{"--ttl", "30s", "--drift-factor", "0.565"}, "the largest that works is 0.564"},
		{[]string{"--ttl", "10s", "--node-timeout", "1s", "--drift-factor", "0.999"}, "the largest that works is 0.466"},
		{[]string{"--ttl", "60ms", "--node-timeout", "50ms"},
			"--ttl 60ms is too short to extend a lock with --node-timeout 50ms, whatever the --drift-factor"},
	} {
		for _, mode := range [][]string{nil, {"run", "-m", "127.0.0.1:1"}} {
			args := append(append(append([]string(nil), mode...), tc.args...), "r", "--", "true")
			if mode == nil {
				args = tc.args
			}
			code, _, stderr := runCapture(args, realEnv)
			checkOneUsageLine(t, args, code, stderr, tc.want)
		}
	}
	var v flagValues
	fs := newFlagSet(dashboardGroups, &v)
	if err := fs.Parse([]string{"--ttl", "30s", "--drift-factor", "0.564"}); err != nil {
		t.Fatal(err)
	}
	if err := checkLockFlags(&v.cfg, &v); err != nil {
		t.Errorf("--drift-factor 0.564 with --ttl 30s: %v; want it accepted, the largest that works", err)
	}
}

// TestEveryFlagsArgumentIsOneWord: --help shows each flag's argument as one word, its type or a name in
// capitals (--record FILE), never words of its description taken for it (--record redlock-tui replay).
func TestEveryFlagsArgumentIsOneWord(t *testing.T) {
	var v, rv flagValues
	var rc runConfig
	var pc replayConfig
	sets := map[string]*pflag.FlagSet{"redlock-tui": newFlagSet(dashboardGroups, &v),
		"redlock-tui run": newRunFlagSet(&rv, &rc), "redlock-tui replay": newReplayFlagSet(&pc)}
	for cmd, fs := range sets {
		fs.VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if strings.ContainsAny(name, " \t") {
				t.Errorf("%s --help shows --%s %s: the argument is words of its description", cmd, f.Name, name)
			}
		})
	}
	if _, stdout, _ := runCapture([]string{"--help"}, realEnv); !strings.Contains(stdout, "--record FILE ") {
		t.Errorf("--help does not show --record FILE:\n%s", stdout)
	}
}
