//go:build !linux

package runnerspeed

// forEachCPU cannot pin threads on this platform: Measure probes unpinned.
func forEachCPU(func(cpu int)) {}
