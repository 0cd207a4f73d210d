package main

import "syscall"

// commandSysProcAttr puts the command in a process group of its own, so that a loss or a signal reaches
// everything it started (a shell's pipeline too), and has the kernel SIGKILL it if run itself dies, so that it
// never runs on without the lock. (The kernel sends that signal when the OS thread that started the command
// exits; Go keeps its threads while the process lives unless a goroutine locked to one ends.)
func commandSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
