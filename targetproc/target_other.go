//go:build !unix

package targetproc

import (
	"os"
	"strconv"
	"syscall"
)

// Without process groups, Stop can only end the main process: a target's
// children may outlive it on this platform.
const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// sysProcAttr has nothing to set on this platform.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup is not supported here; the main process is killed when
// sig is sigKill.
func signalGroup(pid int, sig syscall.Signal) error {
	if sig != sigKill {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

// groupAlive cannot see other processes here: once the main process has
// been reaped, the target counts as gone.
func groupAlive(pid int) bool { return false }

// describeExit says how a process ended.
func describeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "ended"
	}
	return "exited with status " + strconv.Itoa(ps.ExitCode())
}
