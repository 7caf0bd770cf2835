package compare

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/result"
)

// MethodPaired: per adjacent pair of trials (base, head) the log ratio of
// the metric, Wilcoxon's signed-rank test of the log ratios and a paired
// bootstrap interval of their mean (same-runner A/B, `gate --ab`).
const MethodPaired = "paired-signed-rank+bootstrap"

// Pairs are the trials of an interleaved A/B run, pair by pair: Base[i]
// and Head[i] were measured back to back (ABBA order), so whatever moved
// the runner between pairs (clocks, temperature, neighbours) moved both.
type Pairs struct {
	Base, Head []result.Trial
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
	value    func(t *result.Trial) (float64, bool)
}

// pairedSpecs are the metrics a paired comparison reads: the same gated
// set as Compare (P99, error rate, TTFT and TPOT P99 for streams) and P50
// for reading.
func pairedSpecs() []pairedSpec {
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
	return []pairedSpec{
		{name: MetricP50, betterIs: LowerIsBetter, value: lat(func(l result.Latency) float64 { return l.P50 })},
		{name: MetricP99, gated: true, betterIs: LowerIsBetter, value: lat(func(l result.Latency) float64 { return l.P99 })},
		{name: MetricErrorRate, gated: true, absolute: true, betterIs: LowerIsBetter, value: func(t *result.Trial) (float64, bool) {
			if t.Requests <= 0 {
				return 0, false
			}
			return float64(t.Errors) / float64(t.Requests), true
		}},
		{name: MetricTTFTP99, gated: true, betterIs: LowerIsBetter, value: llm(func(l *result.LLM) float64 { return l.TTFT.P99 })},
		{name: MetricTPOTP99, gated: true, betterIs: LowerIsBetter, value: llm(func(l *result.LLM) float64 {
			if l.TPOT == nil { // no request had two tokens: nothing to compare
				return 0
			}
			return l.TPOT.P99
		})},
	}
}

// ComparePaired compares the head side of an interleaved A/B run with its
// base side, pair by pair, at test level level (the nominal level of this
// look of a sequential design; 1 − s.Confidence for a single look). The
// intervals are at confidence 1 − level, so that "unchanged" (the interval
// inside the threshold) is claimed with the same error allowance as a
// regression.
//
// For each metric and each pair i, d_i = ln(head_i / base_i) (for the
// error rate, head_i − base_i in points, since a base of zero errors has
// no ratio). The change is exp(HL) − 1, with HL the Hodges-Lehmann
// estimate of the centre of the d_i (the median of the Walsh averages
// (d_i + d_j)/2, i ≤ j: the estimator that goes with the signed-rank test,
// as efficient as the mean for normal noise and far steadier when a loaded
// host throws a few trials' P99 far out); its interval is the percentile
// interval of that statistic over s.Resamples resamples of whole pairs
// (seeded by s.Seed and the scenario); the p-value is Wilcoxon's
// signed-rank test of the d_i. Holm's correction runs across the gated
// metrics whose differences are not all zero (those cannot reject, as for
// Compare), and the verdict rule is Compare's, with level for α.
//
// Why pairs: a drift of the runner shifts base_i and head_i alike, so it
// cancels in d_i, where an unpaired test would read it as the change. In
// ABBA order the pairs alternate which side ran first, so a drift within a
// pair adds ±δ alternately and cancels in the mean.
func ComparePaired(scenario, layer string, p Pairs, s Settings, level float64) ScenarioComparison {
	sc := ScenarioComparison{Scenario: scenario, Layer: layer, Metrics: []Metric{}}
	n := p.Len()
	sc.BaseTrials, sc.CandTrials = n, n
	if n < 2 {
		sc.Verdict = Inconclusive
		sc.Reason = fmt.Sprintf("%d pair(s) measured: at least 2 are needed", n)
		return sc
	}
	rs := newResampler(s.Seed, scenario)
	conf := 1 - level
	untestable := map[int]bool{}
	for _, sp := range pairedSpecs() {
		var d, bv, hv []float64
		skipped := 0
		for i := range n {
			b, okb := sp.value(&p.Base[i])
			h, okh := sp.value(&p.Head[i])
			if !okb || !okh || !p.Base[i].Valid || !p.Head[i].Valid {
				skipped++
				continue
			}
			bv, hv = append(bv, b), append(hv, h)
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
			sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s: %d of %d pairs left out (an invalid trial or no value on one side)", sp.name, skipped, n))
		}
		m := pairedMetric(sp, d, bv, hv, s, conf, rs)
		if allZero(d) {
			untestable[len(sc.Metrics)] = true
		}
		sc.Metrics = append(sc.Metrics, m)
	}
	decidePaired(&sc, untestable, level)
	return sc
}

// pairedMetric computes one metric's change, interval and p-value.
func pairedMetric(sp pairedSpec, d, bv, hv []float64, s Settings, conf float64, rs *resampler) Metric {
	n := len(d)
	m := Metric{Metric: sp.name, Gated: sp.gated, BetterIs: sp.betterIs, Absolute: sp.absolute,
		Method: MethodPaired, NBase: n, NCand: n, PValue: ptr(signedRank(d))}
	stat := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	m.ThresholdPct = 100 * s.P99Regression
	if sp.absolute {
		stat = func(x float64) float64 { return 100 * x }
		m.ThresholdPct = 100 * s.ErrorRateIncrease
		m.Baseline, m.Candidate = mean(bv), mean(hv)
	} else {
		m.Baseline, m.Candidate = geomean(bv), geomean(hv)
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	m.DeltaPct = stat(hodgesLehmann(d, walsh))
	reps := make([]float64, s.Resamples)
	w := make([]int, n)
	x := make([]float64, 0, n)
	for r := range reps {
		rs.draw(w, 0, n)
		x = x[:0]
		for i, k := range w {
			for range k {
				x = append(x, d[i])
			}
		}
		reps[r] = stat(hodgesLehmann(x, walsh))
	}
	m.CIPct = percentileInterval(reps, conf)
	return m
}

// decidePaired applies Holm's correction and the verdict rule at level.
func decidePaired(sc *ScenarioComparison, untestable map[int]bool, level float64) {
	var fam []int
	var ps []float64
	for i, m := range sc.Metrics {
		if m.Gated && !untestable[i] {
			fam = append(fam, i)
			ps = append(ps, *m.PValue)
		}
	}
	for j, p := range holm(ps) {
		sc.Metrics[fam[j]].PHolm = ptr(p)
	}
	for i := range sc.Metrics {
		m := &sc.Metrics[i]
		p := *m.PValue
		if m.PHolm != nil {
			p = *m.PHolm
		}
		m.Verdict = Decide(m.DeltaPct, m.CIPct, m.ThresholdPct, m.BetterIs, p, level)
	}
	if len(fam) > 0 && len(sc.Metrics) > 0 {
		if mp := signedRankMinP(sc.Metrics[0].NBase); mp >= level/float64(len(fam)) {
			sc.Warnings = append(sc.Warnings, fmt.Sprintf(
				"with %d pairs the smallest possible signed-rank p-value is %.3g, not below this look's level %.3g shared by %d gated test(s): no regression can be called yet",
				sc.Metrics[0].NBase, mp, level, len(fam)))
		}
	}
	sc.Verdict = scenarioVerdict(sc.Metrics)
}

// Decided reports whether every gated metric of a paired scenario is
// decided: regressed or improved beyond its threshold, or unchanged inside
// it. A sequential A/B run stops measuring a scenario once it is.
func Decided(sc ScenarioComparison) bool {
	any := false
	for _, m := range sc.Metrics {
		if !m.Gated {
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
		c.Verdict, c.Reason = NoBaseline, "no scenario was measured on both sides"
		return c
	}
	c.Sensitivity, c.Detects = sensitivity(c.Scenarios, s)
	c.Verdict, c.Reason = topVerdict(c, &EnvCheck{Match: true}, len(scs), s)
	return c
}

func allZero(d []float64) bool {
	for _, v := range d {
		if v != 0 {
			return false
		}
	}
	return true
}

// hodgesLehmann returns the median of the Walsh averages of d, using buf
// (reset) for them.
func hodgesLehmann(d, buf []float64) float64 {
	buf = buf[:0]
	for i := range d {
		for j := i; j < len(d); j++ {
			buf = append(buf, (d[i]+d[j])/2)
		}
	}
	return median(buf)
}

// median returns the median of v, reordering v (quickselect, linear time).
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	hi := selectK(v, n/2)
	if n%2 == 1 {
		return hi
	}
	lo := v[0] // the largest of the lower half, left of n/2 by selectK
	for _, x := range v[:n/2] {
		lo = math.Max(lo, x)
	}
	return (lo + hi) / 2
}

// selectK reorders v so that v[k] is the k-th smallest, with no larger
// value before it and no smaller after it, and returns v[k] (Hoare's
// quickselect with a median-of-three pivot).
func selectK(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
