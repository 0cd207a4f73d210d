//go:build unix && !linux

package main

import "syscall"

// commandSysProcAttr puts the command in a process group of its own, so that a loss or a signal reaches
// everything it started (a shell's pipeline too).
func commandSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
