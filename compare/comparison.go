package compare

import (
	"errors"
	"fmt"
)

// Schema is the schema tag of a comparison document.
const Schema = "perfgate.comparison/v1"

// Top-level verdicts of a comparison, as DESIGN.md fixes them.
const (
	// Pass: nothing regressed (some scenarios may be inconclusive or lack a
	// baseline; the warnings say so).
	Pass = "pass"
	// Fail: at least one gated metric regressed.
	Fail = "fail"
	// NoBaseline: there was nothing to compare with.
	NoBaseline = "no-baseline"
	// Incomparable: the baseline was measured on other hardware and
	// AllowEnvMismatch was not set.
	Incomparable = "incomparable"
)

// Verdicts of a metric, and of a scenario (the worst of its gated metrics).
const (
	Improved     = "improved"
	Regressed    = "regressed"
	Unchanged    = "unchanged"
	Inconclusive = "inconclusive"
)

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
	MetricTTFTP99    = "ttft_p99_ms"
	MetricTPOTP99    = "tpot_p99_ms"
	MetricTokensPerS = "output_tokens_per_s"
	MetricGoodput    = "goodput_rps"
)

// Methods by which a metric was compared.
const (
	// MethodTrials: a Mann-Whitney U test over per-trial values and a
	// bootstrap interval over resampled trials.
	MethodTrials = "mann-whitney-u+bootstrap"
	// MethodBracket: one value per run (max QPS from a knee search); the
	// knee's bracket stands in for the interval and there is no p-value.
	MethodBracket = "bracket"
)

// Sentinels for branching on a comparison's outcome (see Comparison.Err).
var (
	// ErrRegression: a gated metric regressed; the gate fails (exit 1).
	ErrRegression = errors.New("performance regression")
	// ErrIncomparable: the environments differ and mismatch was not allowed.
	ErrIncomparable = errors.New("baseline measured on a different environment")
	// ErrNoBaseline: no scenario had a baseline to compare with.
	ErrNoBaseline = errors.New("no baseline to compare with")
)

// Comparison is the whole outcome of comparing candidate results with
// baselines: the perfgate.comparison/v1 document.
type Comparison struct {
	Schema string `json:"schema"`
	// Verdict is Pass, Fail, NoBaseline or Incomparable.
	Verdict string `json:"verdict"`
	// Reason says in words why the verdict is what it is.
	Reason    string               `json:"reason,omitempty"`
	Scenarios []ScenarioComparison `json:"scenarios"`
	// Layers attributes the changes to the layers the scenarios exercise.
	Layers []LayerAttribution `json:"layers,omitempty"`
	// Ladder attributes an end-to-end change rung by rung, when configured.
	Ladder *LadderAttribution `json:"ladder,omitempty"`
	// Environment is the fingerprint check of baseline against candidate.
	Environment *EnvCheck `json:"environment,omitempty"`
	Settings    Settings  `json:"settings"`
	// Warnings concern the whole comparison (every report shows them).
	Warnings []string `json:"warnings,omitempty"`
}

// ScenarioComparison compares one scenario's candidate with its baseline.
type ScenarioComparison struct {
	Scenario string `json:"scenario"`
	Layer    string `json:"layer,omitempty"`
	// Verdict is the worst verdict of the gated metrics (Regressed before
	// Inconclusive before Improved before Unchanged), Inconclusive when
	// either result is invalid, or NoBaseline when there was no baseline.
	Verdict string `json:"verdict"`
	// Reason says why the verdict is Inconclusive or NoBaseline.
	Reason  string   `json:"reason,omitempty"`
	Metrics []Metric `json:"metrics"`
	// BaseTrials and CandTrials are the valid trials used on each side.
	BaseTrials int `json:"base_trials"`
	CandTrials int `json:"cand_trials"`
	// Invalid is true when either side's run cannot be trusted; such a
	// scenario never passes or fails the gate.
	Invalid bool `json:"invalid,omitempty"`
	// Simulated is true when either side measured a simulated target.
	Simulated bool     `json:"simulated,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
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
	// CIOpenHigh is true when the interval has no upper bound (a sweep that
	// never failed); CIPct[1] then holds the larger of the point and the
	// bottom, and renderers should show "∞".
	CIOpenHigh bool `json:"ci_open_high,omitempty"`
	// PValue is the two-sided Mann-Whitney U p-value over trials; nil when
	// the method has none (max QPS).
	PValue *float64 `json:"p_value,omitempty"`
	// PHolm is PValue after Holm's correction across the scenario's gated
	// metrics; the verdict uses it. Nil for informational metrics.
	PHolm   *float64 `json:"p_holm,omitempty"`
	Verdict string   `json:"verdict"`
	// ThresholdPct is the practical-significance threshold, in percent (or
	// percentage points when Absolute).
	ThresholdPct float64 `json:"threshold_pct"`
	BetterIs     string  `json:"better_is"`
	// Absolute is true when DeltaPct, CIPct and ThresholdPct are in
	// percentage points rather than relative percent (error_rate).
	Absolute bool `json:"absolute,omitempty"`
	// Gated is true when this metric's regression fails the gate; the
	// others are reported for reading only.
	Gated  bool   `json:"gated"`
	Method string `json:"method"`
	NBase  int    `json:"n_base"`
	NCand  int    `json:"n_cand"`
}

// Change is an attributed change with its interval, in percent.
type Change struct {
	DeltaPct float64    `json:"delta_pct"`
	CIPct    [2]float64 `json:"ci_pct"`
	// CIOpenHigh is true when the interval has no upper bound, as for
	// Metric.CIOpenHigh.
	CIOpenHigh bool `json:"ci_open_high,omitempty"`
	// Verdict is Improved, Regressed, Unchanged or Inconclusive by the same
	// interval rule as a metric (without a p-value).
	Verdict string `json:"verdict"`
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
// measured in one run, each changing one layer.
type LadderAttribution struct {
	Rungs []string     `json:"rungs"`
	Steps []LadderStep `json:"steps"`
	// Whole is the change from the first rung to the last.
	Whole LadderStep `json:"whole"`
	// SumOfPartsP99Pct is Σ steps' P99 change; InteractionP99Pct is
	// Whole − SumOfParts: how far the layers' effects are from adding up.
	SumOfPartsP99Pct  float64    `json:"sum_of_parts_p99_pct"`
	InteractionP99Pct float64    `json:"interaction_p99_pct"`
	InteractionCIPct  [2]float64 `json:"interaction_ci_pct"`
	// The same for max QPS, when every rung has a capacity.
	SumOfPartsMaxQPSPct  *float64 `json:"sum_of_parts_max_qps_pct,omitempty"`
	InteractionMaxQPSPct *float64 `json:"interaction_max_qps_pct,omitempty"`
	Warnings             []string `json:"warnings,omitempty"`
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
// gate; ErrNoBaseline is for callers that want to say so).
func (c *Comparison) Err() error {
	switch c.Verdict {
	case Fail:
		return fmt.Errorf("%w: %s", ErrRegression, c.Reason)
	case Incomparable:
		return fmt.Errorf("%w: %s", ErrIncomparable, c.Reason)
	}
	return nil
}
