package config

import (
	"time"

	"github.com/perfgate/perfgate/internal/defaults"
)

// Version is the only configuration version this perfgate reads.
const Version = 1

// Config is a parsed perfgate.yaml. Zero values mean "not set"; Defaults
// fills them in after parsing and Validate checks the whole.
type Config struct {
	// Path is the file the config was read from, for error messages and for
	// resolving relative paths (body, dataset, trace, baselines).
	Path string `yaml:"-"`
	// Hash identifies the file's content (recorded in baseline provenance).
	Hash string `yaml:"-"`
	// LayerOptional lets scenarios leave out layer (unlabelled). Set by
	// callers that build a config from command-line flags (run --url),
	// where a layer is only known when the user says it; a file must
	// always name each scenario's layer.
	LayerOptional bool `yaml:"-"`
	// lines maps key paths ("scenarios[1].load.rate") to their line.
	lines map[string]int

	Version   int                `yaml:"version"`
	SLO       SLO                `yaml:"slo,omitempty"`
	Capacity  Capacity           `yaml:"capacity,omitempty"`
	Gate      Gate               `yaml:"gate,omitempty"`
	Baselines string             `yaml:"baselines,omitempty"`
	Targets   map[string]*Target `yaml:"targets,omitempty"`
	Scenarios []*Scenario        `yaml:"scenarios,omitempty"`
	// Ladder is an ordered list of scenario names, from the baseline variant
	// to the candidate, each rung changing one layer; compare attributes the
	// end-to-end change to the layers rung by rung.
	Ladder []string `yaml:"ladder,omitempty"`
	// Pairs declares scenarios compared with each other in one run,
	// interleaved and paired (`perfgate demo`).
	Pairs []Pair `yaml:"pairs,omitempty"`
	// AB shapes same-runner A/B runs (`gate --ab REF`).
	AB AB `yaml:"ab,omitempty"`
	// GeneratorCPUs is the CPU list perfgate itself (the load generator)
	// runs on ("0", "0-1"; Linux), disjoint from every target's cpus; the
	// flag --generator-cpus overrides it. Empty: every CPU. On a host
	// without those CPUs the run goes on unpinned and its results say so.
	GeneratorCPUs string `yaml:"generator_cpus,omitempty"`
	// Engine is the load generator's open-loop engine: workers (goroutine
	// workers, always) or event-loop; empty: the event loop where it can
	// run (an open loop over HTTP/1.1 on Linux). The flag --engine and
	// the variable PERFGATE_ENGINE override it. See docs/event-loop.md.
	Engine string `yaml:"engine,omitempty"`
	// LoopBatch is the event loop's least time between two bursts of
	// sends (nil: 1ms; 0s sends each hit when due). The flag --loop-batch
	// and the variable PERFGATE_LOOP_BATCH override it.
	LoopBatch *Duration `yaml:"loop_batch,omitempty"`
	// LoopSpin is how long the event loop, with two or more responses
	// outstanding, polls for them before it parks (0 or left out: off,
	// it parks at once), from 0 to MaxLoopSpin. The flag --loop-spin and
	// the variable PERFGATE_LOOP_SPIN override it. See docs/event-loop.md.
	LoopSpin Duration `yaml:"loop_spin,omitempty"`
}

// Engines lists the values of engine.
var Engines = []string{defaults.EngineEventLoop, defaults.EngineWorkers}

// MaxLoopBatch bounds loop_batch (and --loop-batch).
const MaxLoopBatch = time.Second

// MaxLoopSpin bounds loop_spin (and --loop-spin): a loop polls for
// responses to save a park and a wake, which cost microseconds; polling
// longer than this only burns a core that the target may need.
const MaxLoopSpin = 10 * time.Millisecond

// SLO is the service-level objective the knee search and sizing use.
type SLO struct {
	P99          Duration `yaml:"p99,omitempty"`
	MaxErrorRate Percent  `yaml:"max_error_rate"`
	// TTFT and TPOT are the streaming SLOs (P99) for goodput and its knee.
	TTFT Duration `yaml:"ttft,omitempty"`
	TPOT Duration `yaml:"tpot,omitempty"`
}

// Capacity is the traffic to size for.
type Capacity struct {
	PeakQPS             float64 `yaml:"peak_qps,omitempty"`
	Headroom            float64 `yaml:"headroom,omitempty"`
	CostPerInstanceHour float64 `yaml:"cost_per_instance_hour,omitempty"`
	// Traffic is a traffic curve (timestamp,qps CSV or a Prometheus
	// range-query JSON export, relative to the config file): sizing then
	// plans a schedule and its cost per day against a flat fleet.
	Traffic string `yaml:"traffic,omitempty"`
	// LeadTime (default 1h) and ScaleInAfter (default 1h), 0s to 24h: how
	// long before a predicted rise the schedule scales out, and how long
	// after a fall it waits to scale in.
	LeadTime     *Duration `yaml:"lead_time,omitempty"`
	ScaleInAfter *Duration `yaml:"scale_in_after,omitempty"`
}

// Gate holds the regression thresholds.
type Gate struct {
	P99Regression Percent `yaml:"p99_regression,omitempty"`
	// P99Equivalence (default: P99Regression's) is the margin inside which
	// the tail quantiles (P99, TTFT and TPOT P99) are called unchanged,
	// when wider than P99Regression; a regression is still called beyond
	// P99Regression (compare.Settings.TailMargin).
	P99Equivalence Percent `yaml:"p99_equivalence,omitempty"`
	// P50Regression (default 5%) gates the median latency (P50, and TTFT
	// and TPOT P50 for streams) beside P99 with its own threshold; 0%
	// reports the medians without gating them.
	P50Regression Percent `yaml:"p50_regression,omitempty"`
	// ServerComputeRegression (default 5%) gates the server's own mean
	// compute time per request (server_compute_ms, from its Prometheus
	// counters: Triton's nv_inference_*, vLLM's vllm:*) where every trial
	// of both sides has it; 0% reports it without gating it.
	ServerComputeRegression Percent `yaml:"server_compute_regression,omitempty"`
	MaxQPSRegression        Percent `yaml:"max_qps_regression,omitempty"`
	Confidence              float64 `yaml:"confidence,omitempty"`
	// RunToRun is the between-run noise the gate assumes for a baseline
	// measured in one run (no noise floor), as a standard deviation on the
	// log scale (default 15%): the spread of one run's processes misses how
	// far whole runs move. A baseline from two or more runs carries its own
	// runs' movement (its noise floor), and only the candidate's one run is
	// assumed to move this much. 0% assumes none (a dedicated runner whose
	// runs you have seen agree).
	RunToRun Percent `yaml:"run_to_run,omitempty"`
	// RunToRunMedian is the same for the medians (P50, TTFT and TPOT P50)
	// and the server's compute time (default 5%): a whole run moves the
	// median far less than the tail, which carries the host's scheduling.
	// 0% takes gate.run_to_run's value. A runner whose runs move the
	// median more says so here, or lets a history learn it.
	RunToRunMedian Percent `yaml:"run_to_run_median,omitempty"`
	// IgnoreHostLoad keeps regressions measured while the host was busy
	// with other work, or while the runner ran its speed probe slower than
	// during the baseline, as regressions (default false: such a
	// regression is inconclusive (host busy) or (runner slower), and so
	// is an improvement over a busy baseline or on a faster runner). For
	// runners whose load is known to be perfgate's own.
	IgnoreHostLoad bool `yaml:"ignore_host_load,omitempty"`
	// OnInconclusive is what an inconclusive gate does: pass (the
	// default: exit 0, but the headline and the Action's verdict say
	// inconclusive), fail (exit 1), or rerun (measure the undecided
	// scenarios again, adding trials, until they are decided or
	// RerunBudget or RerunMaxTrials is reached; still undecided, it passes
	// as inconclusive).
	OnInconclusive string `yaml:"on_inconclusive,omitempty"`
	// RerunBudget bounds the time reruns may take (default 10m).
	RerunBudget Duration `yaml:"rerun_budget,omitempty"`
	// RerunMaxTrials is the most trials a scenario may reach by reruns
	// (default 4 × its trials, at most 100).
	RerunMaxTrials int `yaml:"rerun_max_trials,omitempty"`
}

// The values of gate.on_inconclusive.
const (
	OnInconclusivePass  = "pass"
	OnInconclusiveFail  = "fail"
	OnInconclusiveRerun = "rerun"
)

// DefaultRerunBudget is gate.rerun_budget's default.
const DefaultRerunBudget = 10 * time.Minute

// Target is a process perfgate starts, waits for and stops.
type Target struct {
	Name         string            `yaml:"-"`
	Command      []string          `yaml:"command,omitempty"`
	Env          map[string]string `yaml:"env,omitempty"`
	Ready        string            `yaml:"ready,omitempty"`
	ReadyTimeout Duration          `yaml:"ready_timeout,omitempty"`
	// Metrics is the Prometheus endpoint to scrape ({port} allowed).
	Metrics string `yaml:"metrics,omitempty"`
	// Dir is the working directory (relative to the config file).
	Dir string `yaml:"dir,omitempty"`
	// GRPCPort asks for a second free port, filled into {grpc_port}.
	GRPCPort bool `yaml:"grpc_port,omitempty"`
	// EnvPassthrough names variables of perfgate's environment that the
	// target inherits besides the default allow-list
	// (targetproc.DefaultEnv): by default every other variable is
	// withheld. The Action's own token and the runner's command files
	// (targetproc.NeverPassed) are refused here.
	EnvPassthrough []string `yaml:"env_passthrough,omitempty"`
	// Build is an argv run in the target's dir before it starts, in each
	// checkout of an A/B run (`gate --ab`); see AB.
	Build []string `yaml:"build,omitempty"`
	// CPUs is the CPU list the target runs on ("1", "2-3"; Linux): its
	// process and everything it starts, from the first instruction.
	// Empty: every CPU. On a host without those CPUs the target runs
	// unpinned and its results say so.
	CPUs string `yaml:"cpus,omitempty"`
}

// Scenario is one named measurement.
type Scenario struct {
	Name   string `yaml:"name,omitempty"`
	Layer  string `yaml:"layer,omitempty"`
	Target string `yaml:"target,omitempty"`
	// URL is a running service to test instead of a target perfgate starts.
	URL string `yaml:"url,omitempty"`
	// Args are appended to the target's command for this scenario's variant.
	Args     []string          `yaml:"args,omitempty"`
	Env      map[string]string `yaml:"env,omitempty"`
	Protocol string            `yaml:"protocol,omitempty"`
	Model    string            `yaml:"model,omitempty"`
	// Endpoint selects the OpenAI endpoint: chat (default) or completions.
	Endpoint string            `yaml:"endpoint,omitempty"`
	Method   string            `yaml:"method,omitempty"`
	Path     string            `yaml:"path,omitempty"`
	Headers  map[string]string `yaml:"headers,omitempty"`
	Body     string            `yaml:"body,omitempty"`
	// Dataset is a JSONL file of prompts for openai scenarios.
	Dataset string `yaml:"dataset,omitempty"`
	// PromptTokens and MaxTokens shape synthetic prompts.
	PromptTokens int `yaml:"prompt_tokens,omitempty"`
	MaxTokens    int `yaml:"max_tokens,omitempty"`
	// Shape and Datatype describe a random tensor when no body is given.
	Shape    []int64  `yaml:"shape,omitempty"`
	Datatype string   `yaml:"datatype,omitempty"`
	Metrics  string   `yaml:"metrics,omitempty"`
	Timeout  Duration `yaml:"timeout,omitempty"`
	// Client picks the HTTP client for http and kserve-http: fast (the lean
	// HTTP/1.1 client, the default for http://) or std (net/http).
	Client string `yaml:"client,omitempty"`
	// TLS configures https and gRPC over TLS: a private CA, a client
	// certificate for mTLS, or verification off.
	TLS  *TLS `yaml:"tls,omitempty"`
	Load Load `yaml:"load,omitempty"`
	// Group names the scenarios compared with one another (a layer's
	// variants): `perfgate run --part` keeps a group in one part, so its
	// variants are measured on the same runner. Without it, scenarios of
	// the same layer and the same load form a group.
	Group string `yaml:"group,omitempty"`
	// Partition declares that the target runs on a device partition (a MIG
	// slice); sizing compares it with the whole-device scenario of the
	// same model.
	Partition *Partition `yaml:"partition,omitempty"`
	// Repeat is the fraction of requests that resend an earlier input
	// (0% up to 100%, exclusive; KServe without body, openai without
	// dataset), so a server's cache sees a known hit rate.
	Repeat Percent `yaml:"repeat,omitempty"`
	// Restarts spreads the scenario's trials (a sweep's knee estimates)
	// over this many fresh starts of its target, each with its own
	// warm-up, so that the statistics see process-to-process variance
	// (1 to 16; default 5 for a target perfgate starts, at most its
	// trials, so one process per trial at the default 5 trials; 1 for a
	// url:). The gate then tests latency over the processes.
	// A slow-loading model server may set 1; reports then say so.
	Restarts int `yaml:"restarts,omitempty"`
}

// TLS is a scenario's TLS client settings. File paths are relative to the
// config file.
type TLS struct {
	// CA is a PEM file of CA certificates trusted beside the system's.
	CA string `yaml:"ca,omitempty"`
	// Cert and Key are the client certificate and key (PEM) for mTLS.
	Cert string `yaml:"cert,omitempty"`
	Key  string `yaml:"key,omitempty"`
	// ServerName is the name verified in the server's certificate.
	ServerName string `yaml:"server_name,omitempty"`
	// Insecure skips verification of the server's certificate (warned).
	Insecure bool `yaml:"insecure,omitempty"`
}

// Partition is a device partition: its name (1g.10gb) and how many fit on
// one device (1 to 64). Whole names the scenario measuring the whole
// device; empty means the one sweep scenario with the same model and
// protocol and no partition.
type Partition struct {
	Name      string `yaml:"name,omitempty"`
	PerDevice int    `yaml:"per_device,omitempty"`
	Whole     string `yaml:"whole,omitempty"`
}

// Load is a scenario's load profile.
type Load struct {
	Mode        string  `yaml:"mode,omitempty"` // rate | concurrency | sweep | replay
	Rate        float64 `yaml:"rate,omitempty"`
	Arrival     string  `yaml:"arrival,omitempty"` // constant (default) | poisson
	Seed        int64   `yaml:"seed,omitempty"`
	Concurrency int     `yaml:"concurrency,omitempty"`
	// Duration is one trial's window. "auto" (rate and concurrency) sizes
	// it so that each unit of the gate's test (a target process, or a
	// trial) holds the requests its P99 needs: the shortest window of at
	// least AutoDurationMin up to DurationMax (see suite.AutoWindow).
	Duration Duration `yaml:"duration,omitempty"`
	// Warmup is the load sent before the first window. "auto" (rate and
	// concurrency) warms up until per-second latency stops trending,
	// from harness.DefaultWarmupMin up to WarmupMax (see
	// harness.WarmUntilSteady).
	Warmup Duration `yaml:"warmup"`
	// WarmupMax bounds warmup: auto (default harness.DefaultWarmupMax).
	WarmupMax Duration `yaml:"warmup_max,omitempty"`
	// DurationMax bounds duration: auto (default DefaultDurationMax).
	DurationMax Duration `yaml:"duration_max,omitempty"`
	Trials      int      `yaml:"trials,omitempty"`
	// Connections caps the connection pool (default 0: sized from the
	// load, harness.PoolSize: the concurrency in closed loop, up to 4096
	// opened as needed in open loop). A cap below a closed loop's
	// concurrency is a warning, and a trial whose requests waited for a
	// connection more than 5% of their latency is invalid.
	Connections int `yaml:"connections,omitempty"`
	// Trace and Speed drive replay mode.
	Trace string  `yaml:"trace,omitempty"`
	Speed float64 `yaml:"speed,omitempty"`
	// Sweep settings: start rate, resolution, max rate, time budget.
	Start      float64  `yaml:"start,omitempty"`
	MaxRate    float64  `yaml:"max_rate,omitempty"`
	Resolution Percent  `yaml:"resolution,omitempty"`
	Budget     Duration `yaml:"budget,omitempty"`
	// Estimates is how many independent knee estimates a sweep makes:
	// the search's own, and one per confirmation round re-probing the
	// bracket (in a fresh target process when restarts > 1). The gate
	// tests max QPS over them and needs at least 3 (1 to 20; default 5).
	Estimates int `yaml:"estimates,omitempty"`
}

// Duration is a Go duration written as a string ("50ms").
type Duration time.Duration

// Auto is a load's warmup or duration written "auto": sized while the
// scenario runs (Load.Warmup, Load.Duration). No other key takes it.
const Auto Duration = -1

// Bounds of an automatic window (load.duration: auto).
const (
	// AutoDurationMin is the shortest automatic window: long enough for
	// a per-second timeline and the host-load samples of a trial.
	AutoDurationMin = 10 * time.Second
	// DefaultDurationMax is load.duration_max's default.
	DefaultDurationMax = 2 * time.Minute
)

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Percent is a fraction written as a percentage string ("5%" is 0.05).
type Percent float64
