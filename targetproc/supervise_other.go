//go:build !linux

package targetproc

import (
	"errors"
	"syscall"
)

// supervisorSupported reports whether Spec.Supervisor is used here:
// without a parent-death signal and child subreapers, a target started on
// this platform is stopped with its process group by Stop and by the
// cancellation of its context, but outlives a perfgate killed with
// SIGKILL.
const supervisorSupported = false

// Supervise is not available on this platform.
func Supervise(parent int, argv []string) (syscall.WaitStatus, error) {
	return 0, errors.New("target supervisor: only on Linux")
}
