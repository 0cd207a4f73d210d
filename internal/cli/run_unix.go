//go:build unix && !linux

package cli

import "syscall"

// commandSysProcAttr starts the command in the process group pgid, the watchdog's (see startWatchdog), so that a
// loss or a signal reaches everything it started (a shell's pipeline too) and the watchdog kills all of that if
// run dies.
func commandSysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
}
