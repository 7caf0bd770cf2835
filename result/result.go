package result

import (
	"encoding/json"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"io"
	"time"
)

// Schema is the schema tag of a result file.
const Schema = "perfgate.result/v1"

// Layer names, as docs/configuration.md fixes them.
const (
	LayerModel   = "model"
	LayerEngine  = "engine"
	LayerService = "service"
	LayerSystem  = "system"
)

// Layers lists the valid layer names in pipeline order.
var Layers = []string{LayerModel, LayerEngine, LayerService, LayerSystem}

// Result is one scenario's measurement: the file perfgate run writes.
type Result struct {
	Schema      string      `json:"schema"`
	Scenario    string      `json:"scenario"`
	Layer       string      `json:"layer,omitempty"`
	Protocol    string      `json:"protocol"`
	Target      string      `json:"target,omitempty"`
	StartedAt   time.Time   `json:"started_at"`
	Git         *Git        `json:"git,omitempty"`
	Environment Environment `json:"environment"`
	Load        Load        `json:"load"`
	Summary     Summary     `json:"summary"`
	Trials      []Trial     `json:"trials"`
	Capacity    *Capacity   `json:"capacity,omitempty"`
	LLM         *LLM        `json:"llm,omitempty"`
	Telemetry   *Telemetry  `json:"telemetry,omitempty"`
	// Cache is the server's cache hit rate over the run, when it exports
	// cache counters.
	Cache *Cache `json:"cache,omitempty"`
	// Metrics says where the server's metrics were scraped and whether
	// they were found.
	Metrics *MetricsProbe `json:"metrics,omitempty"`
	// Partition is set when the scenario ran on a device partition.
	Partition *Partition `json:"partition,omitempty"`

	// Valid is false when the run cannot be trusted (the generator could not
	// hold its schedule, the run was interrupted, every trial was invalid).
	// An invalid result is never used to pass or fail a gate.
	Valid bool `json:"valid"`
	// Interrupted is true when the run was stopped by a signal before its end.
	Interrupted bool `json:"interrupted,omitempty"`
	// Simulated is true when the target computed nothing real (the reference
	// server's --model sim); every report of it says so.
	Simulated bool `json:"simulated,omitempty"`
	// Warnings are the run's caveats, in words a reader can act on.
	Warnings []string `json:"warnings,omitempty"`
	// Provenance is set on stored baselines: where the numbers came from.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Generator is set on one generator's shard of a distributed load,
	// Part on a result of one part of a partitioned suite, and Merged on a
	// result merged from generator shards (see scale.go).
	Generator *Generator `json:"generator,omitempty"`
	Part      *Part      `json:"part,omitempty"`
	Merged    *Merged    `json:"merged,omitempty"`
	// Restarts is how many fresh target processes the trials were spread
	// over (0 or 1: one process).
	Restarts int `json:"restarts,omitempty"`
	// Runner is the runner's own speed around the run (runnerspeed);
	// nil when not sampled.
	Runner *RunnerSpeed `json:"runner_speed,omitempty"`
	// CPUs is set when the config asked for CPU sets (generator_cpus,
	// a target's cpus): what was applied.
	CPUs *CPUs `json:"cpus,omitempty"`
	// NoiseFloorPct is set on baselines measured in several independent
	// runs: per metric (p99_ms, max_qps, …), how far apart the runs were,
	// in percent. The gate calls a regression only beyond the larger of its
	// threshold and this floor.
	NoiseFloorPct map[string]float64 `json:"noise_floor_pct,omitempty"`
}

// Git identifies the build that was measured.
type Git struct {
	SHA string `json:"sha,omitempty"`
	Ref string `json:"ref,omitempty"`
}

// Environment is where the run happened: the fingerprint baselines are
// matched on.
type Environment struct {
	Host     string `json:"host,omitempty"`
	OS       string `json:"os,omitempty"`
	CPU      string `json:"cpu,omitempty"`
	Cores    int    `json:"cores,omitempty"`
	GPUs     []GPU  `json:"gpus,omitempty"`
	Perfgate string `json:"perfgate,omitempty"`
	Go       string `json:"go,omitempty"`
}

// GPU describes one accelerator of the environment.
type GPU struct {
	Name      string `json:"name"`
	Driver    string `json:"driver,omitempty"`
	CUDA      string `json:"cuda,omitempty"`
	MemoryMiB int64  `json:"memory_mib,omitempty"`
	MIG       string `json:"mig,omitempty"` // "enabled", "disabled" or "" when unknown
	UUID      string `json:"uuid,omitempty"`
}

// Load is the load profile the run applied.
type Load struct {
	Mode        string  `json:"mode"` // rate, concurrency, sweep, replay
	Arrival     string  `json:"arrival,omitempty"`
	Rate        float64 `json:"rate"`
	Concurrency int     `json:"concurrency"`
	DurationS   float64 `json:"duration_s"`
	WarmupS     float64 `json:"warmup_s"`
	Trials      int     `json:"trials"`
	TimeoutS    float64 `json:"timeout_s,omitempty"`
	Speed       float64 `json:"speed,omitempty"`
	Seed        int64   `json:"seed,omitempty"`
	// Engine is how the load was sent: "event-loop" (an open loop over
	// HTTP/1.1 on Linux) or "workers" (goroutines); empty in results from
	// before it was recorded. BurstMs is the event loops' least time
	// between bursts of sends, in milliseconds (0: each hit when due).
	Engine  string  `json:"engine,omitempty"`
	BurstMs float64 `json:"burst_ms,omitempty"`
	// WarmupAuto is set when the warm-up ran until latency stopped
	// trending (load.warmup: auto); WarmupS is then how long it took (the
	// first process's; each process's is in WarmupAuto.ProcessesS).
	WarmupAuto *WarmupAuto `json:"warmup_auto,omitempty"`
	// DurationAuto is set when the window was sized for the requests a
	// quantile needs (load.duration: auto); DurationS is the window used.
	DurationAuto *DurationAuto `json:"duration_auto,omitempty"`
}

// WarmupAuto describes a warm-up until steady (harness.WarmUntilSteady).
type WarmupAuto struct {
	// Test names the trend test: "mann-kendall" over the last WindowS
	// one-second P50s and P99s, steady when |z| <= ZLimit for both.
	Test    string  `json:"test"`
	WindowS int     `json:"window_s"`
	ZLimit  float64 `json:"z_limit"`
	MinS    float64 `json:"min_s"`
	MaxS    float64 `json:"max_s"`
	// Steady is false when the warm-up reached MaxS still trending (in
	// any process).
	Steady bool `json:"steady"`
	// ZP50 and ZP99 are the last check's statistics (first process).
	ZP50 float64 `json:"z_p50"`
	ZP99 float64 `json:"z_p99"`
	// ProcessesS is each target process's warm-up, in seconds, when the
	// trials were spread over several.
	ProcessesS []float64 `json:"processes_s,omitempty"`
}

// DurationAuto describes a window sized for enough requests a unit.
type DurationAuto struct {
	// Unit is what the gate's test is over: "process" (a target process
	// holding UnitTrials trials) or "trial".
	Unit       string `json:"unit"`
	UnitTrials int    `json:"unit_trials"`
	// RequestsNeeded is the requests a unit needs for the P99
	// (compare.RequestsForQuantile(99)); ExpectedRequests what a unit
	// holds at RPS over the window used.
	RequestsNeeded   int     `json:"requests_needed"`
	ExpectedRequests float64 `json:"expected_requests"`
	// RPS is the throughput the window was sized from: the rate (open
	// loop) or the warmed-up target's (closed loop).
	RPS  float64 `json:"rps"`
	MinS float64 `json:"min_s"`
	MaxS float64 `json:"max_s"`
	// Capped is true when MaxS was too short for RequestsNeeded.
	Capped bool `json:"capped,omitempty"`
}

// CPUs records the CPU sets of a run (generator_cpus, targets.NAME.cpus).
type CPUs struct {
	// Generator and Target are the CPU lists applied ("0", "1"); empty
	// when none was asked for or it could not be applied.
	Generator string `json:"generator,omitempty"`
	Target    string `json:"target,omitempty"`
	// Allowed is the CPUs perfgate could run on when it started.
	Allowed string `json:"allowed,omitempty"`
	// NotApplied says why a set asked for was not applied (the host
	// lacks those CPUs, or not Linux).
	NotApplied []string `json:"not_applied,omitempty"`
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Summary aggregates all trials of a run.
type Summary struct {
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	ErrorRate   float64 `json:"error_rate"`
	OfferedRPS  float64 `json:"offered_rps,omitempty"`
	AchievedRPS float64 `json:"achieved_rps"`
	Latency     Latency `json:"latency_ms"`
	// Service is the uncorrected time from the actual send to the response,
	// kept beside Latency so the cost of late sends is visible.
	Service      *Latency         `json:"service_ms,omitempty"`
	ErrorsBy     map[string]int64 `json:"errors_by_class,omitempty"`
	LagP99Ms     float64          `json:"schedule_lag_p99_ms,omitempty"`
	GeneratorCPU float64          `json:"generator_cpu_cores,omitempty"`
	// InFlightMean is the time-average number of requests in flight,
	// integrated exactly from when each request entered and left the
	// generator; with AchievedRPS and Latency.Mean it checks Little's Law
	// (L = λW).
	InFlightMean float64 `json:"in_flight_mean,omitempty"`
	// ConnWaitP99Ms is the P99 of the time successful requests waited
	// inside perfgate for a connection before they were sent, and
	// ConnWaitShare that wait's share of their latency (Σ wait / Σ
	// latency); both absent when no request waited. See docs/streaming.md.
	ConnWaitP99Ms float64 `json:"conn_wait_p99_ms,omitempty"`
	ConnWaitShare float64 `json:"conn_wait_share,omitempty"`
	// GeneratorSchedP99Ms is the P99 of the time the generator's
	// goroutines waited to run (Go's /sched/latencies), the worst trial's:
	// how late its own timestamps may be.
	GeneratorSchedP99Ms float64 `json:"generator_sched_p99_ms,omitempty"`
	// GeneratorRunQueueMs is the mean time the generator's threads waited
	// runnable in the kernel's run queue each time they were put on a CPU
	// (Linux /proc/self/task/*/schedstat), the worst trial's: it sees a
	// process starved of CPU as a whole, which GeneratorSchedP99Ms does
	// not. Absent where not measured.
	GeneratorRunQueueMs float64 `json:"generator_runqueue_wait_ms,omitempty"`
}

// Trial is one measurement window.
type Trial struct {
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	OfferedRPS  float64 `json:"offered_rps,omitempty"`
	AchievedRPS float64 `json:"achieved_rps"`
	DurationS   float64 `json:"duration_s,omitempty"`
	// WarmupS is the warm-up sent before this trial, in seconds, where it
	// differs from the load's warmup_s: an A/B process's later trials,
	// re-warmed with ab.RewarmFraction of it. 0: the load's.
	WarmupS      float64          `json:"warmup_s,omitempty"`
	Latency      Latency          `json:"latency_ms"`
	Service      *Latency         `json:"service_ms,omitempty"`
	ErrorsBy     map[string]int64 `json:"errors_by_class,omitempty"`
	LagP99Ms     float64          `json:"schedule_lag_p99_ms,omitempty"`
	GeneratorCPU float64          `json:"generator_cpu_cores,omitempty"`
	InFlightMean float64          `json:"in_flight_mean,omitempty"`
	// ConnWaitP99Ms and ConnWaitShare: as in Summary, for this trial.
	ConnWaitP99Ms float64 `json:"conn_wait_p99_ms,omitempty"`
	ConnWaitShare float64 `json:"conn_wait_share,omitempty"`
	// GeneratorSchedP99Ms: as in Summary, for this trial.
	GeneratorSchedP99Ms float64 `json:"generator_sched_p99_ms,omitempty"`
	// GeneratorRunQueueMs: as in Summary, for this trial.
	GeneratorRunQueueMs float64 `json:"generator_runqueue_wait_ms,omitempty"`
	// Histogram is the trial's latency histogram (µs), V2 compressed base64.
	Histogram string `json:"histogram"`
	// ServiceHistogram is the uncorrected service-time histogram (µs).
	ServiceHistogram string `json:"service_histogram,omitempty"`
	// LLM holds the trial's streaming figures, for per-trial statistics.
	LLM *LLM `json:"llm,omitempty"`
	// Telemetry holds what was sampled during this trial.
	Telemetry *Telemetry `json:"telemetry,omitempty"`
	// PerSecond is the trial's timeline, second by second (see PerSecond);
	// absent from results that did not record it.
	PerSecond *PerSecond `json:"per_second,omitempty"`
	// Valid is false when this window cannot be trusted; Invalid says why.
	Valid   bool     `json:"valid"`
	Invalid []string `json:"invalid,omitempty"`
	// GeneratorLimited is true when the generator itself could not hold the
	// load (CPU saturated, late sends): the whole run is then invalid.
	GeneratorLimited bool `json:"generator_limited,omitempty"`
	// Process is which fresh start of the target (1, 2, …) served this
	// trial when the scenario spreads its trials over restarts; 0 when the
	// target was not restarted (a given URL, or restarts: 1).
	Process int `json:"process,omitempty"`
	// Host is the machine's load during this trial from outside perfgate
	// and its targets (see HostLoad); nil when not sampled.
	Host *HostLoad `json:"host,omitempty"`
}

// Provenance records where a stored baseline came from.
type Provenance struct {
	GitSHA     string    `json:"git_sha,omitempty"`
	GitRef     string    `json:"git_ref,omitempty"`
	Tag        string    `json:"tag,omitempty"`
	StoredAt   time.Time `json:"stored_at"`
	Perfgate   string    `json:"perfgate,omitempty"`
	ConfigHash string    `json:"config_hash,omitempty"`
}

// Write encodes r as indented JSON.
func (r *Result) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteFile writes r to path atomically: a temporary file in the same
// folder, synced, then renamed over path. A failed write leaves any earlier
// file at path untouched.
func (r *Result) WriteFile(path string) error {
	return WriteFileAtomic(path, func(w io.Writer) error { return r.Write(w) })
}

// ReadFile reads and decodes a result file, checking its schema.
func ReadFile(path string) (*Result, error) {
	f, err := capread.Open(path, capread.Result)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("reading result %q: %w", path, err)
	}
	return r, nil
}

// Decode reads one result document from rd with Parse.
func Decode(rd io.Reader) (*Result, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}
