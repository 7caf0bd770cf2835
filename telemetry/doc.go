// Package telemetry samples what a load run did to the system under test
// and names the layer that held it back, with the evidence.
//
// A Collector (New) watches one scenario's trials. The harness calls
// BeginTrial and EndTrial around each trial window (it satisfies the
// harness's TrialObserver); EndTrial returns a result.Telemetry with:
//
//   - per GPU, sampled at Options.Interval (10 Hz by default) while the
//     window is open: SM and memory-bandwidth utilization, memory used,
//     power, SM clock, temperature and throttle reasons, summarized as mean
//     and max (package gpu; "no GPU" is said once, never recorded as zeros);
//   - the target's CPU use in cores and its resident memory, read from
//     /proc for the whole process group perfgate started;
//   - the server's own queue and compute time per request, from the
//     difference of its Prometheus counters scraped before and after the
//     window (Triton's nv_inference_* or vLLM's vllm:* families);
//   - the sampler's own CPU cost.
//
// Classify (and Annotate, which feeds it a trial's client-side figures)
// turns those numbers into one result.Bottleneck class. The rules are
// tried in this order and the first that holds wins:
//
//  1. generator-bound: perfgate's generator used at least
//     GeneratorCPUFraction of its cores, or its schedule lag P99 exceeded
//     MaxScheduleLagP99Ms and MaxLagShareOfP99 of the client P99 (late
//     sends are timed from their intended time, so only lag that makes up
//     much of the tail falsifies it) while it used at least
//     LagBusyFraction of its cores. The run measured perfgate, not the
//     target, so Annotate marks the trial invalid (and the suite the
//     run). The same lag with the generator mostly idle is a stall of the
//     machine, not of perfgate: Annotate marks that trial invalid and its
//     host busy, and the run stays valid.
//  2. bandwidth-bound: a GPU's mean memory-bandwidth utilization is at
//     least BandwidthMemPct while its SM utilization is below
//     BandwidthMaxSMPct ("GPU util 5%" can still be a saturated memory
//     bus). Where GPM measured the arithmetic pipes (pipe_util_pct), the
//     busiest pipe is compared instead of SM utilization: a kernel that
//     streams memory keeps its SMs "active" while its pipes idle, so on
//     Hopper a copy reads SM ~100%, pipes a few percent. Without GPM such a
//     kernel reads as compute-bound (utilization rates cannot tell them
//     apart; result.GPUStats.UtilSource says which figures were used).
//  3. compute-bound: a GPU's mean SM utilization is at least ComputeSMPct.
//  4. compute-bound on the CPU: with no GPU (NVML found none), a target
//     using at least ServerCPUFraction of its cores computes its model on
//     the CPU; the evidence names its cores.
//  5. server-side: the target's CPU is at least ServerCPUFraction of the
//     cores available to it, or requests waited in the server's queue
//     longer than they computed.
//  6. io-bound: the GPU is idle (SM and memory bandwidth both below
//     IdleGPUPct) or absent, the target's CPU is below IdleCPUFraction of
//     its cores, and the client's P50 is more than IOClientFactor times the
//     server's own queue+compute time: the time goes on the wire, in
//     serialization or in connection handling.
//  7. unknown: none of the above could be shown; the evidence says what
//     was and was not measured.
//
// Each class carries a Next step, the move the method suggests for it.
package telemetry

// Classification thresholds. Utilizations are in percent; fractions are of
// the cores available to the process concerned.
const (
	// GeneratorCPUFraction: generator CPU ≥ 90% of its cores is
	// generator-bound.
	GeneratorCPUFraction = 0.90
	// MaxScheduleLagP99Ms: an open-loop generator whose sends run more than
	// 10 ms late at P99 is not holding its schedule.
	MaxScheduleLagP99Ms = 10.0
	// MaxLagShareOfP99: lag above the bound is generator-bound only when it
	// exceeds this share of the client P99 (the tail is mostly lateness).
	MaxLagShareOfP99 = 0.5
	// LagBusyFraction: such lag is the generator's own doing only when it
	// used at least this share of its cores (harness.BusyCPUShare, the same
	// line for its goroutines' scheduling delay). Late while mostly idle,
	// it was not given a CPU: the machine stalled (other work, or the
	// hypervisor), and only that trial is invalid (Stalled).
	LagBusyFraction = 0.5
	// StallRunQueueMs: a stall also needs the generator's threads to have
	// waited under this long on average in the run queue each time they
	// ran (a quarter of harness.MaxRunQueueWait, several times what
	// quiet trials wait: bench/RESULTS-rules.md#telemetrystalled): a
	// generator crowded off its cores waits there, a paused machine
	// leaves no queue.
	StallRunQueueMs = 0.25
	// ComputeSMPct: SM utilization ≥ 80% is compute-bound.
	ComputeSMPct = 80.0
	// BandwidthMemPct and BandwidthMaxSMPct: memory-bandwidth utilization
	// ≥ 60% with SM utilization (or, with GPM, the busiest pipe) < 50% is
	// bandwidth-bound.
	BandwidthMemPct   = 60.0
	BandwidthMaxSMPct = 50.0
	// ServerCPUFraction: a target using ≥ 85% of its cores is server-side.
	ServerCPUFraction = 0.85
	// IdleGPUPct: a GPU below 10% SM and memory-bandwidth utilization is idle.
	IdleGPUPct = 10.0
	// IdleCPUFraction: a target below 50% of its cores has CPU to spare.
	IdleCPUFraction = 0.50
	// IOClientFactor: client P50 more than 2× the server's queue+compute
	// time means the time is spent outside the server's model path.
	IOClientFactor = 2.0
)
