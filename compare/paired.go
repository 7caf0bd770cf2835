package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// Pairs are the trials of an interleaved A/B run, pair by pair: Base[i]
// and Head[i] were measured back to back (ABBA order), so whatever moved
// the runner between pairs (clocks, temperature, neighbours) moved both.
type Pairs struct {
	Base, Head []result.Trial
	// HeadFirst says, per pair, whether its head trial ran before its
	// base trial; nil when not known or when both ran at once. With it,
	// the paired test takes the order effect out of its variance
	// (orderAdjustedT).
	HeadFirst []bool
}

// Len is the number of complete pairs.
func (p Pairs) Len() int { return min(len(p.Base), len(p.Head)) }

// pairedSpec is one metric of a paired comparison: how to read it from a
// trial and how to judge it.
type pairedSpec struct {
	name     string
	gated    bool
	absolute bool // a difference in points (error rate), not a log ratio
	betterIs string
	thr      float64 // the threshold, as a fraction (0: P99Regression)
	// optional marks a metric only some servers report (the server's own
	// compute time): compared only when every trial of both sides has a
	// value, else left out without a word.
	optional bool
	value    func(t *result.Trial) (float64, bool)
	// merged reads the metric from a merged latency summary (nil: the
	// metric is not a quantile of the trial's latency histogram).
	merged func(l result.Latency) float64
	// q is the quantile the metric is, as a fraction, of the histogram
	// hist gives a trial (encoded; 0: not a quantile): for its sampling
	// floor (tailSpreadOf).
	q    float64
	hist func(t *result.Trial) string
}

// Each trial's histograms, encoded ("" where it has none).
func latencyHist(t *result.Trial) string { return t.Histogram }
func ttftHist(t *result.Trial) string {
	if t.LLM == nil {
		return ""
	}
	return t.LLM.TTFTHistogram
}
func tpotHist(t *result.Trial) string {
	if t.LLM == nil {
		return ""
	}
	return t.LLM.TPOTHistogram
}

func p50(l result.Latency) float64 { return l.P50 }
func p99(l result.Latency) float64 { return l.P99 }

// thresholdPct is sp's threshold in percent (points when absolute):
// Settings.ErrorRateIncrease for the error rate, sp.thr when set, else
// Settings.P99Regression.
func (sp pairedSpec) thresholdPct(s Settings) float64 {
	switch {
	case sp.absolute:
		return 100 * s.ErrorRateIncrease
	case sp.thr > 0:
		return 100 * sp.thr
	}
	return 100 * s.P99Regression
}

// pairedSpecs are the metrics a paired comparison reads: the same gated
// set as Compare under s (P50 and P99, error rate, TTFT and TPOT P50 and
// P99 for streams, the server's compute time where it reports one; the
// medians only reported when s does not gate them).
func pairedSpecs(s Settings) []pairedSpec {
	med, medThr := medianGated(s)
	lat := func(f func(l result.Latency) float64) func(t *result.Trial) (float64, bool) {
		return func(t *result.Trial) (float64, bool) { v := f(t.Latency); return v, v > 0 }
	}
	llm := func(f func(l *result.LLM) float64) func(t *result.Trial) (float64, bool) {
		return func(t *result.Trial) (float64, bool) {
			if t.LLM == nil {
				return 0, false
			}
			v := f(t.LLM)
			return v, v > 0
		}
	}
	specs := []pairedSpec{
		{name: MetricP50, gated: med, thr: medThr, betterIs: LowerIsBetter, value: lat(p50), merged: p50, q: 0.5, hist: latencyHist},
		{name: MetricP99, gated: true, betterIs: LowerIsBetter, value: lat(p99), merged: p99, q: 0.99, hist: latencyHist},
		{name: MetricErrorRate, gated: true, absolute: true, betterIs: LowerIsBetter, value: func(t *result.Trial) (float64, bool) {
			if t.Requests <= 0 {
				return 0, false
			}
			return float64(t.Errors) / float64(t.Requests), true
		}},
		{name: MetricTTFTP99, gated: true, betterIs: LowerIsBetter, q: 0.99, hist: ttftHist, value: llm(func(l *result.LLM) float64 { return l.TTFT.P99 })},
		{name: MetricTPOTP99, gated: true, betterIs: LowerIsBetter, q: 0.99, hist: tpotHist, value: llm(func(l *result.LLM) float64 {
			if l.TPOT == nil { // no request had two tokens: nothing to compare
				return 0
			}
			return l.TPOT.P99
		})},
	}
	if med {
		specs = append(specs,
			pairedSpec{name: MetricTTFTP50, gated: true, thr: medThr, betterIs: LowerIsBetter, q: 0.5, hist: ttftHist, value: llm(func(l *result.LLM) float64 { return l.TTFT.P50 })},
			pairedSpec{name: MetricTPOTP50, gated: true, thr: medThr, betterIs: LowerIsBetter, q: 0.5, hist: tpotHist, value: llm(func(l *result.LLM) float64 {
				if l.TPOT == nil {
					return 0
				}
				return l.TPOT.P50
			})})
	}
	on, thr := serverComputeThreshold(s)
	specs = append(specs, pairedSpec{name: MetricServerCompute, gated: on, thr: thr, optional: true, betterIs: LowerIsBetter,
		value: func(t *result.Trial) (float64, bool) { v := serverComputeOf(t); return v, v > 0 }})
	return specs
}

// ComparePaired compares the head side of an interleaved A/B run with its
// base side at test level level (the nominal level of this look of a
// sequential design for a regression or an improvement; 1 − s.Confidence
// for a single look) and equivalence level eqLevel (this look's level
// for `unchanged`, Sequential.EquivSpent; level again for a single look).
// The interval is at confidence 1 − level, the equivalence interval at
// 1 − 2·eqLevel (two one-sided tests at eqLevel).
//
// The pairs are grouped into units (pairedUnits): each pair, merged with
// the next until each side holds RequestsForQuantile(99) requests.
// For each metric and unit u, d_u = ln(head_u / base_u), with head_u and
// base_u the metric over the unit's trials of each side: a latency
// quantile from the side's merged histogram, so it rests on every request
// of the unit, not on a few hundred (for the error rate, head_u − base_u
// in points, since a base of zero errors has no ratio). The change is
// exp(mean d) − 1 with Student's t interval mean ± t(1 − level/2, n−1) ·
// s/√n, and the p-value is the paired t-test's of mean d = 0: the test the
// stored gate runs over target processes, here over blocks measured
// moments apart. Holm's correction runs across the gated metrics whose
// differences are not all zero (those cannot reject, as for Compare), and
// the verdict is Decide's, with level for α.
//
// Why pairs: a drift of the runner shifts base and head alike, so it
// cancels in d_u, where an unpaired test would read it as the change; in
// ABBA order the pairs alternate which side ran first, so a drift within a
// pair adds ±δ alternately and cancels in the mean.
func ComparePaired(scenario, layer string, p Pairs, s Settings, level, eqLevel float64) ScenarioComparison {
	sc := ScenarioComparison{Scenario: scenario, Layer: layer, Metrics: []Metric{}}
	n := p.Len()
	sc.BaseTrials, sc.CandTrials = n, n
	units := pairedUnits(p, int64(RequestsForQuantile(99)))
	if len(units) < 2 {
		undecidable(&sc, Note{Code: NotePairedTooFewUnits, Count: len(units), Total: n, Need: RequestsForQuantile(99)})
		return sc
	}
	for k, side := range [][]result.Trial{p.Base[:n], p.Head[:n]} {
		flagged, why := 0, ""
		for _, t := range side {
			if !t.Valid && !leftOut(&t) {
				flagged++
				if why == "" && len(t.Invalid) > 0 {
					why = t.Invalid[0]
				}
			}
		}
		if flagged > 0 {
			sc.Notes = append(sc.Notes, Note{Code: NotePairedFlagged, Side: [2]string{"base", "head"}[k], Count: flagged, Total: n, Text: why})
		}
	}
	conf := 1 - level
	untestable := map[int]bool{}
	for _, sp := range pairedSpecs(s) {
		if sp.optional && !everyTrialHas(sp, p.Base[:n], p.Head[:n]) {
			continue
		}
		var d, bv, hv, order []float64
		skipped := 0
		for _, u := range units {
			b, okb := unitValue(sp, u.base)
			h, okh := unitValue(sp, u.head)
			if !okb || !okh {
				skipped++
				continue
			}
			bv, hv = append(bv, b), append(hv, h)
			order = append(order, u.order)
			if sp.absolute {
				d = append(d, h-b)
			} else {
				d = append(d, math.Log(h/b))
			}
		}
		if len(d) == 0 {
			continue // the metric does not apply (no streams)
		}
		if skipped > 0 {
			sc.Notes = append(sc.Notes, Note{Code: NotePairedLeftOut, Metric: sp.name, Count: skipped, Total: len(units)})
		}
		e, _ := estimateLatency(latencyInput{conf: conf, eqConf: math.Max(0, 1-2*eqLevel),
			paired: &pairedDiffs{d: d, base: bv, head: hv, order: orderIfKnown(order, len(p.HeadFirst) >= n), absolute: sp.absolute, pairs: n}}) // pairedBlocks applies to any d
		m := latencyMetric(e, sp.name)
		m.Gated, m.BetterIs, m.Absolute, m.ThresholdPct = sp.gated, sp.betterIs, sp.absolute, sp.thresholdPct(s)
		m.EquivalencePct = s.TailMargin(sp.name)
		if allZero(d) {
			untestable[len(sc.Metrics)] = true
		}
		sc.Metrics = append(sc.Metrics, m)
	}
	decidePaired(&sc, untestable, level)
	gated := false
	for _, m := range sc.Metrics {
		gated = gated || m.Gated
	}
	if !gated {
		undecidable(&sc, Note{Code: NotePairedNoGated, Count: len(units), Total: n})
	}
	return sc
}

// Decided reports whether a paired scenario is decided: regressed (a
// gated metric regressed beyond its threshold, significant at the look's
// level), or every gated metric decided: regressed or improved beyond its
// threshold, or unchanged inside it (a metric that yields aside: a compute
// time beside a decided median, or one no worse beside an improvement:
// yields). A sequential A/B run stops
// measuring a scenario once it is: a look's rejection is what its level
// was spent on, and measuring on would only settle the other metrics.
func Decided(sc ScenarioComparison) bool {
	if sc.Verdict == Regressed {
		return true
	}
	any := false
	for _, m := range sc.Metrics {
		if !m.Gated || yields(sc.Metrics, m) != nil {
			continue
		}
		any = true
		if m.Verdict == Inconclusive || m.Verdict == "" {
			return false
		}
	}
	return any
}

// PairedComparison assembles the comparison document of an A/B run from
// its scenarios' paired comparisons, with Compare's verdict rule.
func PairedComparison(scs []ScenarioComparison, s Settings) *Comparison {
	c := &Comparison{Schema: Schema, Settings: s, Scenarios: append([]ScenarioComparison{}, scs...)}
	if len(scs) == 0 {
		nothingCompared(c)
		return c
	}
	c.Sensitivity = sensitivity(c.Scenarios, s)
	setTop(c, &EnvCheck{Match: true}, len(scs), s, true)
	return c
}

// everyTrialHas reports whether every trial of both sides that is not
// left out (leftOut) has a value of sp.
func everyTrialHas(sp pairedSpec, sides ...[]result.Trial) bool {
	for _, side := range sides {
		for i := range side {
			if _, ok := sp.value(&side[i]); !ok && !leftOut(&side[i]) {
				return false
			}
		}
	}
	return true
}

func allZero(d []float64) bool {
	for _, v := range d {
		if v != 0 {
			return false
		}
	}
	return true
}
