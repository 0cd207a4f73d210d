package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file run the built binary against real redis-server masters (embedded ones when
// redis-server is missing, unless REDLOCK_TEST_REDIS=required).

// built is the binary the package's tests run, built once (linking it again for each test took seconds each).
var built struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
	out  []byte
}

// buildBinary builds the command into a temporary directory, once for the package, and returns its path. A
// test must not change the file.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "redlock-tui-e2e-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "redlock-tui")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, "..").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// TestMain runs two parallel tests per CPU by default (they own their masters and spend their time waiting
// on the binary, its polls and its timeouts; more at once starve the other package that go test runs beside
// this one), then removes the binary the tests built.
func TestMain(m *testing.M) {
	redlocktest.WaitBoundParallelism(2)
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// runBinary runs bin with args and extra environment variables, bounded in time, and returns its exit status
// and output.
func runBinary(t *testing.T, bin string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// Generous: --once scans every master's keyspace under its CPU budget, which takes seconds on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.Exited():
		code = exit.ExitCode()
	default:
		t.Fatalf("running %s %q: %v (stderr %q)", bin, args, err, errOut.String())
	}
	return code, out.String(), errOut.String()
}

func TestOnceJSONReportsAHandSetLockAndExitsByQuorum(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := redlocktest.Addrs(masters)
	ctx := context.Background()
	const resource, token = "orders:42", "token-by-hand"
	for _, c := range clients[:2] {
		if err := c.Set(ctx, resource, token, 30*time.Second).Err(); err != nil {
			t.Fatal(err)
		}
	}

	code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "--masters", strings.Join(addrs, ","))
	if code != cli.ExitOK || stderr != "" {
		t.Fatalf("all masters up: exit %d, stderr %q; want 0 and nothing on stderr", code, stderr)
	}
	s := monitortest.DecodeJSON(t, stdout)
	if s.Quorum != 2 || len(s.Masters) != 3 {
		t.Fatalf("quorum %d and %d masters, want 2 and 3:\n%s", s.Quorum, len(s.Masters), stdout)
	}
	for i, m := range s.Masters {
		if m.Addr != addrs[i] || !m.Up {
			t.Errorf("masters[%d] = %+v, want %s up, in the order given", i, m, addrs[i])
		}
		if m.Refresh != "polling" || m.RefreshWhy != "tracking turned off" { // one snapshot: --once never tracks
			t.Errorf("masters[%d] refresh %q (%q), want polling as documented for --once", i, m.Refresh, m.RefreshWhy)
		}
	}
	if len(s.Locks) != 1 {
		t.Fatalf("%d locks, want the one set by hand:\n%s", len(s.Locks), stdout)
	}
	l := s.Locks[0]
	if l.Resource != resource || l.State != "held" || l.Holder != token || l.Count != 2 || len(l.Masters) != 3 {
		t.Errorf("lock = %+v; want %s held by %s on 2 of 3 masters", l, resource, token)
	}
	for i, c := range l.Masters {
		want, wantState := "", "absent"
		if i < 2 {
			want, wantState = token, "seen"
		}
		if c.State != wantState || c.Token != want || (c.PTTLMS != nil) != (i < 2) {
			t.Errorf("lock on master %d: %s, token %q, pttl_ms present %v; want %s, token %q, a pttl_ms only when seen",
				i+1, c.State, c.Token, c.PTTLMS != nil, wantState, want)
			continue
		}
		if i < 2 && (*c.PTTLMS <= 0 || *c.PTTLMS > 30000) {
			t.Errorf("lock on master %d: pttl_ms %d, want within (0, 30000]", i+1, *c.PTTLMS)
		}
	}

	for _, m := range masters[1:] {
		if err := m.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, _ = runBinary(t, bin, nil, "--once", "--json", "--masters", strings.Join(addrs, ","))
	if code != cli.ExitNoQuorum {
		t.Errorf("2 of 3 masters stopped: exit %d, want %d", code, cli.ExitNoQuorum)
	}
	s = monitortest.DecodeJSON(t, stdout)
	if len(s.Masters) != 3 || !s.Masters[0].Up || s.Masters[1].Up || s.Masters[1].Error == "" || s.Masters[2].Up {
		t.Errorf("2 of 3 masters stopped: masters %+v; want the first up, the others down with an error", s.Masters)
	}

	code, stdout, stderr = runBinary(t, bin, nil, "--once", "--ttl=0", "--masters", strings.Join(addrs, ","))
	if code != cli.ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--ttl") {
		t.Errorf("bad flag: exit %d, stdout %q, stderr %q; want 2, nothing on stdout, one line naming --ttl",
			code, stdout, stderr)
	}
}

func TestOnceWithPasswords(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server for passwords (install it, or set REDLOCK_TEST_REDIS=required)")
	}
	bin := buildBinary(t)
	const password = "s3cret pass"
	servers := redlocktest.StartServers(t, 3, redlocktest.ServerOptions{Password: password})
	var addrs, urls []string
	for _, s := range servers {
		addrs = append(addrs, s.Addr())
		urls = append(urls, "redis://:s3cret%20pass@"+s.Addr()+"/1")
	}
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	list := strings.Join(addrs, ",")
	tests := []struct {
		name string
		env  []string
		args []string
		want int
	}{
		{"wrong REDISCLI_AUTH", []string{"REDISCLI_AUTH=wrong"}, []string{"-m", list}, cli.ExitNoQuorum},
		{"no password", []string{"REDISCLI_AUTH="}, []string{"-m", list}, cli.ExitNoQuorum},
		{"REDISCLI_AUTH", []string{"REDISCLI_AUTH=" + password}, []string{"-m", list}, cli.ExitOK},
		{"--password-file", []string{"REDISCLI_AUTH=wrong"}, []string{"-m", list, "--password-file", file}, cli.ExitOK},
		{"password in the URLs", []string{"REDISCLI_AUTH=wrong"}, []string{"-m", strings.Join(urls, ",")}, cli.ExitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, bin, tc.env, append([]string{"--once", "--json"}, tc.args...)...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d (stderr %q)\n%s", code, tc.want, stderr, stdout)
			}
			s := monitortest.DecodeJSON(t, stdout)
			for _, m := range s.Masters {
				if m.Up != (tc.want == cli.ExitOK) {
					t.Errorf("master %+v: up %v, want %v", m, m.Up, tc.want == cli.ExitOK)
				}
				if !m.Up && m.Error == "" {
					t.Errorf("master %s is down without an error to show", m.Addr)
				}
			}
			if strings.Contains(stdout+stderr, password) {
				t.Errorf("the password appears in the output")
			}
		})
	}
}

// tmuxSession is a detached tmux session on a private server socket, so that parallel tests do not collide.
type tmuxSession struct {
	t      *testing.T
	socket string
}

// tmuxSessions numbers the package's tmux sessions, which makes their sockets' names unique.
var tmuxSessions atomic.Int64

// pane is the target of every command: the session's only pane.
const pane = "e2e"

// prompt is the shell prompt inside the session (PS1 without its trailing space, which capture-pane trims).
const prompt = "e2e$"

// startTmux starts a shell in a 120x40 detached session; t.Cleanup kills the session's server.
func startTmux(t *testing.T) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("redlock-tui-e2e-%d-%d", os.Getpid(), tmuxSessions.Add(1))}
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", pane, "-x", "120", "-y", "40",
		"env", "PS1="+prompt+" ", "/bin/sh")
	socketPath := strings.TrimSpace(s.tmux("display-message", "-p", "#{socket_path}"))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
		_ = os.Remove(socketPath) // tmux leaves its socket file behind
	})
	s.waitFor("the shell prompt", func(screen string) bool { return strings.Contains(screen, prompt) })
	return s
}

// tmux runs a tmux command against the session's server and returns its output.
func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the visible text of the pane.
func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", pane) }

// keys sends tmux key names (Enter, C-c) or single characters.
func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", pane}, keys...)...)
}

// typeText types text literally.
func (s *tmuxSession) typeText(text string) { s.tmux("send-keys", "-t", pane, "-l", text) }

// waitFor polls the screen until ok accepts it, for at most 15s, and returns that screen. On timeout it fails
// the test with the last screen.
func (s *tmuxSession) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	var screen string
	deadline := time.Now().Add(15 * time.Second)
	for {
		screen = s.screen()
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; the screen is:\n%s", what, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eventually polls cond for at most 15s and fails the test, naming what, if it never holds.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last: %s", what, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tokensOn reads resource from every master: the values, "" where the key is absent.
func tokensOn(clients []*redis.Client, resource string) ([]string, error) {
	tokens := make([]string, len(clients))
	for i, c := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		v, err := c.Get(ctx, resource).Result()
		cancel()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, fmt.Errorf("GET %s on master %d: %w", resource, i+1, err)
		default:
			tokens[i] = v
		}
	}
	return tokens, nil
}

// heldEverywhere reports whether resource holds one token on every master. A failed read is reported as not
// held, so that eventually retries it on a loaded machine.
func heldEverywhere(clients []*redis.Client, resource string) (bool, string) {
	tokens, err := tokensOn(clients, resource)
	if err != nil {
		return false, err.Error()
	}
	for _, tok := range tokens {
		if tok == "" || tok != tokens[0] {
			return false, fmt.Sprintf("tokens %q", tokens)
		}
	}
	return true, ""
}

// goneEverywhere reports whether resource is absent from every master; a failed read counts as not gone.
func goneEverywhere(clients []*redis.Client, resource string) (bool, string) {
	tokens, err := tokensOn(clients, resource)
	if err != nil {
		return false, err.Error()
	}
	return strings.Join(tokens, "") == "", fmt.Sprintf("tokens %q", tokens)
}

// fitsWidth reports whether every line of screen is at most width cells wide (one cell per rune here: the
// dashboard draws no wide characters).
func fitsWidth(screen string, width int) bool {
	for _, line := range strings.Split(screen, "\n") {
		if utf8.RuneCountInString(line) > width {
			return false
		}
	}
	return true
}

// exitStatusLine matches the line the shell prints after the dashboard exits (echo "exit=$?").
var exitStatusLine = regexp.MustCompile(`(?m)^exit=(\d+)$`)

// waitForExit waits for the shell to print the dashboard's exit status and its prompt again, and returns the
// screen and the status.
func waitForExit(s *tmuxSession) (screen, status string) {
	s.t.Helper()
	screen = s.waitFor("the exit status and the shell prompt", func(screen string) bool {
		loc := exitStatusLine.FindStringIndex(screen)
		return loc != nil && strings.Contains(screen[loc[1]:], prompt)
	})
	return screen, exitStatusLine.FindStringSubmatch(screen)[1]
}

// acquireWithKeys opens the acquire form, types resource and submits it.
func acquireWithKeys(s *tmuxSession, resource string) {
	s.keys("a")
	s.waitFor("the acquire form", func(screen string) bool { return strings.Contains(screen, "Acquire a lock") })
	s.typeText(resource)
	s.waitFor("the typed resource in the form", func(screen string) bool { return strings.Contains(screen, resource) })
	s.keys("Enter")
}

// startDashboard starts the built binary in tmux on three new masters with the extra flags, and waits until
// the screen shows every master up. The exit status is printed after the program, on the restored terminal.
// Its node timeout is a generous second rather than the default 50ms: the tests run beside others on a loaded
// machine, where a lock command answered late would be a timeout these tests are not about.
func startDashboard(t *testing.T, flags string) (*tmuxSession, []*redis.Client, []string) {
	t.Helper()
	s := startTmux(t)
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := redlocktest.Addrs(masters)
	s.typeText(fmt.Sprintf("%s --masters %s --node-timeout 1s %s; echo \"exit=$?\"", bin, strings.Join(addrs, ","), flags))
	s.keys("Enter")
	s.waitFor("all three masters up", func(screen string) bool {
		for _, a := range addrs {
			if !strings.Contains(screen, a) {
				return false
			}
		}
		return strings.Contains(screen, "3/3 up")
	})
	return s, clients, addrs
}

func TestDashboardInTmux(t *testing.T) {
	t.Parallel()
	s, clients, addrs := startDashboard(t, "--ttl 30s")

	const first = "e2e:orders-1"
	acquireWithKeys(s, first)
	eventually(t, first+" held on every master", func() (bool, string) { return heldEverywhere(clients, first) })
	s.waitFor(first+" shown held by us", func(screen string) bool {
		for _, line := range strings.Split(screen, "\n") {
			if strings.Contains(line, first) && strings.Contains(line, "you") && strings.Contains(line, "held") {
				return true
			}
		}
		return false
	})

	s.keys("r")
	eventually(t, first+" released from every master", func() (bool, string) { return goneEverywhere(clients, first) })
	s.waitFor("the release on screen", func(screen string) bool { return strings.Contains(screen, "released "+first) })

	for _, size := range []struct{ w, h int }{{80, 24}, {40, 12}, {120, 40}} {
		s.tmux("resize-window", "-t", pane, "-x", fmt.Sprint(size.w), "-y", fmt.Sprint(size.h))
		small := size.w < 64 || size.h < 16
		screen := s.waitFor(fmt.Sprintf("a redrawn %dx%d screen", size.w, size.h), func(screen string) bool {
			if small { // the compact view: the header and the locks in trouble
				return strings.Contains(screen, "LOCKS IN TROUBLE") && !strings.Contains(screen, "Enlarge")
			}
			return strings.Contains(screen, "3/3 up") && strings.Contains(screen, addrs[0]) &&
				!strings.Contains(screen, "Enlarge")
		})
		if !fitsWidth(screen, size.w) {
			t.Errorf("at %dx%d a line is wider than the window:\n%s", size.w, size.h, screen)
		}
	}

	// A lock still held at quit is released by the dashboard before it exits.
	const second = "e2e:orders-2"
	acquireWithKeys(s, second)
	eventually(t, second+" held on every master", func() (bool, string) { return heldEverywhere(clients, second) })

	s.keys("q") // the dashboard holds a lock: it asks first
	s.waitFor("the question before quitting with a lock held", func(screen string) bool {
		return strings.Contains(screen, "Quit redlock-tui?") && strings.Contains(screen, "holds 1 lock it acquired: "+second)
	})
	s.keys("Enter")
	screen, status := waitForExit(s)
	if status != "0" {
		t.Errorf("the dashboard exited with status %s, want 0:\n%s", status, screen)
	}
	if !strings.Contains(screen, "released 1 lock") {
		t.Errorf("no summary line saying our lock was released on the restored terminal:\n%s", screen)
	}
	if strings.Contains(screen, "Masters") {
		t.Errorf("the dashboard is still on screen after quitting:\n%s", screen)
	}
	if alt := strings.TrimSpace(s.tmux("display-message", "-p", "-t", pane, "#{alternate_on}")); alt != "0" {
		t.Errorf("the terminal is still on the alternate screen (alternate_on=%s)", alt)
	}
	// The dashboard has exited, so nothing else can remove the keys: waiting only rides out a failed read.
	eventually(t, second+" gone from every master after quitting", func() (bool, string) { return goneEverywhere(clients, second) })
	eventually(t, first+" still gone from every master", func() (bool, string) { return goneEverywhere(clients, first) })
}

func TestDashboardReleasesOurLocksOnSIGTERM(t *testing.T) {
	t.Parallel()
	s, clients, _ := startDashboard(t, "--ttl 30s")
	const resource = "e2e:sigterm"
	acquireWithKeys(s, resource)
	eventually(t, resource+" held on every master", func() (bool, string) { return heldEverywhere(clients, resource) })

	// The dashboard is the only child of the pane's shell.
	shell := strings.TrimSpace(s.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"))
	children, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		t.Skipf("cannot find the dashboard's process: %v", err)
	}
	pids := strings.Fields(string(children))
	if len(pids) != 1 {
		t.Fatalf("the shell has children %q, want only the dashboard", pids)
	}
	pid, err := strconv.Atoi(pids[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	screen, status := waitForExit(s)
	if status != "0" || !strings.Contains(screen, "released 1 lock") {
		t.Errorf("after SIGTERM: exit status %s; want 0 and a summary saying our lock was released:\n%s", status, screen)
	}
	// The dashboard has exited, so nothing else can remove the key: waiting only rides out a failed read.
	eventually(t, resource+" gone from every master after SIGTERM", func() (bool, string) { return goneEverywhere(clients, resource) })
}

func TestDashboardReadOnlyWritesNothing(t *testing.T) {
	t.Parallel()
	s, clients, _ := startDashboard(t, "--read-only")
	s.keys("a")
	s.waitFor("the acquire key refused in read-only mode", func(screen string) bool {
		return strings.Contains(screen, "is disabled: the dashboard runs read-only") && !strings.Contains(screen, "Acquire a lock")
	})
	s.keys("q")
	screen, status := waitForExit(s)
	if status != "0" || !strings.Contains(screen, "read-only: no locks taken") {
		t.Errorf("exit status %s; want 0 and a read-only summary line:\n%s", status, screen)
	}
	for i, c := range clients {
		n, err := c.DBSize(context.Background()).Result()
		if err != nil || n != 0 {
			t.Errorf("master %d holds %d keys (err %v) after a read-only session, want none", i+1, n, err)
		}
	}
}

// writeTestPKI writes a CA certificate and a server certificate for 127.0.0.1 and localhost, signed by it, with
// the server's key, into dir.
func writeTestPKI(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, serverKey := newKey(), newKey()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "redlock-tui test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	server := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "redis"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	serverDER, err := x509.CreateCertificate(rand.Reader, server, ca, &serverKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(serverKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, kind string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("server.pem", "CERTIFICATE", serverDER),
		write("server.key", "EC PRIVATE KEY", keyDER)
}

func TestOnceOverTLS(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server for TLS (install it, or set REDLOCK_TEST_REDIS=required)")
	}
	bin := buildBinary(t)
	caFile, certFile, keyFile := writeTestPKI(t, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	redlocktest.StartServers(t, 1, redlocktest.ServerOptions{Args: []string{
		"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", certFile, "--tls-key-file", keyFile,
		"--tls-ca-cert-file", caFile, "--tls-auth-clients", "no",
	}})
	url := fmt.Sprintf("rediss://127.0.0.1:%d", tlsPort)
	tests := []struct {
		name    string
		args    []string
		want    int
		warning bool
	}{
		{"verified with --tls-ca-file", []string{"-m", url, "--tls-ca-file", caFile}, cli.ExitOK, false},
		{"verified by host name", []string{"-m", fmt.Sprintf("rediss://localhost:%d", tlsPort), "--tls-ca-file", caFile},
			cli.ExitOK, false},
		{"unknown CA", []string{"-m", url}, cli.ExitNoQuorum, false},
		{"--tls-skip-verify", []string{"-m", url, "--tls-skip-verify"}, cli.ExitOK, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, bin, nil, append([]string{"--once", "--json"}, tc.args...)...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d (stderr %q)\n%s", code, tc.want, stderr, stdout)
			}
			s := monitortest.DecodeJSON(t, stdout)
			if len(s.Masters) != 1 || s.Masters[0].Up != (tc.want == cli.ExitOK) {
				t.Errorf("masters %+v, want one, up %v", s.Masters, tc.want == cli.ExitOK)
			}
			if got := strings.Contains(stderr, "WARNING"); got != tc.warning {
				t.Errorf("warning on stderr %v, want %v: %q", got, tc.warning, stderr)
			}
		})
	}
}
