package compare

import (
	"errors"
	"fmt"
)

// Schema is the schema tag of a comparison document.
const Schema = "perfgate.comparison/v1"

// Directions in which a metric is better.
const (
	LowerIsBetter  = "lower"
	HigherIsBetter = "higher"
)

// Metric names, in the order they are reported.
const (
	MetricP50        = "p50_ms"
	MetricP99        = "p99_ms"
	MetricP999       = "p999_ms"
	MetricMaxQPS     = "max_qps"
	MetricErrorRate  = "error_rate"
	MetricTTFTP50    = "ttft_p50_ms"
	MetricTTFTP99    = "ttft_p99_ms"
	MetricTPOTP50    = "tpot_p50_ms"
	MetricTPOTP99    = "tpot_p99_ms"
	MetricTokensPerS = "output_tokens_per_s"
	MetricGoodput    = "goodput_rps"
	// MetricServerCompute is the server's own mean compute time per
	// request, from its Prometheus counters (result.ServerMs.Compute):
	// compared only where every trial of both sides has it.
	MetricServerCompute = "server_compute_ms"
)

// Methods by which a metric was compared.
const (
	// MethodTrials: a Mann-Whitney U test over per-trial values and a
	// bootstrap interval over resampled trials.
	MethodTrials = "mann-whitney-u+bootstrap"
	// MethodBracket: one value per run (max QPS from a knee search); the
	// knee's bracket stands in for the interval and there is no p-value.
	MethodBracket = "bracket"
	// MethodKneeEstimates: max QPS from several independent knee estimates
	// a side, Welch's t-test on their logarithms.
	MethodKneeEstimates = "welch-t-log+knee-estimates"
	// MethodPairedKnees: max QPS of a same-runner A/B sweep, the two sides'
	// knee estimates paired by confirmation round (both rounds in the same
	// fresh processes, back to back), Student's paired t-test on the
	// rounds' log ratios.
	MethodPairedKnees = "paired-t-log+knee-rounds"
	// MethodCensoredKnee: max QPS where one side's knee search met the SLO
	// at no rate it tried (its max QPS is below its lowest failing rate)
	// and the other's has knee estimates: the lowest failing rate tested as
	// one new estimate against the other side's, Student's t on the logs
	// with their spread and the run-to-run variance (a prediction test).
	MethodCensoredKnee = "censored-t-log+knee-estimates"
	// MethodProcesses: a latency quantile whose trials came from three or
	// more target processes in all; the unit is the process (the quantile
	// of its merged trials), tested by a pooled two-sample t-test on the
	// logarithms, so the between-process (run-to-run) variance is in the
	// test and its interval.
	MethodProcesses = "pooled-t-log+processes"
)

// Sentinels for branching on a comparison's outcome (see Comparison.Err).
var (
	// ErrRegression: a gated metric regressed; the gate fails (exit 1).
	ErrRegression = errors.New("performance regression")
	// ErrIncomparable: the environments differ and mismatch was not allowed.
	ErrIncomparable = errors.New("baseline measured on a different environment")
	// ErrNoBaseline: no scenario had a baseline to compare with.
	ErrNoBaseline = errors.New("no baseline to compare with")
	// ErrInconclusive: a gated change beyond its threshold could not be
	// decided (or every result was invalid); the gate passes unless the
	// caller fails on inconclusive.
	ErrInconclusive = errors.New("inconclusive comparison")
)

// Comparison is the whole outcome of comparing candidate results with
// baselines: the perfgate.comparison/v1 document.
type Comparison struct {
	Schema string `json:"schema"`
	// Verdict is Pass, Fail, Undecided ("inconclusive"), NoBaseline or
	// Incomparable.
	Verdict Verdict `json:"verdict"`
	// Reason says in words why the verdict is what it is. compare leaves
	// it empty: report composes it from the scenarios, the environment and
	// Sensitivity when it renders (report.Reason), so a verdict changed
	// later (the gate's compare-with: both) reads right, and writes it
	// into the JSON. A decoded document keeps its own.
	Reason    string               `json:"reason,omitempty"`
	Scenarios []ScenarioComparison `json:"scenarios"`
	// Layers attributes the changes to the layers the scenarios exercise.
	Layers []LayerAttribution `json:"layers,omitempty"`
	// Ladder attributes an end-to-end change rung by rung, when configured.
	Ladder *LadderAttribution `json:"ladder,omitempty"`
	// Environment is the fingerprint check of baseline against candidate.
	Environment *EnvCheck `json:"environment,omitempty"`
	Settings    Settings  `json:"settings"`
	// Warnings concern the whole comparison (every report shows them):
	// in JSON, the text of Notes followed by the callers' own; in memory,
	// the callers' own (the gate's, an A/B run's).
	Warnings []string `json:"warnings,omitempty"`
	// Notes are compare's warnings as data, a code and the numbers behind
	// it; report composes their words (report.NoteText).
	Notes []Note `json:"notes,omitempty"`
	// Sensitivity says, per gated metric, what this comparison could
	// detect: the smallest change across its scenarios with 80% power,
	// and what would bring it to the threshold (see Metric.MDEPct).
	Sensitivity []Sensitivity `json:"sensitivity,omitempty"`
	// Levers name what would decide the undecided scenarios or narrow what
	// the gate can detect (see Lever); the report says how.
	Levers []Lever `json:"levers,omitempty"`
	// Detects is Sensitivity in one line, as the reason ends with it.
	// compare leaves it empty: report writes it (report.Detects), and
	// into the JSON.
	Detects string `json:"detects,omitempty"`
	// AB describes the interleaved run when the comparison is a
	// same-runner A/B (`gate --ab`), whose base side is a revision
	// measured now rather than a stored baseline.
	AB *ABRun `json:"ab,omitempty"`
}

// ScenarioComparison compares one scenario's candidate with its baseline.
type ScenarioComparison struct {
	Scenario string `json:"scenario"`
	Layer    string `json:"layer,omitempty"`
	// Verdict is the worst verdict of the gated metrics (Regressed before
	// Inconclusive before Improved before Unchanged), Inconclusive when
	// either result is invalid, or NoBaseline when there was no baseline.
	Verdict Verdict `json:"verdict"`
	// Reason says why the verdict is Inconclusive or NoBaseline. compare
	// leaves it empty and package report says it (report.ScenarioReason)
	// from Undecidable, Guard or the verdict, in every output and in the
	// JSON's reason.
	Reason string `json:"reason,omitempty"`
	// Guard is the code of the guard whose downgrade is the scenario's
	// reason: the last downgrade of that code in Downgrades.
	Guard ReasonCode `json:"guard,omitempty"`
	// Undecidable, set on an inconclusive scenario that had no evidence
	// to decide from (an A/B run's too few units, no gated metric), is
	// why, as a note (NotePairedTooFewUnits, NotePairedNoGated): it is the
	// scenario's reason, and not among its Notes.
	Undecidable *Note `json:"undecidable,omitempty"`
	// DecidedBy names the gated metrics that decided a regressed or
	// improved verdict (those with the scenario's verdict), in order.
	DecidedBy []string `json:"decided_by,omitempty"`
	// Downgrades are the guards that downgraded this scenario's metrics,
	// in the order they ran, with the numbers behind each (see Verdict's
	// pipeline in verdict.go and docs/verdicts.md).
	Downgrades []Downgrade `json:"downgrades,omitempty"`
	// Levers name what would decide this scenario (see Lever).
	Levers  []Lever  `json:"levers,omitempty"`
	Metrics []Metric `json:"metrics"`
	// BaseTrials and CandTrials are the valid trials used on each side.
	BaseTrials int `json:"base_trials"`
	CandTrials int `json:"cand_trials"`
	// Invalid is true when either side's run cannot be trusted; such a
	// scenario never passes or fails the gate.
	Invalid bool `json:"invalid,omitempty"`
	// Simulated is true when either side measured a simulated target.
	Simulated bool `json:"simulated,omitempty"`
	// HostBusy is true when a regression rested on trials measured while
	// the host was busy with other work (result.HostLoad): the verdict is
	// then Inconclusive, not Regressed.
	HostBusy bool `json:"host_busy,omitempty"`
	// BusyTrials is how many trials of both sides were measured while the
	// host was busy with other work (result.HostLoad.Busy).
	BusyTrials int `json:"busy_trials,omitempty"`
	// RunnerShiftPct is how much slower (positive) or faster the runner
	// itself ran its speed probe during the candidate's run than during the
	// baseline's (result.RunnerSpeed), in percent; 0 when the shift was not
	// significant or under RunnerShiftPct; absent when either side has no
	// probe samples.
	RunnerShiftPct *float64 `json:"runner_shift_pct,omitempty"`
	// RunnerShifted is true when a regression (improvement) was measured
	// while the runner ran slower (faster): the verdict is then
	// Inconclusive.
	RunnerShifted bool `json:"runner_shifted,omitempty"`
	// TrialsNeeded, when set, is how many trials (or knee estimates) per
	// side would likely decide the gated metrics left inconclusive with a
	// change beyond their threshold.
	TrialsNeeded int `json:"trials_needed,omitempty"`
	// RunToRunSource says where the run-to-run variance added to this
	// scenario's tests over processes and knee estimates came from:
	// "noise floor" (a baseline from two or more runs: none added, the
	// floor raises the threshold), "pooled" (estimated from how far the
	// other scenarios of this comparison moved, beyond their own noise),
	// "assumed" (gate.run_to_run), or "none" (within one run, A/B).
	RunToRunSource string `json:"run_to_run_source,omitempty"`
	// RunToRunPct is that noise as a per-run standard deviation on the
	// log scale, in percent (0 with a noise floor or none).
	RunToRunPct float64 `json:"run_to_run_pct,omitempty"`
	// RunToRunMedianSource and RunToRunMedianPct are the same for the
	// medians' family (P50, TTFT and TPOT P50, the server's compute
	// time), whose run-to-run noise is its own (Settings.RunToRunMedian,
	// the P50's noise floor, moves or history).
	RunToRunMedianSource string  `json:"run_to_run_median_source,omitempty"`
	RunToRunMedianPct    float64 `json:"run_to_run_median_pct,omitempty"`
	// Warnings and Notes are the scenario's, as for Comparison's.
	Warnings []string `json:"warnings,omitempty"`
	Notes    []Note   `json:"notes,omitempty"`
}

// Metric compares one metric of a scenario.
type Metric struct {
	Metric string `json:"metric"`
	// Baseline and Candidate are the point values: for latency quantiles
	// the quantile of all trials' merged histogram, for rates the median
	// of the per-trial values, for max QPS the knee.
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	// DeltaPct is the relative change 100·(candidate−baseline)/baseline;
	// for error_rate (Absolute) it is the change in percentage points.
	DeltaPct float64 `json:"delta_pct"`
	// CIPct is the confidence interval of DeltaPct at Settings.Confidence.
	CIPct [2]float64 `json:"ci_pct"`
	// EquivCIPct is the interval of the equivalence test that decides
	// `unchanged`: the two one-sided tests at α (TOST), that is the
	// (1−2α) interval of the same method (90% at the default 95%
	// confidence); nil where the method has no test (a bracket), whose
	// CIPct then serves.
	EquivCIPct *[2]float64 `json:"equivalence_ci_pct,omitempty"`
	// CIOpenHigh is true when the interval has no upper bound (a sweep that
	// never failed); CIPct[1] then holds the larger of the point and the
	// bottom, and renderers should show "∞".
	CIOpenHigh bool `json:"ci_open_high,omitempty"`
	// Censored names the side ("baseline" or "candidate") whose knee
	// search met the SLO at no rate it tried (MethodCensoredKnee): its max
	// QPS is only known to lie below its lowest failing rate, which stands
	// in for it, so DeltaPct is a bound (the change is at least that far
	// in the verdict's direction) and the interval open on that side.
	Censored string `json:"censored,omitempty"`
	// PValue is the two-sided p-value of the method's test (Mann-Whitney U
	// over trials, or a t-test over processes or knee estimates); nil when
	// the method has none (a bracket).
	PValue *float64 `json:"p_value,omitempty"`
	// PHolm is PValue after Holm's correction across the scenario's gated
	// metrics; the verdict uses it. Nil for informational metrics.
	PHolm *float64 `json:"p_holm,omitempty"`
	// PGate is PValue after Holm's correction across every gated, tested
	// metric of every compared scenario: a regression or improvement
	// needs it below the tests' level too (the gate's false alarms are
	// then bounded as a whole). Nil for informational metrics.
	PGate   *float64 `json:"p_gate,omitempty"`
	Verdict Verdict  `json:"verdict"`
	// Guard is the code of the guard that downgraded Verdict to
	// inconclusive, if one did (ScenarioComparison.Downgrades says why).
	Guard ReasonCode `json:"guard,omitempty"`
	// ThresholdPct is the practical-significance threshold, in percent (or
	// percentage points when Absolute).
	ThresholdPct float64 `json:"threshold_pct"`
	// EquivalencePct is the margin `unchanged` was judged against, in
	// percent, when it is wider than ThresholdPct (Settings.TailMargin: a
	// tail quantile's): the interval inside ±EquivalencePct and the point
	// change inside ±ThresholdPct. 0: ThresholdPct is the margin.
	EquivalencePct float64 `json:"equivalence_pct,omitempty"`
	BetterIs       string  `json:"better_is"`
	// Absolute is true when DeltaPct, CIPct and ThresholdPct are in
	// percentage points rather than relative percent (error_rate).
	Absolute bool `json:"absolute,omitempty"`
	// Gated is true when this metric's regression fails the gate; the
	// others are reported for reading only.
	Gated  bool   `json:"gated"`
	Method string `json:"method"`
	// NBase and NCand are the values each side contributed to the test:
	// trials, knee estimates, or target processes (MethodProcesses).
	NBase int `json:"n_base"`
	NCand int `json:"n_cand"`
	// NBaseTrials and NCandTrials are the trials behind NBase and NCand
	// processes when the unit is the process (MethodProcesses).
	NBaseTrials int `json:"n_base_trials,omitempty"`
	NCandTrials int `json:"n_cand_trials,omitempty"`
	// NoiseFloorPct is the baseline's measured run-to-run disagreement for
	// this metric (result.Result.NoiseFloorPct) when it exceeded the
	// configured threshold: ThresholdPct was then raised to it.
	NoiseFloorPct float64 `json:"noise_floor_pct,omitempty"`
	// ConfiguredThresholdPct is the threshold the noise floor raised
	// (set only then): the floor guards against calling a regression,
	// but `unchanged` still means within this one.
	ConfiguredThresholdPct float64 `json:"configured_threshold_pct,omitempty"`
	// TrialsNeeded is set on a gated metric left Inconclusive with a point
	// change beyond its threshold: about how many trials (knee estimates
	// for max QPS, target processes for MethodProcesses) per side would
	// decide it.
	TrialsNeeded int `json:"trials_needed,omitempty"`
	// MinRequests and RequestsNeeded are set on a latency quantile whose
	// test had a unit (a target process, or a trial) of fewer requests
	// than the quantile needs (RequestsForQuantile: 100 for P99): the
	// fewest requests in one unit, and how many each needs. Such a
	// metric is Inconclusive, whatever its change: the P99 of a handful
	// of requests is their slowest one.
	MinRequests    int `json:"min_requests,omitempty"`
	RequestsNeeded int `json:"requests_needed,omitempty"`
	// MDEPct is the smallest change this comparison could have detected
	// for a gated metric: the true change its test calls significant with
	// 80% power at Settings.Confidence, (t + z₀.₈)·se from the variances
	// and counts it actually had (in percent, or points when Absolute).
	// A change is called only beyond the threshold too, so the gate
	// catches changes of max(MDEPct, ThresholdPct). Nil when the metric
	// has no test or no finite interval.
	MDEPct *float64 `json:"mde_pct,omitempty"`
	// MDEUnitsNeeded is how many units a side (MDEUnit: target
	// processes, trials, knee estimates or pairs) would bring MDEPct down
	// to ThresholdPct, when more of them can; MDEBound says why they
	// cannot (a run-to-run variance that more units do not shrink, or
	// more than MaxMDEUnits needed).
	MDEUnitsNeeded int      `json:"mde_units_needed,omitempty"`
	MDEUnit        string   `json:"mde_unit,omitempty"`
	MDEBound       MDEBound `json:"mde_bound,omitempty"`
	// MDELimit says MDEBound in words. compare leaves it empty: report
	// writes it (report.MDELimit), and into the JSON.
	MDELimit string `json:"mde_limit,omitempty"`
	// Levers name what would narrow MDEPct when more units cannot (see
	// Lever).
	Levers []Lever `json:"levers,omitempty"`
	// RunToRunVar is the run-to-run variance (log scale, of the
	// difference of two runs) the test added: Settings.RunToRun's, or
	// the suite's pooled estimate (ScenarioComparison.RunToRunSource).
	// More units do not shrink it.
	RunToRunVar float64 `json:"run_to_run_var,omitempty"`
}

// Change is an attributed change with its interval, in percent.
type Change struct {
	DeltaPct float64    `json:"delta_pct"`
	CIPct    [2]float64 `json:"ci_pct"`
	// EquivCIPct is the (1−2α) interval that decides `unchanged`, as for
	// Metric.EquivCIPct.
	EquivCIPct *[2]float64 `json:"equivalence_ci_pct,omitempty"`
	// CIOpenHigh is true when the interval has no upper bound, as for
	// Metric.CIOpenHigh.
	CIOpenHigh bool `json:"ci_open_high,omitempty"`
	// Verdict is the verdict of the same test as a scenario's metric: for
	// a layer with one scenario, that scenario's metric verdict; for a
	// ladder step, the Mann-Whitney test and interval rule between the two
	// rungs. It is empty when Descriptive.
	Verdict Verdict `json:"verdict,omitempty"`
	// Ratio is candidate/baseline (1.2 is +20%) and LogRatio its natural
	// logarithm; set on ladder steps, whose log ratios add up to the
	// whole's.
	Ratio    float64 `json:"ratio,omitempty"`
	LogRatio float64 `json:"log_ratio,omitempty"`
	// Descriptive is true when the change is a summary with no test of its
	// own (a layer combining several scenarios by geometric mean): read it,
	// do not gate on it.
	Descriptive bool `json:"descriptive,omitempty"`
	// Censored is set, as for Metric.Censored, when the change rests on a
	// side whose knee search met the SLO at no rate: "candidate" (the
	// change is at most DeltaPct) or "baseline" (at least). A layer of
	// several scenarios carries it when its censored scenarios share one
	// side.
	Censored string `json:"censored,omitempty"`
}

// LayerAttribution is the change per layer, combined over its scenarios.
type LayerAttribution struct {
	Layer     string   `json:"layer"`
	Scenarios []string `json:"scenarios"`
	// P99 and MaxQPS are nil when no scenario of the layer had them.
	P99    *Change `json:"p99,omitempty"`
	MaxQPS *Change `json:"max_qps,omitempty"`
}

// LadderAttribution attributes an end-to-end change to the layers of a
// ladder: ordered rungs from the baseline variant to the candidate variant,
// measured in one run, each changing one layer. Each step is a ratio
// (Change.Ratio); their logarithms add up exactly to the whole's, so each
// layer's share of the whole is its log ratio over the whole's. No
// interaction between layers is estimated: that needs a factorial set of
// rungs (every combination of the changes), which a ladder is not.
type LadderAttribution struct {
	Rungs []string     `json:"rungs"`
	Steps []LadderStep `json:"steps"`
	// Whole is the change from the first rung to the last.
	Whole LadderStep `json:"whole"`
	// Warnings and Notes are the ladder's, as for Comparison's.
	Warnings []string `json:"warnings,omitempty"`
	Notes    []Note   `json:"notes,omitempty"`
}

// LadderStep is the change between two rungs.
type LadderStep struct {
	From   string  `json:"from"`
	To     string  `json:"to"`
	Layer  string  `json:"layer,omitempty"`
	P99    Change  `json:"p99"`
	MaxQPS *Change `json:"max_qps,omitempty"`
}

// EnvCheck compares the environment fingerprints of both sides.
type EnvCheck struct {
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	Match     bool   `json:"match"`
	// Differences names each differing field: "gpu model: A100 ≠ H200".
	Differences []string `json:"differences,omitempty"`
	// Allowed is true when the mismatch was allowed by AllowEnvMismatch.
	Allowed bool `json:"allowed,omitempty"`
}

// Err maps the verdict to a sentinel: ErrRegression for Fail,
// ErrIncomparable for Incomparable, nil otherwise (NoBaseline passes the
// gate; ErrNoBaseline is for callers that want to say so). A decoded
// document's Reason follows the sentinel; report says why otherwise
// (report.Reason).
func (c *Comparison) Err() error {
	var err error
	switch c.Verdict {
	case Fail:
		err = ErrRegression
	case Incomparable:
		err = ErrIncomparable
	default:
		return nil
	}
	if c.Reason != "" {
		return fmt.Errorf("%w: %s", err, c.Reason)
	}
	return err
}
