package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// The watchdog kills the command's whole process group when run dies, even by SIGKILL, which run cannot catch.
// It is a shell that run starts before the command. It leads a process group that the command is started into,
// so it knows the job's group from the start, and it reads a pipe whose only writer is run. When run dies, by
// any means, the kernel closes that pipe, the watchdog's read ends without "done", and it SIGKILLs its group,
// itself included: everything in the group that the command started dies with the command. When the command
// ends normally run writes "done" and the watchdog exits without killing anything. It ignores the signals run
// passes on to the group, so they reach the command and leave the watchdog running.
//
// Why a process rather than something in run: nothing in run survives SIGKILL. Linux's Pdeathsig reaches only
// the command itself, not its children; a child subreaper needs run to be alive; a PID namespace or a cgroup
// would take the whole job down but need privileges or systemd, and change what the command sees.

// WatchdogName is the watchdog's $0: `ps` shows it at the end of the watchdog's command line.
const WatchdogName = "redlock-tui-run-watchdog"

// watchdogScript is the watchdog. It says "ready" once it ignores the forwarded signals (see forwardedSignals),
// so that no signal run passes on can kill it; kill, read, trap and echo are built into every POSIX shell.
const watchdogScript = `trap '' INT TERM HUP QUIT USR1 USR2
echo ready
read -r line
[ "$line" = done ] && exit 0
kill -s KILL 0`

// watchdogShell runs the watchdog, by absolute path so that $PATH has no say.
const watchdogShell = "/bin/sh"

// watchdog is a running watchdog.
type watchdog struct {
	pid    int
	stdin  *os.File      // the write end of the watchdog's stdin, close-on-exec so the command does not hold it
	exited chan struct{} // closed once the watchdog has exited and been reaped
	state  *os.ProcessState
}

// startWatchdog starts a watchdog leading a new process group (pgid 0) or joining the process group pgid, and
// returns once it ignores the forwarded signals.
func startWatchdog(pgid int) (*watchdog, error) {
	stdinR, stdinW, err := os.Pipe() // os.Pipe's descriptors are close-on-exec
	if err != nil {
		return nil, err
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		_, _ = stdinR.Close(), stdinW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path: watchdogShell,
		// "sh" as argv[0] keeps bash, where it is /bin/sh, in POSIX mode, which reads no startup file.
		Args: []string{"sh", "-c", watchdogScript, WatchdogName},
		Env:  []string{"PATH=/usr/bin:/bin"}, // nothing of run's environment (ENV, BASH_ENV) reaches the shell
		Dir:  "/",                            // the watchdog keeps no directory busy
		// Stderr is /dev/null: nothing to say, and a closed pipe there must not kill it with SIGPIPE.
		Stdin: stdinR, Stdout: readyW,
		// No Pdeathsig: the watchdog must outlive run to do its work.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pgid: pgid},
	}
	err = cmd.Start()
	_, _ = stdinR.Close(), readyW.Close() // the watchdog has its copies
	if err != nil {
		_, _ = stdinW.Close(), readyR.Close()
		return nil, fmt.Errorf("starting the watchdog: %w", err)
	}
	w := &watchdog{pid: cmd.Process.Pid, stdin: stdinW, exited: make(chan struct{})}
	go func() {
		defer close(w.exited)
		_ = cmd.Wait() // its status is in cmd.ProcessState
		w.state = cmd.ProcessState
	}()
	ready := make([]byte, len("ready\n"))
	_, err = io.ReadFull(readyR, ready) // the watchdog writes it or dies: EOF either way, no need for a timeout
	_ = readyR.Close()
	if err != nil || string(ready) != "ready\n" {
		w.release() // "done": should it live, it must not kill the group it joined
		return nil, fmt.Errorf("the watchdog (%s) ended before it was ready: %v", watchdogShell, w.state)
	}
	return w, nil
}

// release tells the watchdog that run is done with the job, so that it exits without killing anything, and
// waits for it to exit.
func (w *watchdog) release() {
	_, _ = w.stdin.WriteString("done\n") // EPIPE if it is gone already; a line is written whole or not at all
	_ = w.stdin.Close()
	t := time.NewTimer(watchdogExitWait)
	defer t.Stop()
	select {
	case <-w.exited:
	case <-t.C: // stopped (SIGSTOP) by someone: it alone is killed, not the group it was told to spare
		_ = syscall.Kill(w.pid, syscall.SIGKILL)
		<-w.exited
	}
}

// watchdogExitWait bounds how long a released watchdog may take to exit, so that run's exit never waits for a
// watchdog someone stopped.
const watchdogExitWait = 2 * time.Second

// abandon closes the watchdog's pipe without "done", as run's death would: the watchdog SIGKILLs its group,
// itself included. It waits for the watchdog to exit.
func (w *watchdog) abandon() {
	_ = w.stdin.Close()
	<-w.exited
}
