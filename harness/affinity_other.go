//go:build !linux

package harness

import (
	"errors"
	"os/exec"

	"github.com/perfgate/perfgate/internal/cpuset"
)

// affinitySupported reports whether CPU sets are applied on this platform.
const affinitySupported = false

// errNoAffinity is returned where CPU sets cannot be applied.
var errNoAffinity = errors.New("CPU sets are applied on Linux only")

// AllowedCPUs returns the CPUs this process may run on; on this platform
// it cannot tell.
func AllowedCPUs() (cpuset.Set, error) { return nil, errNoAffinity }

// PinProcess restricts the process to set; not on this platform.
func PinProcess(set cpuset.Set) error { return errNoAffinity }

// startOnCPUs starts cmd; the CPU set is not applied on this platform.
func startOnCPUs(cmd *exec.Cmd, set cpuset.Set) error { return errNoAffinity }

// ProcessCPUs returns the CPUs process pid may run on; not on this
// platform.
func ProcessCPUs(pid int) (cpuset.Set, error) { return nil, errNoAffinity }
