package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file run `redlock-tui run` as a real process against real redis-server masters, with
// shell scripts as the commands; the scripts find their working directory in $D.

// runProcess is a `redlock-tui run` started in the background.
type runProcess struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	code           int
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startRun starts bin with args, with D=dir in its environment; t.Cleanup kills it if it is still running.
func startRun(t *testing.T, bin, dir string, args ...string) *runProcess {
	t.Helper()
	p := &runProcess{t: t, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "D="+dir)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		err := p.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit) && exit.Exited():
			p.code = exit.ExitCode()
		default:
			p.code = -1 // killed by a signal: run itself should never end that way
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits at most limit for the process to exit and returns its exit status; it fails the test on timeout.
func (p *runProcess) wait(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		p.t.Fatalf("run did not exit within %s; stderr:\n%s", limit, p.stderr.String())
		return 0
	}
}

// exited reports whether the process has exited.
func (p *runProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// readFileEventually waits for a script to write path (non-empty, ending in a newline) and returns it trimmed.
func readFileEventually(t *testing.T, path string) string {
	t.Helper()
	var text string
	eventually(t, "the command to write "+filepath.Base(path), func() (bool, string) {
		data, err := os.ReadFile(path)
		text = string(data)
		return err == nil && strings.HasSuffix(text, "\n"), "not written yet"
	})
	return strings.TrimSpace(text)
}

// touch creates an empty file, the signal the test scripts wait for.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// liveInGroup lists the processes of process group pgid that are not zombies, from /proc.
func liveInGroup(t *testing.T, pgid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to list processes")
	}
	var live []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its closing parenthesis.
		fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		pid, _ := strconv.Atoi(strings.Fields(string(data))[0])
		live = append(live, pid)
	}
	return live
}

// heldOnQuorum reports whether one token of resource is on a majority of the masters (a lock round is decided
// at quorum, so a late master may miss it). A failed read counts as not held, so that eventually retries it.
func heldOnQuorum(clients []*redis.Client, resource string) (bool, string) {
	tokens, err := tokensOn(clients, resource)
	if err != nil {
		return false, err.Error()
	}
	count := map[string]int{}
	for _, tok := range tokens {
		if tok != "" {
			count[tok]++
		}
	}
	for _, n := range count {
		if n > len(clients)/2 {
			return true, ""
		}
	}
	return false, fmt.Sprintf("tokens %q", tokens)
}

// waitScript writes its pid to $D/pid and then waits until $D/go exists.
const waitScript = `echo $$ > "$D/pid"; while [ ! -e "$D/go" ]; do sleep 0.05; done`

func TestRunGivesTheCommandTheTokenOnTheMastersAndReturnsItsStatus(t *testing.T) {
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "cron:nightly"
	script := `echo "$REDLOCK_RESOURCE" > "$D/resource"; echo "$REDLOCK_VALID_UNTIL" > "$D/until"
echo "${REDLOCK_FENCE-none}" > "$D/fence"; echo "$REDLOCK_TOKEN" > "$D/token"; ` + waitScript + `; exit 7`
	p := startRun(t, bin, dir, "run", "-m", strings.Join(addrsOf(masters), ","), "--ttl", "5s",
		resource, "--", "sh", "-c", script)

	token := readFileEventually(t, filepath.Join(dir, "token"))
	onMasters, err := tokensOn(clients, resource)
	if err != nil {
		t.Fatal(err)
	}
	holding := 0
	for _, got := range onMasters {
		if token != "" && got == token {
			holding++
		} else if got != "" {
			t.Errorf("a master holds %q for %s; the command was given REDLOCK_TOKEN=%q", got, resource, token)
		}
	}
	if holding < 2 {
		t.Errorf("the masters hold %q for %s; want the command's REDLOCK_TOKEN=%q on a quorum", onMasters, resource, token)
	}
	if got := readFileEventually(t, filepath.Join(dir, "resource")); got != resource {
		t.Errorf("REDLOCK_RESOURCE=%q, want %q", got, resource)
	}
	until, err := time.Parse(time.RFC3339Nano, readFileEventually(t, filepath.Join(dir, "until")))
	if err != nil || until.Before(time.Now().Add(-5*time.Second)) || until.After(time.Now().Add(5*time.Second)) {
		t.Errorf("REDLOCK_VALID_UNTIL=%v (%v); want a time within the 5s TTL of now", until, err)
	}
	if got := readFileEventually(t, filepath.Join(dir, "fence")); got != "none" {
		t.Errorf("REDLOCK_FENCE=%q for a lock without a fencing token; want it unset", got)
	}

	touch(t, filepath.Join(dir, "go"))
	if code := p.wait(30 * time.Second); code != 7 {
		t.Errorf("run exited %d, want the command's 7; stderr:\n%s", code, p.stderr.String())
	}
	if ok, state := goneEverywhere(clients, resource); !ok {
		t.Errorf("after run exited the lock is still on the masters: %s", state)
	}
}

func TestRunWaitsForTheHolderThenRuns(t *testing.T) {
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(addrsOf(masters), ",")
	first, second := t.TempDir(), t.TempDir()
	const resource = "cron:once"

	holder := startRun(t, bin, first, "run", "-m", addrs, "--ttl", "3s", resource, "--", "sh", "-c", waitScript)
	readFileEventually(t, filepath.Join(first, "pid"))
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })

	// Without --wait, the rounds of --retries are all it gets.
	code, _, stderr := runBinary(t, bin, nil, "run", "-m", addrs, "--retries", "1", resource, "--", "true")
	if code != exitNotAcquired || !strings.Contains(stderr, "not acquired") {
		t.Errorf("run on a held resource without --wait: exit %d, stderr %q; want %d saying it was not acquired",
			code, stderr, exitNotAcquired)
	}

	waiter := startRun(t, bin, second, "run", "-m", addrs, "--wait", "2m", resource, "--",
		"sh", "-c", `echo started > "$D/started"`)
	// Several acquire rounds of the waiter (every 50-250ms) fail while the holder keeps its lock past its TTL.
	time.Sleep(4 * time.Second)
	if _, err := os.Stat(filepath.Join(second, "started")); err == nil || waiter.exited() {
		t.Fatalf("the waiting run started its command while the first held the lock (exited %v); stderr:\n%s",
			waiter.exited(), waiter.stderr.String())
	}
	touch(t, filepath.Join(first, "go"))
	if code := holder.wait(30 * time.Second); code != 0 {
		t.Errorf("the first run exited %d, want 0; stderr:\n%s", code, holder.stderr.String())
	}
	if code := waiter.wait(time.Minute); code != 0 {
		t.Errorf("the waiting run exited %d, want 0 once the first released; stderr:\n%s", code, waiter.stderr.String())
	}
	if got := readFileEventually(t, filepath.Join(second, "started")); got != "started" {
		t.Errorf("the waiting run's command wrote %q, want it to have run", got)
	}
}

func TestRunTerminatesTheCommandWhenTheLockIsLost(t *testing.T) {
	const ttl, grace = 4 * time.Second, time.Second
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"the command ends on SIGTERM", `echo $$ > "$D/pid"; exec sleep 300`},
		{"the command ignores SIGTERM and is killed after the grace period",
			`trap "" TERM; echo $$ > "$D/pid"; while :; do sleep 0.1; done`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := buildBinary(t)
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			dir := t.TempDir()
			const resource = "job:long"
			p := startRun(t, bin, dir, "run", "-m", strings.Join(addrsOf(masters), ","),
				"--ttl", ttl.String(), "--grace", grace.String(), resource, "--", "sh", "-c", tc.script)
			pid, err := strconv.Atoi(readFileEventually(t, filepath.Join(dir, "pid")))
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })

			for _, m := range masters[1:] {
				if err := m.Stop(); err != nil {
					t.Fatal(err)
				}
			}
			stopped := time.Now()
			// The loss is seen at the next extension, due when a third of the TTL is left; the slack is for a
			// loaded machine.
			code := p.wait(ttl + grace + 10*time.Second)
			took := time.Since(stopped)
			if code != exitLockLost || !strings.Contains(p.stderr.String(), "lost") {
				t.Errorf("majority stopped: run exited %d, stderr %q; want %d saying the lock was lost",
					code, p.stderr.String(), exitLockLost)
			}
			if took > ttl+grace+3*time.Second {
				t.Errorf("run took %s after the majority stopped; want about the TTL %s (plus the grace %s)", took, ttl, grace)
			}
			if live := liveInGroup(t, pid); len(live) > 0 {
				t.Errorf("processes %v of the command's group still run after the lock was lost", live)
			}
		})
	}
}

func TestRunPassesSIGTERMOnAndReleases(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		wantCode int
	}{
		{"the command exits on its own terms", `trap 'echo TERM > "$D/got"; exit 3' TERM; ` + waitScript, 3},
		{"the command dies of the signal", `echo TERM > "$D/got"; ` + waitScript, 128 + int(syscall.SIGTERM)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := buildBinary(t)
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			dir := t.TempDir()
			const resource = "job:signalled"
			p := startRun(t, bin, dir, "run", "-m", strings.Join(addrsOf(masters), ","), "--ttl", "30s",
				resource, "--", "sh", "-c", tc.script)
			pid, err := strconv.Atoi(readFileEventually(t, filepath.Join(dir, "pid")))
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })

			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(30 * time.Second); code != tc.wantCode {
				t.Errorf("SIGTERM to run: exit %d, want %d; stderr:\n%s", code, tc.wantCode, p.stderr.String())
			}
			if got := readFileEventually(t, filepath.Join(dir, "got")); got != "TERM" {
				t.Errorf("the command wrote %q, want TERM", got)
			}
			if live := liveInGroup(t, pid); len(live) > 0 {
				t.Errorf("processes %v of the command's group still run after run exited", live)
			}
			// The TTL is 30s: a key gone now was released by run.
			if ok, state := goneEverywhere(clients, resource); !ok {
				t.Errorf("after run exited the lock is still on the masters: %s", state)
			}
		})
	}
}

func TestRunCommandThatCannotStart(t *testing.T) {
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(addrsOf(masters), ",")
	notExecutable := filepath.Join(t.TempDir(), "script")
	touch(t, notExecutable)
	for _, tc := range []struct {
		command  string
		wantCode int
	}{
		{"no-such-command-redlock-tui", exitNotFound},
		{notExecutable, exitCannotRun},
	} {
		code, _, stderr := runBinary(t, bin, nil, "run", "-m", addrs, "job:broken", "--", tc.command)
		if code != tc.wantCode || strings.Count(stderr, "\n") != 1 {
			t.Errorf("run -- %s: exit %d, stderr %q; want %d and one line", tc.command, code, stderr, tc.wantCode)
		}
	}
	if ok, state := goneEverywhere(clients, "job:broken"); !ok {
		t.Errorf("the lock is still on the masters after the command could not start: %s", state)
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
		if code != exitUsage || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
			!strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want %d and one line on stderr mentioning %q",
				tc.args, code, stdout.String(), stderr.String(), exitUsage, tc.want)
		}
	}
}

func TestRunWithFencingGivesTheCommandTheLocksFence(t *testing.T) {
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "cron:fenced"
	for range 2 { // the second lock's fence is higher than the first's
		p := startRun(t, bin, dir, "run", "-m", strings.Join(addrsOf(masters), ","), "--fencing", "--ttl", "5s",
			resource, "--", "sh", "-c", `echo "${REDLOCK_FENCE-none}" >> "$D/fences"`)
		if code := p.wait(30 * time.Second); code != 0 {
			t.Fatalf("run exited %d; stderr:\n%s", code, p.stderr.String())
		}
	}
	fences := strings.Fields(readFileEventually(t, filepath.Join(dir, "fences")))
	if len(fences) != 2 {
		t.Fatalf("the commands saw REDLOCK_FENCE %q, want two values", fences)
	}
	first, err1 := strconv.ParseUint(fences[0], 10, 64)
	second, err2 := strconv.ParseUint(fences[1], 10, 64)
	if err1 != nil || err2 != nil || first == 0 || second <= first {
		t.Errorf("REDLOCK_FENCE %q; want two tokens, the second higher", fences)
	}
	counted := 0
	for _, c := range clients {
		if v, err := c.Get(context.Background(), redlock.FenceKey(resource, redlock.DefaultFenceSuffix)).Uint64(); err == nil && v == second {
			counted++
		}
	}
	if counted < 2 {
		t.Errorf("the fence counter holds %d on %d masters, want a quorum", second, counted)
	}
}
