package result

import "time"

// HostLoad is how busy the machine was during one trial apart from
// perfgate and the targets it started, from /proc/stat and /proc/[pid]/stat.
//
//	other_cpu_cores = (busy CPU time of the host − CPU time of perfgate's
//	                   own process tree and its targets) / wall time
//	steal_pct       = 100 · steal time / total CPU time of the host
//
// A trial whose other_cpu_cores exceeds the threshold (see Busy) or whose
// steal exceeds its own threshold was measured on a contended host: a
// regression resting on it is reported inconclusive (host busy).
type HostLoad struct {
	OtherCPUCores float64 `json:"other_cpu_cores"`
	StealPct      float64 `json:"steal_pct"`
	// Busy is true when the trial crossed a contention threshold; Why
	// says which.
	Busy bool   `json:"busy,omitempty"`
	Why  string `json:"why,omitempty"`
}

// RunnerSpeed is the runner's own speed around a scenario's run: samples
// of a fixed probe (package runnerspeed), taken before the first target
// process and after each one ends, while none of the scenario's load runs.
// A comparison tests the two sides' samples: a regression measured while
// the runner itself ran slower is inconclusive (runner slower).
type RunnerSpeed struct {
	Samples []SpeedSample `json:"samples"`
}

// SpeedSample is one probe: nanoseconds per step of a dependent
// multiply chain (compute_ns) and of a pointer chase through a 32 MiB
// random cycle (memory_ns), each the mean over the CPUs probed of each
// CPU's median of 5 timings. Lower is faster.
type SpeedSample struct {
	At        time.Time `json:"at"`
	ComputeNs float64   `json:"compute_ns"`
	MemoryNs  float64   `json:"memory_ns"`
	CPUs      int       `json:"cpus"`
}
