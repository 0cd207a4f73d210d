package cli

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// commandSysProcAttr starts the command in the process group pgid, the watchdog's (see startWatchdog), so that a
// loss or a signal reaches everything it started (a shell's pipeline too) and the watchdog kills all of that if
// run dies. As a second line of defence it has the kernel SIGKILL the command itself if run dies. (The kernel
// sends that signal when the OS thread that started the command exits; Go keeps its threads while the process
// lives unless a goroutine locked to one ends.)
func commandSysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, Pdeathsig: syscall.SIGKILL}
}

// othersInGroup counts the live processes of process group pgid other than except (the watchdog), from /proc;
// zombies, which run nothing, are not counted.
func othersInGroup(pgid, except int) int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == except {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read from its last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		if g, err := strconv.Atoi(fields[2]); err == nil && g == pgid {
			n++
		}
	}
	return n
}
