package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/internal/cli"
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
	return startProcess(t, nil, nil, bin, dir, args...)
}

// startRunInSession is startRun with bin leading a session of its own, so that every process it starts, and
// every process those start, can be found by that session's id (bin's pid) until one calls setsid itself.
func startRunInSession(t *testing.T, bin, dir string, args ...string) *runProcess {
	t.Helper()
	return startProcess(t, &syscall.SysProcAttr{Setsid: true}, nil, bin, dir, args...)
}

// startProcess starts bin for startRun and startRunInSession, with env added to its environment.
func startProcess(t *testing.T, attr *syscall.SysProcAttr, env []string, bin, dir string, args ...string) *runProcess {
	t.Helper()
	p := &runProcess{t: t, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.SysProcAttr = attr
	p.cmd.Env = append(append(os.Environ(), "D="+dir), env...)
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

// patientNodeTimeout is the --node-timeout of the run tests about signals and process groups rather than
// timeouts: a second instead of the default 50ms, which a loaded machine overran when releasing.
const patientNodeTimeout = "--node-timeout=1s"

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

// procStat is what the tests read of /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp, session int
	state                    string // R, S, Z...
}

// readProcStat reads /proc/PID/stat; ok is false when the process is gone (reaped).
func readProcStat(pid int) (st procStat, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp session ...: comm may hold spaces, so split after its closing parenthesis.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 4 {
		return procStat{}, false
	}
	st.pid, st.state = pid, fields[0]
	st.ppid, _ = strconv.Atoi(fields[1])
	st.pgrp, _ = strconv.Atoi(fields[2])
	st.session, _ = strconv.Atoi(fields[3])
	return st, true
}

// liveProcesses lists the processes that are not zombies and match keep, from /proc.
func liveProcesses(t *testing.T, keep func(procStat) bool) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to list processes")
	}
	var live []int
	for _, path := range stats {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.state != "Z" && keep(st) {
			live = append(live, pid)
		}
	}
	return live
}

// liveInGroup lists the processes of process group pgid that are not zombies, from /proc.
func liveInGroup(t *testing.T, pgid int) []int {
	t.Helper()
	return liveProcesses(t, func(st procStat) bool { return st.pgrp == pgid })
}

// liveInSession lists the processes of session sid that are not zombies, from /proc.
func liveInSession(t *testing.T, sid int) []int {
	t.Helper()
	return liveProcesses(t, func(st procStat) bool { return st.session == sid })
}

// isLive reports whether pid is a process that is not a zombie.
func isLive(pid int) bool {
	st, ok := readProcStat(pid)
	return ok && st.state != "Z"
}

// describeProcesses names pids with their command lines, for failure messages.
func describeProcesses(pids []int) string {
	var parts []string
	for _, pid := range pids {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		parts = append(parts, fmt.Sprintf("%d %q", pid, strings.TrimRight(strings.ReplaceAll(string(cmdline), "\x00", " "), " ")))
	}
	return strings.Join(parts, ", ")
}

// jobProcesses lists the pids and the live processes of group pgid and of session sid; 0 for pgid or sid is
// none (the kernel's own threads have group and session 0).
func jobProcesses(t *testing.T, pids []int, pgid, sid int) []int {
	t.Helper()
	all := slices.Clone(pids)
	if pgid > 0 {
		all = append(all, liveInGroup(t, pgid)...)
	}
	if sid > 0 {
		all = append(all, liveInSession(t, sid)...)
	}
	return all
}

// killLeftovers has t.Cleanup SIGKILL whatever is left of the job (see jobProcesses), so that a failing test
// leaves nothing running on the machine.
func killLeftovers(t *testing.T, pids []int, pgid, sid int) {
	t.Cleanup(func() {
		for _, pid := range jobProcesses(t, pids, pgid, sid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// survivors lists the processes of jobProcesses that still live, once each.
func survivors(t *testing.T, pids []int, pgid, sid int) []int {
	t.Helper()
	seen := map[int]bool{}
	var live []int
	for _, pid := range jobProcesses(t, pids, pgid, sid) {
		if !seen[pid] && isLive(pid) {
			seen[pid] = true
			live = append(live, pid)
		}
	}
	return live
}

// jobGoneWithin polls until none of the pids nor any process of group pgid or session sid lives, and fails
// the test, naming the survivors, if some still live after limit (counted from now, after what happened).
func jobGoneWithin(t *testing.T, limit time.Duration, after string, pids []int, pgid, sid int) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		live := survivors(t, pids, pgid, sid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s after %s, processes of the job still run (pids %v, group %d, session %d): %s",
				limit, after, pids, pgid, sid, describeProcesses(live))
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPid reads a pid that a test script wrote to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(readFileEventually(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// groupOf is the process group of pid, which must be alive.
func groupOf(t *testing.T, pid int) int {
	t.Helper()
	st, ok := readProcStat(pid)
	if !ok {
		t.Fatalf("process %d is gone", pid)
	}
	return st.pgrp
}

// watchdogOf returns the watchdog guarding the command (a live pid): the leader of the command's process group.
func watchdogOf(t *testing.T, command int) int {
	t.Helper()
	group := groupOf(t, command)
	if group == command || !isWatchdog(group) {
		t.Fatalf("the command %d is in process group %d, which no watchdog leads: %s", command, group,
			describeProcesses(liveInGroup(t, group)))
	}
	return group
}

// isWatchdog reports whether pid is a live watchdog, by the name it bears on its command line.
func isWatchdog(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && isLive(pid) && strings.Contains(string(cmdline), cli.WatchdogName)
}

// fileLinesEventually waits until the file at path holds every one of want as a line.
func fileLinesEventually(t *testing.T, path string, want ...string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s to hold %q", filepath.Base(path), want), func() (bool, string) {
		data, _ := os.ReadFile(path)
		lines := strings.Split(string(data), "\n")
		for _, w := range want {
			if !slices.Contains(lines, w) {
				return false, fmt.Sprintf("%q", data)
			}
		}
		return true, ""
	})
}

// sessionEmptyAfterExit checks, once run has exited, that no process of its session is left. The watchdog is
// reaped before run exits, so it is checked at once; processes that run SIGKILLed may take a moment to die.
func sessionEmptyAfterExit(t *testing.T, p *runProcess, watchdog int) {
	t.Helper()
	if isLive(watchdog) {
		t.Errorf("the watchdog %d still runs after run exited: %s", watchdog, describeProcesses([]int{watchdog}))
	}
	jobGoneWithin(t, 15*time.Second, "run exited", nil, 0, p.cmd.Process.Pid)
}

// killRun SIGKILLs the run process and waits until it has died (a zombie or reaped): by then the kernel has
// closed its descriptors. (p.done may come much later: it waits for every holder of run's stdout and stderr.)
func killRun(t *testing.T, p *runProcess) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "run to die of SIGKILL", func() (bool, string) {
		return !isLive(p.cmd.Process.Pid), "still running"
	})
}

// jobExitLimit bounds how long the processes of a job may outlive a run killed by SIGKILL. The watchdog needs
// a few system calls once the kernel has closed run's descriptors; a second is orders of magnitude more.
const jobExitLimit = time.Second

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
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "cron:nightly"
	script := `echo "$REDLOCK_RESOURCE" > "$D/resource"; echo "$REDLOCK_VALID_UNTIL" > "$D/until"
echo "${REDLOCK_FENCE-none}" > "$D/fence"; echo "$REDLOCK_TOKEN" > "$D/token"; ` + waitScript + `; exit 7`
	p := startRunInSession(t, bin, dir, "run", "-m", strings.Join(redlocktest.Addrs(masters), ","), "--ttl", "5s",
		resource, "--", "sh", "-c", script)

	token := readFileEventually(t, filepath.Join(dir, "token"))
	watchdog := watchdogOf(t, readPid(t, filepath.Join(dir, "pid")))
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
	sessionEmptyAfterExit(t, p, watchdog)
	if ok, state := goneEverywhere(clients, resource); !ok {
		t.Errorf("after run exited the lock is still on the masters: %s", state)
	}
}

func TestRunWaitsForTheHolderThenRuns(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	first, second := t.TempDir(), t.TempDir()
	const resource = "cron:once"

	holder := startRun(t, bin, first, "run", "-m", addrs, "--ttl", "3s", resource, "--", "sh", "-c", waitScript)
	readFileEventually(t, filepath.Join(first, "pid"))
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })

	// Without --wait, the rounds of --retries are all it gets.
	code, _, stderr := runBinary(t, bin, nil, "run", "-m", addrs, "--retries", "1", resource, "--", "true")
	if code != cli.ExitNotAcquired || !strings.Contains(stderr, "not acquired") {
		t.Errorf("run on a held resource without --wait: exit %d, stderr %q; want %d saying it was not acquired",
			code, stderr, cli.ExitNotAcquired)
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
	// Not parallel with other tests: it bounds how soon the command is stopped after the loss, which they would
	// delay. Its two cases, alike and light, run in parallel with each other.
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
			t.Parallel()
			bin := buildBinary(t)
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			dir := t.TempDir()
			const resource = "job:long"
			p := startRunInSession(t, bin, dir, "run", "-m", strings.Join(redlocktest.Addrs(masters), ","),
				"--ttl", ttl.String(), "--grace", grace.String(), resource, "--", "sh", "-c", tc.script)
			group := watchdogOf(t, readPid(t, filepath.Join(dir, "pid")))
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
			if code != cli.ExitLockLost || !strings.Contains(p.stderr.String(), "lost") {
				t.Errorf("majority stopped: run exited %d, stderr %q; want %d saying the lock was lost",
					code, p.stderr.String(), cli.ExitLockLost)
			}
			if took > ttl+grace+3*time.Second {
				t.Errorf("run took %s after the majority stopped; want about the TTL %s (plus the grace %s)", took, ttl, grace)
			}
			if live := liveInGroup(t, group); len(live) > 0 {
				t.Errorf("processes of the command's group still run after the lock was lost: %s", describeProcesses(live))
			}
			sessionEmptyAfterExit(t, p, group)
		})
	}
}

// TestRunTellsAProvenLossFromAFailedExtension: keys gone from a majority prove the lock lost and end the command
// at once, saying it was deleted; extensions that fail because the masters do not answer prove nothing, so
// the command runs on while the lock's validity lasts, and is terminated when it runs out, saying it expired.
func TestRunTellsAProvenLossFromAFailedExtension(t *testing.T) {
	t.Parallel()
	const ttl = 3 * time.Second
	for _, tc := range []struct {
		name  string
		fail  func(t *testing.T, masters []redlocktest.Master, clients []*redis.Client, resource string)
		cause redlock.LossCause
	}{
		{"the keys are gone from a majority", func(t *testing.T, _ []redlocktest.Master, clients []*redis.Client, resource string) {
			for _, c := range clients[1:] {
				if err := c.Del(context.Background(), resource).Err(); err != nil {
					t.Fatal(err)
				}
			}
		}, redlock.LossDeleted},
		{"a majority does not answer", func(t *testing.T, masters []redlocktest.Master, _ []*redis.Client, _ string) {
			for _, m := range masters[1:] {
				if err := m.Stop(); err != nil {
					t.Fatal(err)
				}
			}
		}, redlock.LossExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := buildBinary(t)
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			dir := t.TempDir()
			const resource = "job:extended"
			p := startRun(t, bin, dir, "run", "-m", strings.Join(redlocktest.Addrs(masters), ","),
				"--ttl", ttl.String(), "--grace", "1s", resource, "--", "sh", "-c", `exec sleep 300`)
			eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })
			tc.fail(t, masters, clients, resource)
			code := p.wait(ttl + 10*time.Second)
			stderr := p.stderr.String()
			if code != cli.ExitLockLost {
				t.Fatalf("run exited %d, want %d; stderr:\n%s", code, cli.ExitLockLost, stderr)
			}
			if want := fmt.Sprintf("the lock was lost (%s)", tc.cause); !strings.Contains(stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr)
			}
		})
	}
}

func TestRunPassesSIGTERMOnAndReleases(t *testing.T) {
	t.Parallel()
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
			p := startRunInSession(t, bin, dir, "run", patientNodeTimeout, "-m", strings.Join(redlocktest.Addrs(masters), ","), "--ttl", "30s",
				resource, "--", "sh", "-c", tc.script)
			group := watchdogOf(t, readPid(t, filepath.Join(dir, "pid")))
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
			sessionEmptyAfterExit(t, p, group)
			// The TTL is 30s: a key gone now was released by run.
			if ok, state := goneEverywhere(clients, resource); !ok {
				t.Errorf("after run exited the lock is still on the masters: %s", state)
			}
		})
	}
}

func TestRunCommandThatCannotStart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	notExecutable := filepath.Join(t.TempDir(), "script")
	touch(t, notExecutable)
	for _, tc := range []struct {
		command  string
		wantCode int
	}{
		{"no-such-command-redlock-tui", cli.ExitNotFound},
		{notExecutable, cli.ExitCannotRun},
	} {
		p := startRunInSession(t, bin, t.TempDir(), "run", patientNodeTimeout, "-m", addrs, "job:broken", "--", tc.command)
		code, stderr := p.wait(time.Minute), p.stderr.String()
		if code != tc.wantCode || strings.Count(stderr, "\n") != 1 {
			t.Errorf("run -- %s: exit %d, stderr %q; want %d and one line", tc.command, code, stderr, tc.wantCode)
		}
		// The watchdog was started before the command; run waits for it to exit before it exits itself.
		if live := liveInSession(t, p.cmd.Process.Pid); len(live) > 0 {
			t.Errorf("run -- %s: processes run started still run after it exited: %s", tc.command, describeProcesses(live))
		}
	}
	if ok, state := goneEverywhere(clients, "job:broken"); !ok {
		t.Errorf("the lock is still on the masters after the command could not start: %s", state)
	}
}

func TestRunKilledBySIGKILLTakesTheWholeJobWithIt(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "job:killed"
	// The command starts a grandchild in the background and waits on a child in the foreground.
	script := `sleep 300 & echo $! > "$D/grandchild"; echo $$ > "$D/pid"; sleep 300`
	p := startRunInSession(t, bin, dir, "run", patientNodeTimeout, "-m", strings.Join(redlocktest.Addrs(masters), ","), "--ttl", "30s",
		resource, "--", "sh", "-c", script)
	command, grandchild := readPid(t, filepath.Join(dir, "pid")), readPid(t, filepath.Join(dir, "grandchild"))
	group, session := groupOf(t, command), p.cmd.Process.Pid
	killLeftovers(t, []int{command, grandchild}, group, session)
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })
	if !isLive(grandchild) || groupOf(t, grandchild) != group {
		t.Fatalf("the grandchild %d is not running in the command's group %d", grandchild, group)
	}

	killRun(t, p)
	jobGoneWithin(t, jobExitLimit, "run died", []int{command, grandchild}, group, session)
}

func TestRunForwardsSignalsPastTheWatchdog(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "job:signals"
	// The command notes each signal and runs on; so does a grandchild, which ignores them. (Not INT or QUIT: a
	// shell treats a child's death by SIGINT specially, and SIGQUIT would have sleep dump core.)
	script := `(trap '' TERM HUP USR1; echo ignoring > "$D/grandchild-ready"; exec sleep 300) & echo $! > "$D/grandchild"
for s in TERM HUP USR1; do trap "echo $s >> \"\$D/got\"" $s; done; echo $$ > "$D/pid"
while :; do sleep 0.05 || :; done`
	debug := filepath.Join(dir, "debug.log")
	p := startRunInSession(t, bin, dir, "run", patientNodeTimeout, "-m", strings.Join(redlocktest.Addrs(masters), ","), "--ttl", "30s",
		"--debug", debug, resource, "--", "sh", "-c", script)
	command, grandchild := readPid(t, filepath.Join(dir, "pid")), readPid(t, filepath.Join(dir, "grandchild"))
	readFileEventually(t, filepath.Join(dir, "grandchild-ready")) // its signals are ignored from here on
	// logrotate renames the debug log before the HUP: run reopens it at its path, besides passing HUP on.
	if err := os.Rename(debug, debug+".1"); err != nil {
		t.Fatal(err)
	}
	watchdog := watchdogOf(t, command)
	session := p.cmd.Process.Pid
	killLeftovers(t, []int{command, grandchild, watchdog}, watchdog, session)
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })

	for _, sig := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGTERM, "TERM"}, {syscall.SIGHUP, "HUP"}, {syscall.SIGUSR1, "USR1"}} {
		if err := p.cmd.Process.Signal(sig.sig); err != nil {
			t.Fatal(err)
		}
		fileLinesEventually(t, filepath.Join(dir, "got"), sig.name)
	}
	if _, err := os.Stat(debug); err != nil {
		t.Errorf("run did not reopen --debug at its path on SIGHUP: %v; stderr:\n%s", err, p.stderr.String())
	}
	if !isLive(command) || !isLive(grandchild) || p.exited() {
		t.Fatalf("run, the command or its grandchild ended of signals they trapped or ignored; stderr:\n%s",
			p.stderr.String())
	}
	if !isWatchdog(watchdog) || groupOf(t, command) != watchdog || strings.Contains(p.stderr.String(), "watchdog") {
		t.Fatalf("the watchdog %d did not survive the forwarded signals: %s; stderr:\n%s", watchdog,
			describeProcesses(liveInGroup(t, groupOf(t, command))), p.stderr.String())
	}
	// It still does its work.
	killRun(t, p)
	jobGoneWithin(t, jobExitLimit, "run died", []int{command, grandchild, watchdog}, watchdog, session)
}

func TestRunReplacesAWatchdogThatWasKilled(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "job:watchdog-killed"
	script := `sleep 300 & echo $! > "$D/grandchild"; ` + waitScript
	p := startRunInSession(t, bin, dir, "run", patientNodeTimeout, "-m", strings.Join(redlocktest.Addrs(masters), ","), "--ttl", "30s",
		resource, "--", "sh", "-c", script)
	command, grandchild := readPid(t, filepath.Join(dir, "pid")), readPid(t, filepath.Join(dir, "grandchild"))
	first := watchdogOf(t, command)
	group, session := first, p.cmd.Process.Pid
	killLeftovers(t, []int{command, grandchild}, group, session)
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })

	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var second int
	eventually(t, "another watchdog in the command's group", func() (bool, string) {
		for _, pid := range liveInGroup(t, group) {
			if pid != first && isWatchdog(pid) {
				second = pid
				return strings.Contains(p.stderr.String(), fmt.Sprintf("another (pid %d)", pid)), "not reported on stderr"
			}
		}
		return false, describeProcesses(liveInGroup(t, group))
	})
	if !isLive(command) || p.exited() {
		t.Fatalf("the command or run ended when the watchdog was killed; stderr:\n%s", p.stderr.String())
	}
	// The new watchdog guards the group as the first did.
	killRun(t, p)
	jobGoneWithin(t, jobExitLimit, "run died", []int{command, grandchild, second}, group, session)
}

func TestRunEndsWhatTheCommandLeftInItsGroupOnANormalExit(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	dir := t.TempDir()
	// What the command leaves running would run on without the lock: run ends it before releasing.
	// (Its output goes elsewhere, or it would hold run's stdout and stderr open, and p.wait would wait for it.)
	script := `sleep 300 >/dev/null 2>&1 & echo $! > "$D/background"; echo $$ > "$D/pid"`
	p := startRunInSession(t, bin, dir, "run", "-m", strings.Join(redlocktest.Addrs(masters), ","), "job:background",
		"--", "sh", "-c", script)
	background := readPid(t, filepath.Join(dir, "background"))
	killLeftovers(t, []int{background}, 0, p.cmd.Process.Pid)
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("run exited %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
	if live := liveInSession(t, p.cmd.Process.Pid); len(live) > 0 {
		t.Errorf("after a normal exit processes of run's session still run: %s", describeProcesses(live))
	}
	if !strings.Contains(p.stderr.String(), "left 1 process in its process group") {
		t.Errorf("stderr does not say what was ended: %q", p.stderr.String())
	}
}

// TestRunEndsTheWholeJobOnCtrlCBeforeReleasing is issue 33's item 1: a non-interactive shell's background jobs
// ignore SIGINT and SIGQUIT, so the shell exits of the forwarded signal while they run on. run must end them
// (SIGTERM, then SIGKILL after --grace) and keep the lock until they are gone.
func TestRunEndsTheWholeJobOnCtrlCBeforeReleasing(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			bin := buildBinary(t)
			masters := redlocktest.Masters(t, 3)
			clients := redlocktest.Clients(t, masters)
			dir := t.TempDir()
			const resource = "job:interrupted"
			// Two background jobs: a plain sleep, and one that takes a second to end on SIGTERM, during which
			// the lock must still be held.
			script := `sleep 300 >/dev/null 2>&1 & echo $! > "$D/sleep"
(trap 'touch "$D/terminating"; sleep 1; exit 0' TERM; touch "$D/trapped"; while :; do sleep 0.05; done) >/dev/null 2>&1 &
echo $! > "$D/slow"; echo $$ > "$D/pid"; wait`
			p := startRunInSession(t, bin, dir, "run", patientNodeTimeout, "-m", strings.Join(redlocktest.Addrs(masters), ","),
				"--ttl", "30s", "--grace", "20s", resource, "--", "sh", "-c", script)
			command := readPid(t, filepath.Join(dir, "pid"))
			jobs := []int{readPid(t, filepath.Join(dir, "sleep")), readPid(t, filepath.Join(dir, "slow"))}
			group, session := groupOf(t, command), p.cmd.Process.Pid
			killLeftovers(t, append([]int{command}, jobs...), group, session)
			eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })
			// The slow job must have set its trap before run's SIGTERM can reach it: on a loaded machine the
			// background subshell may not have run its first line yet.
			eventually(t, "the slow job to set its trap", func() (bool, string) {
				_, err := os.Stat(filepath.Join(dir, "trapped"))
				return err == nil, "no trap yet"
			})

			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the slow job to get SIGTERM from run", func() (bool, string) {
				_, err := os.Stat(filepath.Join(dir, "terminating"))
				return err == nil, "no SIGTERM yet"
			})
			if ok, state := heldOnQuorum(clients, resource); !ok || !isLive(jobs[1]) || p.exited() {
				t.Fatalf("while the job's last process ends: lock held %v (%s), that process alive %v, run exited %v",
					ok, state, isLive(jobs[1]), p.exited())
			}
			code := p.wait(30 * time.Second)
			if want := 128 + int(sig); code != want {
				t.Errorf("run exited %d, want %d (the shell's death by %s); stderr:\n%s", code, want, sig, p.stderr.String())
			}
			if live := survivors(t, jobs, group, 0); len(live) > 0 {
				t.Errorf("when run exited, the command's background jobs still ran: %s", describeProcesses(live))
			}
			if ok, state := goneEverywhere(clients, resource); !ok {
				t.Errorf("after run exited the lock is still on the masters: %s", state)
			}
			sessionEmptyAfterExit(t, p, group)
		})
	}
}

// TestRunStopsTheJobSoonAfterALossAtTheDefaultTTL is issue 33's item 4 as run shows it: the lock deleted on a
// quorum ends the job within about a second (the keeper's check), not at the next extension two thirds of the
// TTL later, while another run could already hold the lock.
func TestRunStopsTheJobSoonAfterALossAtTheDefaultTTL(t *testing.T) {
	// Not parallel: it bounds how soon the command is stopped after the loss, which parallel tests would delay.
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "job:deleted"
	p := startRun(t, bin, dir, "run", "-m", strings.Join(redlocktest.Addrs(masters), ","), resource, "--",
		"sh", "-c", `trap 'touch "$D/term"; exit 0' TERM; echo $$ > "$D/pid"; while :; do sleep 0.05; done`)
	readPid(t, filepath.Join(dir, "pid"))
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })
	for _, c := range clients[:2] {
		if err := c.Del(context.Background(), resource).Err(); err != nil {
			t.Fatal(err)
		}
	}
	deleted := time.Now()
	eventually(t, "the job to get SIGTERM", func() (bool, string) {
		_, err := os.Stat(filepath.Join(dir, "term"))
		return err == nil, "no SIGTERM yet"
	})
	took := time.Since(deleted)
	code := p.wait(30 * time.Second)
	if code != cli.ExitLockLost || !strings.Contains(p.stderr.String(), "lost (deleted)") {
		t.Errorf("run exited %d, stderr %q; want %d saying the lock was deleted", code, p.stderr.String(), cli.ExitLockLost)
	}
	// The check runs every second at the default 10s TTL; the next extension would come 6.7s after acquiring.
	if took > 4*time.Second {
		t.Errorf("the job got SIGTERM %s after the lock was deleted on 2 of 3 masters; want about a second", took)
	}
	t.Logf("SIGTERM %s after the deletion", took.Round(time.Millisecond))
}

// TestRunLeavesNoKeyAfterAFailedTry is issue 33's item 2 as run shows it: with one of two masters stopped, run
// cannot acquire, and the reachable master must not keep the key for the TTL after run has exited.
func TestRunLeavesNoKeyAfterAFailedTry(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	servers := redlocktest.RealServers(t, 2, redlocktest.ServerOptions{})
	raw := servers[0].NewClient()
	t.Cleanup(func() { raw.Close() })
	if err := servers[1].Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { servers[1].Resume() })
	addrs := servers[0].Addr() + "," + servers[1].Addr()
	for i := range 3 {
		resource := fmt.Sprintf("job:failed-%d", i)
		code, _, stderr := runBinary(t, bin, nil, "run", "-m", addrs, "--ttl", "30s", resource, "--", "true")
		if code != cli.ExitNotAcquired {
			t.Fatalf("run with one of two masters stopped exited %d, want %d; stderr:\n%s", code, cli.ExitNotAcquired, stderr)
		}
		if n, err := raw.Exists(context.Background(), resource).Result(); err != nil || n != 0 {
			pttl, _ := raw.PTTL(context.Background(), resource).Result()
			t.Errorf("try %d: after the failed run the reachable master keeps %s for %s (err %v)", i+1, resource, pttl, err)
		}
	}
}

// TestRunRidesOutWritePausesOnAQuorum is issue 33's item 3 as run shows it: two of three masters pausing
// writes for 500ms whenever the lock is extended does not end the job.
func TestRunRidesOutWritePausesOnAQuorum(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	var raw []*redis.Client
	for _, s := range servers {
		c := s.NewClient()
		t.Cleanup(func() { c.Close() })
		raw = append(raw, c)
	}
	addrs := servers[0].Addr() + "," + servers[1].Addr() + "," + servers[2].Addr()
	p := startRun(t, bin, t.TempDir(), "run", "-m", addrs, "--ttl", "3s", "--verbose", "job:paused", "--", "sleep", "6")
	stop := make(chan struct{})
	paused := make(chan struct{})
	go func() {
		defer close(paused)
		for {
			for _, c := range raw[:2] {
				c.Do(context.Background(), "client", "pause", 500, "write")
			}
			select {
			case <-stop:
				return
			case <-time.After(1200 * time.Millisecond):
			}
		}
	}()
	code := p.wait(time.Minute)
	close(stop)
	<-paused
	if code != 0 {
		t.Errorf("run under write pauses exited %d, want 0 (the command's); stderr:\n%s", code, p.stderr.String())
	}
}

func TestRunWithFencingGivesTheCommandTheLocksFence(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	dir := t.TempDir()
	const resource = "cron:fenced"
	for range 2 { // the second lock's fence is higher than the first's
		p := startRun(t, bin, dir, "run", "-m", strings.Join(redlocktest.Addrs(masters), ","), "--fencing", "--ttl", "5s",
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

// TestRunWaiterWakesOnTheRelease is issue 43's item 8 end to end: a `run --wait` waiter for a lock held with a
// long TTL backs off (it reads the TTL left with PTTL, and sleeps seconds between rounds once subscribed to the
// lock's release channel), and starts its command as soon as the holding run releases: the holding run
// publishes the release as it exits. Once the waiter has subscribed and read the TTL twice, its sleep lasts
// at least 2.5s without a notice; it starts well within that.
func TestRunWaiterWakesOnTheRelease(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	clients := redlocktest.Clients(t, masters)
	addrs := strings.Join(redlocktest.Addrs(masters), ",")
	first, second := t.TempDir(), t.TempDir()
	const resource = "cron:wake"
	holder := startRun(t, bin, first, "run", "-m", addrs, "--ttl", "30s", resource, "--", "sh", "-c", waitScript)
	readFileEventually(t, filepath.Join(first, "pid"))
	eventually(t, resource+" held on a quorum", func() (bool, string) { return heldOnQuorum(clients, resource) })
	waiter := startRun(t, bin, second, "run", "-m", addrs, "--wait", "2m", resource, "--", "sh", "-c", `echo started > "$D/started"`)
	eventually(t, "the waiter subscribed and backing off", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		subs, err := clients[0].PubSubNumSub(ctx, redlock.ReleaseChannel(resource)).Result()
		if err != nil {
			return false, err.Error()
		}
		info, err := clients[0].Info(ctx, "commandstats").Result()
		if err != nil {
			return false, err.Error()
		}
		pttl := 0
		if _, rest, ok := strings.Cut(info, "cmdstat_pttl:calls="); ok {
			v, _, _ := strings.Cut(rest, ",")
			pttl, _ = strconv.Atoi(v)
		}
		return subs[redlock.ReleaseChannel(resource)] >= 1 && pttl >= 2, fmt.Sprintf("%v subscribed, %d PTTL", subs, pttl)
	})
	touched := time.Now()
	touch(t, filepath.Join(first, "go"))
	readFileEventually(t, filepath.Join(second, "started"))
	if took := time.Since(touched); took >= 2*time.Second {
		t.Errorf("the waiter's command started %s after the holder's command was told to end: not woken by the release", took)
	}
	if code := holder.wait(30 * time.Second); code != 0 {
		t.Errorf("the holding run exited %d; stderr:\n%s", code, holder.stderr.String())
	}
	if code := waiter.wait(30 * time.Second); code != 0 {
		t.Errorf("the waiting run exited %d; stderr:\n%s", code, waiter.stderr.String())
	}
}
