package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// Estimate is what one method says about a metric's change: the facts its
// verdict is decided from. Each method, one file each, returns one: the
// max-QPS methods (kneeMethod) and the latency methods (latencyMethod).
type Estimate struct {
	// Method names the method that made it (Metric.Method); set by the
	// driver that chose the method.
	Method string
	// Base and Cand are the point values of each side.
	Base, Cand float64
	// DeltaPct is the change in percent; CIPct its interval at the
	// confidence; EquivCIPct the (1−2α) interval that decides unchanged
	// (nil: CIPct serves); CIOpenHigh an interval with no upper bound.
	DeltaPct   float64
	CIPct      [2]float64
	EquivCIPct *[2]float64
	CIOpenHigh bool
	// P is the two-sided p-value of no change; NaN without a test.
	P float64
	// NBase and NCand are the units each side contributed; NBaseTrials
	// and NCandTrials the trials (or pairs) behind them, when the unit is
	// not the trial (MethodProcesses, MethodPaired).
	NBase, NCand             int
	NBaseTrials, NCandTrials int
	// Ratio is candidate/baseline as [point, low, high], for attribution
	// (the top may be +Inf).
	Ratio [3]float64
	// Censored names the side whose knee is only bounded ("" for none).
	Censored string
	// RunToRunVar is the run-to-run variance in the test.
	RunToRunVar float64
	// UnitsNeeded, when set, is how many units a side would give the
	// method a test (one knee a side: MinKneeEstimates).
	UnitsNeeded int
	// MinRequests and RequestsNeeded are set when a unit of a latency
	// test held too few requests for its quantile (sparseQuantile).
	MinRequests, RequestsNeeded int
	// Note says how it was compared.
	Note Note
}

// kneeMethod is one way to compare two sweeps' max QPS under the SLO.
// estimate's ok is false when the method does not apply to b and c.
type kneeMethod interface {
	method() string
	estimate(b, c *result.Capacity, s Settings, runVar, runDF float64) (e Estimate, ok bool)
}

var (
	_ kneeMethod = censoredKnees{}
	_ kneeMethod = pairedKneeRounds{}
	_ kneeMethod = welchKnees{}
	_ kneeMethod = kneeBrackets{}
)

// kneeMethods are tried in this order; the first that applies compares.
var kneeMethods = []kneeMethod{censoredKnees{}, pairedKneeRounds{}, welchKnees{}, kneeBrackets{}}

// MinKneeEstimates is the fewest independent knee estimates per side with
// which max QPS is tested; with fewer, a change beyond the threshold is
// inconclusive, never a regression.
const MinKneeEstimates = 3

// kneeOut is max QPS compared: the metric (nil when not compared), the
// ratio for attribution, and a note saying how (or why not).
type kneeOut struct {
	m     *Metric
	ratio *[3]float64
	note  Note
}

// maxQPS compares the knees of two sweeps by the first of kneeMethods
// that applies: a side whose search met the SLO at no rate against one
// with estimates (censoredKnees), paired rounds of a same-runner A/B
// (pairedKneeRounds), independent estimates on both sides (welchKnees),
// else the brackets of one knee a side (kneeBrackets), whose change is
// never regressed or improved. The verdict is decided with the
// scenario's other metrics (decide).
func maxQPS(b, c *result.Capacity, s Settings, runVar, runDF float64) kneeOut {
	switch {
	case b == nil && c == nil:
		return kneeOut{}
	case b == nil || c == nil:
		return kneeOut{note: Note{Code: NoteKneeOneSweep}}
	}
	for _, k := range kneeMethods {
		if e, ok := k.estimate(b, c, s, runVar, runDF); ok {
			e.Method = k.method()
			ratio := e.Ratio
			return kneeOut{m: kneeMetric(e, s), ratio: &ratio, note: e.Note}
		}
	}
	return kneeOut{note: Note{Code: NoteKneeNoPass}}
}

// kneeMetric is the max-QPS metric of an estimate.
func kneeMetric(e Estimate, s Settings) *Metric {
	m := &Metric{Metric: MetricMaxQPS, Baseline: e.Base, Candidate: e.Cand, DeltaPct: e.DeltaPct,
		CIPct: e.CIPct, EquivCIPct: e.EquivCIPct, CIOpenHigh: e.CIOpenHigh, ThresholdPct: 100 * s.MaxQPSRegression,
		BetterIs: HigherIsBetter, Gated: true, Method: e.Method, NBase: e.NBase, NCand: e.NCand,
		Censored: e.Censored, RunToRunVar: e.RunToRunVar, TrialsNeeded: e.UnitsNeeded}
	if !math.IsNaN(e.P) {
		m.PValue = ptr(e.P)
	}
	return m
}

// baseKnown reports whether the baseline's search found a knee.
func baseKnown(b *result.Capacity) bool { return b.Found && b.MaxQPS > 0 }

// latencyMethod is one way to compare a latency quantile of two sides:
// over two sets of trials (quantileMetrics), or, for an interleaved A/B
// run, over its paired units (ComparePaired, which reads the error rate
// the same way). estimate's ok is false when the method does not apply to
// in.
type latencyMethod interface {
	method() string
	estimate(in latencyInput) (e Estimate, ok bool)
}

var (
	_ latencyMethod = pairedBlocks{}
	_ latencyMethod = processQuantiles{}
	_ latencyMethod = trialQuantiles{}
)

// latencyMethods are tried in this order; the first that applies
// compares. trialQuantiles applies to any two sets of trials.
var latencyMethods = []latencyMethod{pairedBlocks{}, processQuantiles{}, trialQuantiles{}}

// latencyInput is what a latency method compares: one of paired and
// trials, and the confidence of the interval (conf) and of the
// equivalence interval that decides unchanged (eqConf).
type latencyInput struct {
	conf, eqConf float64
	paired       *pairedDiffs
	trials       *trialQuantile
}

// estimateLatency is the estimate of the first of latencyMethods that
// applies to in; ok is false when none does.
func estimateLatency(in latencyInput) (Estimate, bool) {
	for _, l := range latencyMethods {
		if e, ok := l.estimate(in); ok {
			e.Method = l.method()
			return e, true
		}
	}
	return Estimate{}, false
}

// latencyMetric is the metric name of a latency estimate, its threshold,
// direction and gating left to the caller's spec. Every latency method
// tests, so the p-value is always set.
func latencyMetric(e Estimate, name string) Metric {
	return Metric{Metric: name, Baseline: e.Base, Candidate: e.Cand, DeltaPct: e.DeltaPct,
		CIPct: e.CIPct, EquivCIPct: e.EquivCIPct, PValue: ptr(e.P), Method: e.Method,
		NBase: e.NBase, NCand: e.NCand, NBaseTrials: e.NBaseTrials, NCandTrials: e.NCandTrials,
		RunToRunVar: e.RunToRunVar, MinRequests: e.MinRequests, RequestsNeeded: e.RequestsNeeded}
}
