package cli

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// onceMasterError runs --once --json and returns the exit status and the first master's error.
func onceMasterError(t *testing.T, args []string, env Environment) (int, string) {
	t.Helper()
	code, stdout, stderr := runCapture(append(args, "--once", "--json"), env)
	var snap struct {
		Masters []struct {
			Error string `json:"error"`
		} `json:"masters"`
	}
	if err := json.Unmarshal([]byte(stdout), &snap); err != nil || len(snap.Masters) == 0 {
		t.Fatalf("--once --json: exit %d, stderr %q, stdout not a snapshot (%v):\n%s", code, stderr, err, stdout)
	}
	return code, snap.Masters[0].Error
}

// TestErrorTextsNameTheNextStep connects to real servers the wrong way: without the password they need, with a
// wrong one, without TLS to a TLS port, and with TLS to a plain port. Each error keeps the server's words and adds the flag that fixes
// it; run says the same when it cannot acquire.
func TestErrorTextsNameTheNextStep(t *testing.T) {
	t.Parallel()
	secured := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	admin := secured.NewClient()
	defer admin.Close()
	if err := admin.Do(context.Background(), "CONFIG", "SET", "requirepass", "secret").Err(); err != nil {
		t.Fatal(err)
	}
	plain := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	pki := newTestPKI(t, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Args: []string{"--tls-port", tlsPort,
		"--tls-cert-file", pki.serverCert, "--tls-key-file", pki.serverKey, "--tls-ca-cert-file", pki.ca,
		"--tls-auth-clients", "no"}})
	withPassword := func(p string) Environment {
		return Environment{Getenv: func(k string) string {
			if k == "REDISCLI_AUTH" {
				return p
			}
			return ""
		}, ReadFile: readInputFile}
	}
	for _, tc := range []struct {
		name string
		args []string
		env  Environment
		want string
	}{
		{"no password", []string{"-m", secured.Addr()}, realEnv, "NOAUTH Authentication required. The master needs a password: " +
			"set $REDISCLI_AUTH or give --password-file (in a profile: password_env or password_file)"},
		{"a wrong password", []string{"-m", secured.Addr()}, withPassword("nope"), "WRONGPASS invalid username-password pair " +
			"or user is disabled. Check the user and the password: a URL's own, else --password-file, else $REDISCLI_AUTH " +
			"(in a profile: password_env or password_file)"},
		{"redis:// to a TLS port", []string{"-m", "redis://127.0.0.1:" + tlsPort}, realEnv,
			"EOF: the server may require TLS: use rediss:// (in a profile: tls = true)"},
		{"rediss:// to a plain port", []string{"-m", "rediss://" + plain.Addr()}, realEnv,
			"context deadline exceeded: " + adviceNoTLS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, msg := onceMasterError(t, tc.args, tc.env); code != ExitNoQuorum || msg != tc.want {
				t.Errorf("exit %d, error %q; want %d and %q", code, msg, ExitNoQuorum, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		env  Environment
		next string
	}{
		{"no password", []string{"-m", secured.Addr()}, realEnv, adviceNoAuth},
		{"redis:// to a TLS port", []string{"-m", "redis://127.0.0.1:" + tlsPort}, realEnv, adviceNeedsTLS},
		{"rediss:// to a plain port", []string{"-m", "rediss://" + plain.Addr()}, realEnv,
			plain.Addr() + ": " + adviceNoTLS},
	} {
		t.Run("run/"+tc.name, func(t *testing.T) {
			// A node timeout that a loaded machine does not reach: the test is of the master's refusal, not of a
			// timeout; the TLS handshake with a plain port is one, whatever the node timeout.
			timeout := "2s"
			if strings.HasPrefix(tc.args[1], "rediss://") {
				timeout = "300ms"
			}
			args := append(append([]string{"run"}, tc.args...), "--retries", "0", "--node-timeout", timeout, "job", "--", "true")
			code, _, stderr := runCapture(args, tc.env)
			if code != ExitNotAcquired || !strings.Contains(stderr, tc.next) {
				t.Errorf("run: exit %d, stderr %q; want %d and %q", code, stderr, ExitNotAcquired, tc.next)
			}
		})
	}
}

func TestAdviceNeedsTheServersWords(t *testing.T) {
	for _, tc := range []struct {
		err  string
		tls  bool
		want string
	}{
		{"NOAUTH Authentication required.", false, adviceNoAuth},
		{"WRONGPASS invalid username-password pair or user is disabled.", true, adviceWrongPass},
		{"EOF", false, adviceNeedsTLS},
		{"EOF", true, ""}, // a TLS connection closed: not a plain connection to a TLS port
		{"read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer", false, adviceNeedsTLS},
		{"dial tcp 127.0.0.1:1: connect: connection refused", false, ""},
		{"NOPERM this user has no permissions to run the 'scan' command", false, ""},
		{"MOVED 15495 127.0.0.1:7002", false, adviceCluster},
		{"ASK 15495 127.0.0.1:7002", true, adviceCluster},
		{"context deadline exceeded", true, adviceNoTLS}, // a TLS handshake a plain port leaves unanswered
		{"context deadline exceeded", false, ""},
		{"dial tcp 10.0.0.1:6379: i/o timeout", true, ""}, // no connection: not a matter of TLS
		{"tls: first record does not look like a TLS handshake", true, adviceNoTLS},
	} {
		if got := advice(errorString(tc.err), tc.tls); got != tc.want {
			t.Errorf("advice(%q, tls %v) = %q, want %q", tc.err, tc.tls, got, tc.want)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestRunNotAcquiredSaysWait: a lock another holder has ends run with exit status 75, and the message says
// how to keep trying (--wait), or how long it tried.
func TestRunNotAcquiredSaysWait(t *testing.T) {
	srv := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	c := srv.NewClient()
	defer c.Close()
	if err := c.Set(context.Background(), "job", "someone-else", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{nil, "; --wait DURATION keeps trying that long (e.g. --wait 30s)"},
		{[]string{"--wait", "300ms"}, "(tried for --wait 300ms)"},
	} {
		args := append(append([]string{"run", "-m", srv.Addr(), "--retries", "0", "--node-timeout", "2s"}, tc.extra...),
			"job", "--", "true")
		code, _, stderr := runCapture(args, realEnv)
		if code != ExitNotAcquired || !strings.Contains(stderr, "held by another token") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d, the holder and %q", args, code, stderr, ExitNotAcquired, tc.want)
		}
	}
}

// TestRunSaysWhyMastersCannotRunScripts is issue 43's item 3 through run: masters whose ACL refuses the user
// EVAL, and a master whose EVAL is renamed away (with the probe's script cached there by SCRIPT LOAD), grant
// nothing. run does not start the command, exits 75, and says what each master answered and what to change.
func TestRunSaysWhyMastersCannotRunScripts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acl := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	var urls []string
	for _, s := range acl {
		admin := s.NewClient()
		err := admin.Do(ctx, "ACL", "SETUSER", "noscripts", "reset", "on", ">pw", "~*", "-@all", "+ping", "+role",
			"+set", "+get", "+del", "+pexpire").Err()
		_ = admin.Close()
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, "redis://noscripts:pw@"+s.Addr())
	}
	renamed := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Args: []string{"--rename-command", "EVAL", ""}})[0]
	admin := renamed.NewClient()
	defer admin.Close()
	if err := admin.ScriptLoad(ctx, "return 1").Err(); err != nil {
		t.Fatal(err)
	}
	good := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	stopped := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	if err := stopped.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, masters string
		want          []string
	}{
		{"ACL", strings.Join(urls, ","), []string{"NOPERM", "cannot run Lua scripts", adviceScriptsACL}},
		{"renamed", strings.Join([]string{good.Addr(), stopped.Addr(), renamed.Addr()}, ","),
			[]string{"unknown command", "cannot run Lua scripts", adviceScriptsRenamed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := t.TempDir() + "/ran"
			code, _, stderr := runCapture([]string{"run", "-m", tc.masters, "--retries", "1", "--node-timeout", "2s",
				"job", "--", "touch", marker}, realEnv)
			if code != ExitNotAcquired {
				t.Errorf("exit %d; want %d", code, ExitNotAcquired)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran")
			}
		})
	}
}
