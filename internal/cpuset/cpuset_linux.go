//go:build linux

package cpuset

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// affinitySupported reports whether CPU sets are applied on this platform.
const affinitySupported = true

// Allowed returns the CPUs this process may run on (its main
// thread's affinity mask): where a CPU set can be applied at all.
func Allowed() (Set, error) {
	var m unix.CPUSet
	if err := unix.SchedGetaffinity(0, &m); err != nil {
		return nil, fmt.Errorf("reading perfgate's CPU affinity: %w", err)
	}
	return fromMask(&m), nil
}

// Pin restricts every thread of the calling process to set:
// perfgate's own CPUs (generator_cpus), called by cmd/perfgate before
// any load is sent. Linux sets affinity per thread, so each thread in
// /proc/self/task is set, twice over in case one was being created; a
// thread created later inherits its creator's mask, which is then set.
// The Go runtime sizes GOMAXPROCS from the mask only at start: the
// caller sets it to len(set).
func Pin(set Set) error {
	m := toMask(set)
	for range 2 {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("pinning perfgate to CPUs %s: %w", set, err)
		}
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, m); err != nil && err != unix.ESRCH {
				return fmt.Errorf("pinning perfgate to CPUs %s: thread %d: %w", set, tid, err)
			}
		}
	}
	return nil
}

// StartOn starts cmd with its affinity set to set from its very
// first instruction, so that every thread and process it creates inherits
// it (no window in which it runs, or spawns workers, elsewhere).
//
// Go cannot run code in the child between fork and exec, but a forked
// child inherits the affinity of the thread that forked it, and os/exec
// forks from the calling goroutine's thread. So the goroutine is locked to
// its thread, the thread's mask is set to set, cmd is started, and the
// thread's own mask is restored. No other goroutine runs on a locked
// thread meanwhile. If the mask cannot be restored, the goroutine exits
// still locked, and the runtime then ends the thread rather than reuse it.
func StartOn(cmd *exec.Cmd, set Set) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("reading the thread's CPU affinity: %w", err)
			return
		}
		if err := unix.SchedSetaffinity(0, toMask(set)); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("setting CPU affinity %s: %w", set, err)
			return
		}
		err := cmd.Start()
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		} // else: exit locked, so the thread is not reused with set
		errc <- err
	}()
	return <-errc
}

// OfProcess returns the CPUs process pid may run on, from the kernel.
func OfProcess(pid int) (Set, error) {
	var m unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &m); err != nil {
		return nil, fmt.Errorf("reading the CPU affinity of process %d: %w", pid, err)
	}
	return fromMask(&m), nil
}

func toMask(set Set) *unix.CPUSet {
	var m unix.CPUSet
	m.Zero()
	for _, c := range set {
		m.Set(c)
	}
	return &m
}

func fromMask(m *unix.CPUSet) Set {
	var out Set
	for c := range Max {
		if m.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}
