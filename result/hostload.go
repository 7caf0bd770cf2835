package result

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
