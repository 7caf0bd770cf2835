//go:build !linux

package cpuset

import (
	"errors"
	"os/exec"
)

// affinitySupported reports whether CPU sets are applied on this platform.
const affinitySupported = false

// errNoAffinity is returned where CPU sets cannot be applied.
var errNoAffinity = errors.New("CPU sets are applied on Linux only")

// Allowed returns the CPUs this process may run on; on this platform
// it cannot tell.
func Allowed() (Set, error) { return nil, errNoAffinity }

// Pin restricts the process to set; not on this platform.
func Pin(set Set) error { return errNoAffinity }

// StartOn starts cmd; the CPU set is not applied on this platform.
func StartOn(cmd *exec.Cmd, set Set) error { return errNoAffinity }

// OfProcess returns the CPUs process pid may run on; not on this
// platform.
func OfProcess(pid int) (Set, error) { return nil, errNoAffinity }
