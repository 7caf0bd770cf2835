package harness

import (
	"os"
	"strconv"
)

// readRunQueue reads every thread's /proc/self/task/<tid>/schedstat
// (the kernel's per-task run time, run-queue wait and timeslices; present
// when the kernel has CONFIG_SCHED_INFO, as every distribution's does).
// It returns nil when they cannot be read.
func readRunQueue() runQueueSnapshot {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	snap := make(runQueueSnapshot, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		if ts, ok := parseSchedstat(b); ok {
			snap[tid] = ts
		}
	}
	if len(snap) == 0 {
		return nil
	}
	return snap
}
