//go:build unix && !linux

package testbed

import "syscall"

// sysProcAttr puts redis-server in its own process group, so signals reach
// it and any child it forks. Without Linux's parent-death signal, only Close
// (or the test's cleanup) kills it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
