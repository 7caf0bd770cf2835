package runnerspeed

import "golang.org/x/sys/unix"

// forEachCPU pins the calling OS thread (locked by the caller) to each CPU
// of its affinity mask in turn, calls f there, and restores the mask. When
// the mask cannot be read or set it calls nothing: Measure then probes
// unpinned.
func forEachCPU(f func(cpu int)) {
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return
	}
	defer unix.SchedSetaffinity(0, &orig)
	for cpu := range 1024 {
		if !orig.IsSet(cpu) {
			continue
		}
		var one unix.CPUSet
		one.Set(cpu)
		if unix.SchedSetaffinity(0, &one) != nil {
			continue
		}
		f(cpu)
	}
}
