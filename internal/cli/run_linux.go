package cli

import "syscall"

// commandSysProcAttr starts the command in the process group pgid, the watchdog's (see startWatchdog), so that a
// loss or a signal reaches everything it started (a shell's pipeline too) and the watchdog kills all of that if
// run dies. As a second line of defence it has the kernel SIGKILL the command itself if run dies. (The kernel
// sends that signal when the OS thread that started the command exits; Go keeps its threads while the process
// lives unless a goroutine locked to one ends.)
func commandSysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, Pdeathsig: syscall.SIGKILL}
}
