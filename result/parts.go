package result

// Capacity is the outcome of a knee search (a sweep): the highest offered
// rate at which P99 met the SLO, the error rate stayed under its limit and
// the achieved rate kept within 95% of the offered one.
type Capacity struct {
	SLOP99Ms float64 `json:"slo_p99_ms"`
	// MaxQPS is the highest passing offered rate; 0 with Found false when no
	// probe passed.
	MaxQPS float64 `json:"max_qps"`
	// Bracket is [highest pass, lowest fail]; the true knee lies inside it.
	Bracket [2]float64 `json:"bracket"`
	Points  []Point    `json:"points"`
	// Found is false when no probe passed; the report then says so instead
	// of showing a zero.
	Found bool `json:"found"`
	// Windows is the number of measurement windows the search used.
	Windows int `json:"windows"`
	// Stopped says why the search ended early (time budget, max rate), if it did.
	Stopped string `json:"stopped,omitempty"`
	// ReachedMaxRate is true when the search passed at its maximum rate
	// and stopped there: the knee is above MaxQPS, a lower bound.
	ReachedMaxRate bool `json:"reached_max_rate,omitempty"`
	// SLOTTFTMs and SLOTPOTMs are set for a goodput knee (LLM streaming).
	SLOTTFTMs float64 `json:"slo_ttft_ms,omitempty"`
	SLOTPOTMs float64 `json:"slo_tpot_ms,omitempty"`
	// Estimates are independent estimates of the knee (rps): the search's
	// own and one per confirmation round, each from re-probing the
	// bracket (see knee.Confirm). The gate tests max QPS over them.
	Estimates []float64 `json:"estimates,omitempty"`
	// ConfirmWindows and ConfirmS are what the confirmation cost: probe
	// windows and wall seconds (restarts included).
	ConfirmWindows int     `json:"confirm_windows,omitempty"`
	ConfirmS       float64 `json:"confirm_s,omitempty"`
	// GeneratorBound is true when the knee or the bracket's top rests on a
	// probe in which the load generator, not the target, was saturated:
	// the capacity measures perfgate and the result is invalid.
	GeneratorBound bool `json:"generator_bound,omitempty"`
}

// Point is one probe of a knee search.
type Point struct {
	OfferedRPS  float64 `json:"offered_rps"`
	AchievedRPS float64 `json:"achieved_rps"`
	ErrorRate   float64 `json:"error_rate"`
	// ErrorsBy counts the probe's failed requests by class (as a trial's):
	// a probe whose every request timed out reached a target that is up
	// but slower than the client's timeout, one refused is down.
	ErrorsBy map[string]int64 `json:"errors_by_class,omitempty"`
	Latency  Latency          `json:"latency_ms"`
	// Requests is how many successful requests the probe measured and
	// OverSLO how many of them took longer than the P99 SLO: its P99 is
	// above the SLO exactly when OverSLO is more than 1% of Requests. Both
	// zero when not counted (no P99 SLO, or an older result).
	Requests int64 `json:"requests,omitempty"`
	OverSLO  int64 `json:"over_slo,omitempty"`
	Pass     bool  `json:"pass"`
	// Why says which condition failed.
	Why string `json:"why,omitempty"`
	// Host is how busy the machine was with other work during the probe
	// (as a trial's Host); a max-QPS regression resting on busy probes is
	// inconclusive (host busy). Nil when not sampled.
	Host       *HostLoad `json:"host,omitempty"`
	GoodputRPS float64   `json:"goodput_rps,omitempty"`
	// InFlightMean is the measured mean concurrency during the probe.
	InFlightMean float64 `json:"in_flight_mean,omitempty"`
	// TTFTP99Ms and TPOTP99Ms are set for streaming probes (goodput knee).
	TTFTP99Ms float64 `json:"ttft_p99_ms,omitempty"`
	TPOTP99Ms float64 `json:"tpot_p99_ms,omitempty"`
	// GeneratorBound is true when the load generator could not hold this
	// probe's schedule: the probe neither passes nor fails.
	GeneratorBound bool `json:"generator_bound,omitempty"`
}

// LLM holds streaming-generation figures (OpenAI-compatible protocols).
//
//	TTFT = first content token received − request sent
//	ITL  = gap between successive content chunks, observed ones only
//	TPOT = (end-to-end − TTFT) / (output tokens − 1), for requests with ≥ 2 tokens
//	output_tokens_per_s = Σ output tokens / window
//	goodput_rps = requests meeting both the TTFT and the TPOT SLO / window
//
// TPOT and ITL are nil (absent from the file) when no request had two
// output tokens: a quantity that does not exist is never a zero.
type LLM struct {
	TTFT             Latency  `json:"ttft_ms"`
	TPOT             *Latency `json:"tpot_ms,omitempty"`
	ITL              *Latency `json:"itl_ms,omitempty"`
	E2E              *Latency `json:"e2e_ms,omitempty"`
	OutputTokensPerS float64  `json:"output_tokens_per_s"`
	OutputTokensMean float64  `json:"output_tokens_mean,omitempty"`
	GoodputRPS       float64  `json:"goodput_rps"`
	SLOTTFTMs        float64  `json:"slo_ttft_ms,omitempty"`
	SLOTPOTMs        float64  `json:"slo_tpot_ms,omitempty"`
	// TTFTHistogram and TPOTHistogram (µs, V2 compressed base64) are kept
	// per trial so trials merge without loss.
	TTFTHistogram string `json:"ttft_histogram,omitempty"`
	TPOTHistogram string `json:"tpot_histogram,omitempty"`
	// ITLHistogram and E2EHistogram (µs, V2 compressed base64) complete
	// the set, so every distribution merges across trials.
	ITLHistogram string `json:"itl_histogram,omitempty"`
	E2EHistogram string `json:"e2e_histogram,omitempty"`
	// Requests is the number of successful streamed requests measured.
	Requests int64 `json:"requests,omitempty"`
	// ITLGaps is the number of gaps between successive content chunks;
	// ITLUnobserved of them were not observed (a chunk at either end
	// arrived in one read with another content chunk) and are not in
	// ITL. ITLCoalescedShare = ITLUnobserved / ITLGaps; past
	// harness.MaxITLCoalescedShare, ITLUntrusted is set: ITL is then
	// shown flagged and never compared (docs/streaming.md).
	ITLGaps           int64   `json:"itl_gaps,omitempty"`
	ITLUnobserved     int64   `json:"itl_unobserved,omitempty"`
	ITLCoalescedShare float64 `json:"itl_coalesced_share,omitempty"`
	ITLUntrusted      bool    `json:"itl_untrusted,omitempty"`
	// PromptTokensMean is the mean prompt length in tokens as the server
	// counted it (usage.prompt_tokens), over the requests whose usage
	// said; absent when the server never did. PromptWordsMean is the mean
	// number of words of the prompts perfgate sent (what --prompt-words
	// sets for synthetic prompts).
	PromptTokensMean float64 `json:"prompt_tokens_mean,omitempty"`
	PromptWordsMean  float64 `json:"prompt_words_mean,omitempty"`
}

// Telemetry is what was sampled while the load ran.
type Telemetry struct {
	GPUs []GPUStats `json:"gpus,omitempty"`
	// NoGPU is true when NVML could not be loaded or found no device.
	NoGPU          bool    `json:"no_gpu,omitempty"`
	TargetCPUCores float64 `json:"target_cpu_cores,omitempty"`
	TargetRSSMiB   float64 `json:"target_rss_mib,omitempty"`
	// TargetProcs is how many processes of the target's process group were
	// seen; when it is 0 the target figures were not measured.
	TargetProcs int         `json:"target_procs,omitempty"`
	ServerMs    *ServerMs   `json:"server_ms,omitempty"`
	Bottleneck  *Bottleneck `json:"bottleneck,omitempty"`
	// SamplerCPUPct is the sampler's own CPU cost, in percent of one core.
	SamplerCPUPct float64 `json:"sampler_cpu_pct,omitempty"`
	// Warnings are what could not be sampled (no GPU, a failed scrape), in
	// words a reader can act on.
	Warnings []string `json:"warnings,omitempty"`
}

// GPUStats summarizes one GPU over a window.
type GPUStats struct {
	Index           int      `json:"index"`
	Name            string   `json:"name"`
	SMUtilPct       Stat     `json:"sm_util_pct"`
	MemBWUtilPct    Stat     `json:"mem_bw_util_pct"`
	MemUsedMiB      float64  `json:"mem_used_mib"`
	PowerW          Stat     `json:"power_w"`
	SMClockMHz      *Stat    `json:"sm_clock_mhz,omitempty"`
	TemperatureC    *Stat    `json:"temperature_c,omitempty"`
	ThrottleReasons []string `json:"throttle_reasons,omitempty"`
	Samples         int      `json:"samples,omitempty"`
	// SMOccupancyPct is resident warps over the maximum (GPM only).
	SMOccupancyPct *Stat `json:"sm_occupancy_pct,omitempty"`
	// PipeUtilPct is the busiest arithmetic pipe per sample (tensor, FP64,
	// FP32, FP16 or integer; GPM only): what tells a kernel that computes
	// from one that only streams memory while keeping its SMs "active".
	PipeUtilPct *Stat `json:"pipe_util_pct,omitempty"`
	// UtilSource says where SMUtilPct and MemBWUtilPct came from: "gpm"
	// (GPM SM utilization and DRAM bandwidth) or "utilization-rates"
	// (nvmlDeviceGetUtilizationRates' kernel and memory busy time).
	UtilSource string `json:"util_source,omitempty"`
	// Unavailable names the figures the device did not report in the
	// window; those fields are then not measurements.
	Unavailable []string `json:"unavailable,omitempty"`
}

// Stat is a mean and a maximum over samples.
type Stat struct {
	Mean float64 `json:"mean"`
	Max  float64 `json:"max,omitempty"`
}

// ServerMs is the server's own time per request, from its metrics.
type ServerMs struct {
	Queue   float64 `json:"queue"`
	Compute float64 `json:"compute"`
	// Source names the metrics family used (triton, vllm).
	Source string `json:"source,omitempty"`
}

// Bottleneck classes, as docs/formats.md fixes them.
const (
	ComputeBound   = "compute-bound"
	BandwidthBound = "bandwidth-bound"
	ServerSide     = "server-side"
	IOBound        = "io-bound"
	GeneratorBound = "generator-bound"
	Unknown        = "unknown"
)

// Bottleneck names the layer holding the run back and the evidence for it.
type Bottleneck struct {
	Class    string   `json:"class"`
	Evidence []string `json:"evidence"`
	// Next is the next step the method suggests for this class.
	Next string `json:"next,omitempty"`
}
