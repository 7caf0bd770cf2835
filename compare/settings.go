package compare

import (
	"errors"
	"fmt"
	"math"
)

// Settings are the gate's thresholds and the statistics' knobs. The zero
// value is not usable; start from DefaultSettings().
type Settings struct {
	// P99Regression is the practical-significance threshold for latency
	// metrics, as a fraction (0.05 = 5%).
	P99Regression float64 `json:"p99_regression"`
	// P99Equivalence is the margin inside which the tail quantiles (P99,
	// P99.9, TTFT and TPOT P99) are called unchanged, as a fraction, when
	// it is wider than P99Regression; a regression is still called beyond
	// P99Regression. 0: P99Regression's (one threshold for both, the
	// behaviour before). See TailMargin.
	P99Equivalence float64 `json:"p99_equivalence,omitempty"`
	// P50Regression is the threshold for the median latency (P50, and
	// TTFT and TPOT P50 for streams), as a fraction, which gates them
	// beside P99: a code regression moves the median about one to one,
	// where the tail carries the host's scheduling noise. 0 reports the
	// medians without gating them (at P99Regression's threshold).
	P50Regression float64 `json:"p50_regression"`
	// ServerComputeRegression is the threshold for the server's own mean
	// compute time per request (server_compute_ms, from its Prometheus
	// counters, where every trial of both sides has it), as a fraction: a
	// code regression in the model moves it about one to one, with none
	// of the client's or the network's noise. 0 reports it without gating
	// it (at P99Regression's threshold).
	ServerComputeRegression float64 `json:"server_compute_regression"`
	// MaxQPSRegression is the threshold for throughput metrics (max QPS,
	// output tokens/s, goodput), as a fraction.
	MaxQPSRegression float64 `json:"max_qps_regression"`
	// ErrorRateIncrease is the threshold for the error rate, as an absolute
	// fraction of requests (0.001 = 0.1 percentage point).
	ErrorRateIncrease float64 `json:"error_rate_increase"`
	// Confidence is the level of the intervals and 1−Confidence the level
	// of the tests (0.95).
	Confidence float64 `json:"confidence"`
	// Resamples is the number of bootstrap resamples per interval.
	Resamples int `json:"resamples"`
	// Seed seeds the bootstrap so that a verdict is reproducible.
	Seed uint64 `json:"seed"`
	// AllowEnvMismatch compares results from different environments anyway,
	// with a loud warning, instead of answering Incomparable.
	AllowEnvMismatch bool `json:"allow_env_mismatch,omitempty"`
	// IgnoreHostLoad keeps a regression measured on a busy host (see
	// result.HostLoad) a regression instead of making it inconclusive.
	IgnoreHostLoad bool `json:"ignore_host_load,omitempty"`
	// RunToRun is the between-run noise assumed, as a fraction (0.10 =
	// 10% standard deviation on the log scale), for a baseline measured
	// in one run (no noise floor): the processes and knee estimates of one
	// run share its machine state, so their spread misses how far a whole
	// run moves, and the test adds this variance for the baseline's run
	// and the candidate's. A baseline from two or more runs measures that
	// movement instead (its noise floor, in the test as a variance; see
	// runFloorVar), and none is assumed. 0 assumes none.
	RunToRun float64 `json:"run_to_run"`
	// RunToRunMedian is the between-run noise assumed, in the form of
	// RunToRun, for the medians (P50, TTFT and TPOT P50) and the server's
	// compute time: a whole run moves the median far less than the tail,
	// which carries the host's scheduling, so the tail's noise assumed for
	// a median would hide the code regressions the median is gated to
	// see. 0: RunToRun's (a comparison written before it existed). Where
	// RunToRun is 0, none is assumed for either.
	RunToRunMedian float64 `json:"run_to_run_median,omitempty"`
	// PairedKnees says the two sides' knee estimates are paired by index:
	// same-runner A/B, whose round r of each side ran in the same fresh
	// processes, back to back (ab's interleaved confirmation). Max QPS is
	// then tested over the rounds' log ratios (MethodPairedKnees), with no
	// run-to-run term: both sides ran every round on the runner as it was
	// then. Not a user setting.
	PairedKnees bool `json:"-"`
	// KneeEquivLevel is the level of each one-sided test of max QPS's
	// equivalence test over paired knee rounds at an A/B run's sequential
	// look (ab's confirmation rounds spend it over their looks, as the
	// fixed-rate pairs do: Sequential.EquivSpent); its interval is then at
	// 1 − 2·KneeEquivLevel. 0: 1 − Confidence, as everywhere else. Not a
	// user setting.
	KneeEquivLevel float64 `json:"-"`
	// Learned is the run-to-run noise learned from the history, by
	// scenario; it replaces RunToRun for those scenarios (see
	// LearnedNoise). Nil: none learned.
	Learned map[string]LearnedNoise `json:"run_to_run_learned,omitempty"`
}

// DefaultRunToRun is Settings.RunToRun's default: 15%, a little above
// the per-run noise measured between whole runs of the same code on a
// shared 2-core runner, for a runner noisier than that
// (bench/RESULTS-rules.md#comparedefaultruntorun).
const DefaultRunToRun = 0.15

// DefaultRunToRunMedian is Settings.RunToRunMedian's default: 5%, a
// little above the per-run spread of the median measured between whole
// runs of the same code on a shared 2-core runner, as DefaultRunToRun is
// above the tail's (bench/RESULTS-rules.md#comparedefaultruntorun).
const DefaultRunToRunMedian = 0.05

// runVar is the variance, on the log scale, that run-to-run noise adds to
// a difference between one candidate run and a baseline measured in one
// run: 2·ln(1+RunToRun)². Zero when the baseline carries a noise floor
// (measured over runs) or RunToRun is 0.
func (s Settings) runVar(measured bool) float64 {
	if measured || s.RunToRun <= 0 {
		return 0
	}
	l := math.Log1p(s.RunToRun)
	return 2 * l * l
}

// MedianRunToRun is the medians' assumed run-to-run noise:
// RunToRunMedian, or RunToRun's where it is unset.
func (s Settings) MedianRunToRun() float64 {
	if s.RunToRunMedian > 0 {
		return s.RunToRunMedian
	}
	return s.RunToRun
}

// runVarMedian is runVar for the medians' family:
// 2·ln(1+MedianRunToRun)², zero where RunToRun is 0.
func (s Settings) runVarMedian() float64 {
	if s.RunToRun <= 0 {
		return 0
	}
	l := math.Log1p(s.MedianRunToRun())
	return 2 * l * l
}

// DefaultP50Regression is Settings.P50Regression's default: 5%, the P99's.
// A median is the latency a code change moves about one to one (a CPU
// cost of +10% a request moves it about +10%), and its run-to-run noise
// is a fraction of the tail's (docs/verdicts.md, "The median is gated
// beside P99"), so the threshold a user reads for P99 is one the median
// can decide.
const DefaultP50Regression = 0.05

// DefaultServerComputeRegression is Settings.ServerComputeRegression's
// default: 5%, the medians'.
const DefaultServerComputeRegression = 0.05

// DefaultSettings returns the gate's defaults: 5% P50 and P99, 5% max QPS, 0.1 point
// error rate, 95% confidence, 2000 resamples, seed 1.
func DefaultSettings() Settings {
	return Settings{
		P99Regression:           0.05,
		P50Regression:           DefaultP50Regression,
		ServerComputeRegression: DefaultServerComputeRegression,
		MaxQPSRegression:        0.05,
		ErrorRateIncrease:       0.001,
		Confidence:              0.95,
		Resamples:               2000,
		Seed:                    1,
		RunToRun:                DefaultRunToRun,
		RunToRunMedian:          DefaultRunToRunMedian,
	}
}

// Validate reports the first setting out of range.
func (s Settings) Validate() error {
	var errs []error
	if !(s.P99Regression > 0 && s.P99Regression < 1) {
		errs = append(errs, fmt.Errorf("p99 regression threshold %v: want a fraction in (0, 1)", s.P99Regression))
	}
	if !(s.P99Equivalence == 0 || (s.P99Equivalence >= s.P99Regression && s.P99Equivalence < 1)) {
		errs = append(errs, fmt.Errorf("p99 equivalence margin %v: want 0 (the p99 regression threshold's) or a fraction from the p99 regression threshold %v up to 1", s.P99Equivalence, s.P99Regression))
	}
	if !(s.P50Regression >= 0 && s.P50Regression < 1) {
		errs = append(errs, fmt.Errorf("p50 regression threshold %v: want a fraction in [0, 1) (0: not gated)", s.P50Regression))
	}
	if !(s.ServerComputeRegression >= 0 && s.ServerComputeRegression < 1) {
		errs = append(errs, fmt.Errorf("server compute regression threshold %v: want a fraction in [0, 1) (0: not gated)", s.ServerComputeRegression))
	}
	if !(s.MaxQPSRegression > 0 && s.MaxQPSRegression < 1) {
		errs = append(errs, fmt.Errorf("max qps regression threshold %v: want a fraction in (0, 1)", s.MaxQPSRegression))
	}
	if !(s.ErrorRateIncrease > 0 && s.ErrorRateIncrease < 1) {
		errs = append(errs, fmt.Errorf("error rate threshold %v: want a fraction in (0, 1)", s.ErrorRateIncrease))
	}
	if !(s.Confidence >= 0.5 && s.Confidence < 1) {
		errs = append(errs, fmt.Errorf("confidence %v: want a value in [0.5, 1)", s.Confidence))
	}
	if s.Resamples < 100 {
		errs = append(errs, fmt.Errorf("resamples %d: want at least 100", s.Resamples))
	}
	if !(s.RunToRun >= 0 && s.RunToRun < 1) {
		errs = append(errs, fmt.Errorf("run-to-run noise %v: want a fraction in [0, 1)", s.RunToRun))
	}
	if !(s.RunToRunMedian >= 0 && s.RunToRunMedian < 1) {
		errs = append(errs, fmt.Errorf("median run-to-run noise %v: want a fraction in [0, 1) (0: the run-to-run noise's)", s.RunToRunMedian))
	}
	return errors.Join(errs...)
}

// TailMargin is the margin, in percent, inside which the metric named
// name is called unchanged when it is not the metric's threshold:
// 100·P99Equivalence for the tail quantiles gated at P99Regression (P99,
// P99.9, TTFT and TPOT P99) when it is wider than P99Regression, else 0
// (the threshold is the margin). A tail quantile at light load carries
// the host's scheduling, so an interval narrow enough to sit inside the
// regression threshold takes many times the requests a median needs; a
// wider margin, stated before the run, lets the gate say unchanged
// without loosening what it calls a regression.
func (s Settings) TailMargin(name string) float64 {
	switch name {
	case MetricP99, MetricP999, MetricTTFTP99, MetricTPOTP99:
		if s.P99Equivalence > s.P99Regression {
			return 100 * s.P99Equivalence
		}
	}
	return 0
}

// alpha is the test level.
func (s Settings) alpha() float64 { return 1 - s.Confidence }
