package testbed

import "syscall"

// sysProcAttr puts redis-server in its own process group (so signals reach
// it and any child it forks) and has the kernel SIGKILL it when the test
// binary dies, so it never outlives the tests. (The kernel sends the signal
// when the OS thread that started the process exits; Go keeps its threads
// until the process exits unless a goroutine ends while locked to one with
// runtime.LockOSThread, so do not start servers from such a goroutine.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
