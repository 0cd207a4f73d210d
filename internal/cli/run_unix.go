//go:build unix && !linux

package cli

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// commandSysProcAttr starts the command in the process group pgid, the watchdog's (see startWatchdog), so that a
// loss or a signal reaches everything it started (a shell's pipeline too) and the watchdog kills all of that if
// run dies.
func commandSysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
}

// othersInGroup counts the live processes of process group pgid other than except (the watchdog), as ps
// lists them; zombies, which run nothing, are not counted. When ps cannot be run it counts none.
func othersInGroup(pgid, except int) int {
	out, err := exec.Command("ps", "-A", "-o", "pid=", "-o", "pgid=", "-o", "stat=").Output()
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || strings.HasPrefix(f[2], "Z") {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		g, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && g == pgid && pid != except {
			n++
		}
	}
	return n
}
