package compare

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/internal/stat"
)

// quantOut is a quantile metric with its bootstrap replicates of the
// candidate/baseline ratio (for layer attribution).
type quantOut struct {
	m    Metric
	reps []float64
}

// quantileMetrics compares latency quantiles of two sets of per-trial
// histograms, bp and cp naming each trial's target process, each quantile
// by the first of latencyMethods that applies: over target processes when
// the trials came from at least three in all (processQuantiles), else over
// trials (trialQuantiles). Either way the bootstrap replicates of the
// ratio (for layer attribution, and the interval over trials) come from
// resampled trials, and all quantiles share the resamples.
//
// noise is the run-to-run variance (log scale) added to the test over
// processes (Settings.runVar, or pooled from the suite; none within one
// run) with its degrees of freedom (+Inf when assumed): the medians'
// family's for a spec marked median, else the tail's.
func quantileMetrics(bh, ch []*hdrhistogram.Histogram, bp, cp []int, specs []quantSpec, s Settings, noise runNoise, rs *resampler) []quantOut {
	nb, nc := len(bh), len(ch)
	if nb == 0 || nc == 0 {
		return nil
	}
	qs := newQuantSet(append(append([]*hdrhistogram.Histogram{}, bh...), ch...))
	reps := make([][]float64, len(specs))
	for k := range reps {
		reps[k] = make([]float64, 0, s.Resamples)
	}
	wb, wc := make([]int, nb+nc), make([]int, nb+nc)
	for r := 0; r < s.Resamples; r++ {
		rs.draw(wb, 0, nb)
		rs.draw(wc, nb, nc)
		for k, sp := range specs {
			reps[k] = append(reps[k], qs.quantile(wc, sp.pct)/qs.quantile(wb, sp.pct))
		}
	}
	gb, gc := groupsOf(bp, 0), groupsOf(cp, nb)
	outs := make([]quantOut, len(specs))
	for k, sp := range specs {
		runVar, runDF := noise.lat, noise.latDF
		if sp.median {
			runVar, runDF = noise.med, noise.medDF
		}
		in := latencyInput{conf: s.Confidence, eqConf: equivConf(s.Confidence), trials: &trialQuantile{
			qs: qs, pct: sp.pct, nb: nb, nc: nc, procB: gb, procC: gc, ratios: reps[k], runVar: runVar, runDF: runDF}}
		e, _ := estimateLatency(in) // trialQuantiles applies to any trials
		m := latencyMetric(e, sp.name)
		m.ThresholdPct, m.BetterIs, m.Gated = 100*sp.thr, LowerIsBetter, sp.gated
		outs[k] = quantOut{m: m, reps: reps[k]}
	}
	return outs
}

// trialQuantile is one latency quantile (pct) of two sides' trials, the
// input of the methods over trials and over processes: qs holds the
// baseline's nb trials, then the candidate's nc; procB and procC are the
// indexes into qs of each side's trials, by target process; ratios are
// the bootstrap replicates of the candidate/baseline quantile over
// resampled trials; runVar is the run-to-run variance the test over
// processes adds, on runDF degrees of freedom.
type trialQuantile struct {
	qs            *quantSet
	pct           float64
	nb, nc        int
	procB, procC  [][]int
	ratios        []float64
	runVar, runDF float64
}

// over is the quantile of each unit's merged trials (a unit: indexes into
// qs).
func (q *trialQuantile) over(units [][]int) []float64 {
	w := make([]int, q.nb+q.nc)
	v := make([]float64, len(units))
	for u, idx := range units {
		clear(w)
		for _, i := range idx {
			w[i] = 1
		}
		v[u] = q.qs.quantile(w, q.pct)
	}
	return v
}

// merged is the quantile of trials [from, to) merged.
func (q *trialQuantile) merged(from, to int) float64 {
	w := make([]int, q.nb+q.nc)
	for i := from; i < to; i++ {
		w[i] = 1
	}
	return q.qs.quantile(w, q.pct)
}

// sparse marks e when a unit of its test held too few requests for the
// quantile (sparseQuantile).
func (q *trialQuantile) sparse(e *Estimate, units [][]int) {
	e.MinRequests, e.RequestsNeeded = sparseQuantile(q.pct, q.qs.totals, units)
}

// RequestsForQuantile is the fewest requests one unit of a test (a target
// process, or a trial when the test is over trials) must hold for its
// quantile pct to be more than its largest value: 100 for P99, 1,000 for
// P99.9.
func RequestsForQuantile(pct float64) int {
	return int(math.Ceil(100/(100-pct) - 1e-9))
}

// sparseQuantile says whether a unit of a test held too few requests for
// the quantile pct: the P99 of 5 requests is their maximum, a single slow
// request, and a test over such values calls noise a regression (the
// demo's A/A gates did, on LLM scenarios of 5 to 9 requests a trial).
// It returns the fewest requests a unit held and RequestsForQuantile(pct),
// both 0 when every unit held enough (Metric.MinRequests and
// RequestsNeeded say why; sparseGuard decides it).
//
// totals are both sides' per-trial request counts, units the indexes into
// them of each unit of the test.
func sparseQuantile(pct float64, totals []int64, units [][]int) (fewestRequests, requestsNeeded int) {
	need := RequestsForQuantile(pct)
	fewest := int64(-1)
	for _, idx := range units {
		var n int64
		for _, i := range idx {
			n += totals[i]
		}
		if fewest < 0 || n < fewest {
			fewest = n
		}
	}
	if fewest < 0 || fewest >= int64(need) {
		return 0, 0
	}
	return int(fewest), need
}

// groupsOf groups trial indexes (offset by off) by their process, in the
// order processes first appear.
func groupsOf(procs []int, off int) [][]int {
	at := map[int]int{}
	var out [][]int
	for i, p := range procs {
		g, ok := at[p]
		if !ok {
			g = len(out)
			at[p] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], off+i)
	}
	return out
}

// meanMetric compares a per-trial rate where higher is better (output
// tokens/s, goodput); false when the baseline's is zero. The point values are the trial means, the interval
// bootstraps the ratio of means. It is reported, never gated.
func meanMetric(name string, bv, cv []float64, thr float64, s Settings, rs *resampler) (Metric, bool) {
	nb, nc := len(bv), len(cv)
	base, cand := mean(bv), mean(cv)
	m := Metric{Metric: name, Baseline: base, Candidate: cand, DeltaPct: pctChange(base, cand),
		PValue: ptr(mannWhitney(bv, cv)), ThresholdPct: 100 * thr, BetterIs: HigherIsBetter,
		Method: MethodTrials, NBase: nb, NCand: nc}
	if base <= 0 {
		return m, false
	}
	all := append(append([]float64{}, bv...), cv...)
	wb, wc := make([]int, nb+nc), make([]int, nb+nc)
	deltas := make([]float64, 0, s.Resamples)
	for r := 0; r < s.Resamples; r++ {
		rs.draw(wb, 0, nb)
		rs.draw(wc, nb, nc)
		mb, mc := weightedMean(all, wb), weightedMean(all, wc)
		if mb > 0 {
			deltas = append(deltas, 100*(mc/mb-1))
		}
	}
	if len(deltas) == 0 {
		return m, false
	}
	m.CIPct = percentileInterval(deltas, s.Confidence)
	eq := percentileInterval(deltas, equivConf(s.Confidence))
	m.EquivCIPct = &eq
	return m, true
}

// errorRate compares the share of failed requests in percentage points:
// pooled over trials for the point values and the bootstrap, per trial for
// the test. It is gated with the absolute threshold ErrorRateIncrease.
func errorRate(bs, cs *side, s Settings, rs *resampler) Metric {
	nb, nc := len(bs.errs), len(cs.errs)
	errs := append(append([]int64{}, bs.errs...), cs.errs...)
	reqs := append(append([]int64{}, bs.reqs...), cs.reqs...)
	rate := func(w []int) float64 {
		var e, n int64
		for i, k := range w {
			e += int64(k) * errs[i]
			n += int64(k) * reqs[i]
		}
		if n == 0 {
			return 0
		}
		return float64(e) / float64(n)
	}
	perTrial := func(from, to int) []float64 {
		var v []float64
		for i := from; i < to; i++ {
			if reqs[i] > 0 {
				v = append(v, float64(errs[i])/float64(reqs[i]))
			} else {
				v = append(v, 0)
			}
		}
		return v
	}
	wb, wc := make([]int, nb+nc), make([]int, nb+nc)
	for i := range nb {
		wb[i] = 1
	}
	for i := nb; i < nb+nc; i++ {
		wc[i] = 1
	}
	base, cand := rate(wb), rate(wc)
	m := Metric{Metric: MetricErrorRate, Baseline: base, Candidate: cand, DeltaPct: 100 * (cand - base),
		PValue: ptr(mannWhitney(perTrial(0, nb), perTrial(nb, nb+nc))), ThresholdPct: 100 * s.ErrorRateIncrease,
		BetterIs: LowerIsBetter, Absolute: true, Gated: true, Method: MethodTrials, NBase: nb, NCand: nc}
	deltas := make([]float64, 0, s.Resamples)
	for r := 0; r < s.Resamples; r++ {
		rs.draw(wb, 0, nb)
		rs.draw(wc, nb, nc)
		deltas = append(deltas, 100*(rate(wc)-rate(wb)))
	}
	m.CIPct = percentileInterval(deltas, s.Confidence)
	eq := percentileInterval(deltas, equivConf(s.Confidence))
	m.EquivCIPct = &eq
	return m
}

// pctChange is 100·(cand/base − 1), 0 when base is 0.
func pctChange(base, cand float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * (cand/base - 1)
}

// mean is the arithmetic mean (stat.Mean; 0 for no values).
func mean(v []float64) float64 { return stat.Mean(v) }

func weightedMean(v []float64, w []int) float64 {
	var s float64
	var n int
	for i, k := range w {
		s += float64(k) * v[i]
		n += k
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}
