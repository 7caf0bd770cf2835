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
// histograms, bp and cp naming each trial's target process.
//
// When the trials came from at least three target processes in all (see
// processTest), the unit of evidence is the process: each process's
// quantile is that of its merged trials, the point values are the
// geometric means of the processes' quantiles, and the test and the
// interval are a pooled t-test on their logarithms (MethodProcesses), so
// that the between-process variance is in the test. Otherwise (one
// process a side) the point values are the quantiles of each side's merged
// trials, the test runs on each trial's own quantile and the interval
// comes from merging resampled trials (MethodTrials). Either way the
// bootstrap replicates of the ratio (for layer attribution) come from
// resampled trials; all quantiles share the resamples.
//
// runVar is the run-to-run variance (log scale) added to the test over
// processes (Settings.runVar, or pooled from the suite; 0 within one
// run), estimated on runDF degrees of freedom (+Inf when assumed).
func quantileMetrics(bh, ch []*hdrhistogram.Histogram, bp, cp []int, specs []quantSpec, s Settings, runVar, runDF float64, rs *resampler) []quantOut {
	nb, nc := len(bh), len(ch)
	if nb == 0 || nc == 0 {
		return nil
	}
	qs := newQuantSet(append(append([]*hdrhistogram.Histogram{}, bh...), ch...))
	w := make([]int, nb+nc)
	set := func(from, to, v int) {
		for i := from; i < to; i++ {
			w[i] = v
		}
	}
	outs := make([]quantOut, len(specs))
	gb, gc := groupsOf(bp, 0), groupsOf(cp, nb)
	byTrial := make([][]int, nb+nc) // each trial its own unit
	for i := range byTrial {
		byTrial[i] = []int{i}
	}
	perTrial := func(pct float64, from, to int) []float64 {
		vals := make([]float64, 0, to-from)
		for i := from; i < to; i++ {
			set(0, nb+nc, 0)
			w[i] = 1
			vals = append(vals, qs.quantile(w, pct))
		}
		return vals
	}
	for k, sp := range specs {
		set(0, nb, 1)
		set(nb, nb+nc, 0)
		base := qs.quantile(w, sp.pct)
		set(0, nb, 0)
		set(nb, nb+nc, 1)
		cand := qs.quantile(w, sp.pct)
		p := mannWhitney(perTrial(sp.pct, 0, nb), perTrial(sp.pct, nb, nb+nc))
		outs[k] = quantOut{
			m: Metric{Metric: sp.name, Baseline: base, Candidate: cand, DeltaPct: pctChange(base, cand),
				PValue: ptr(p), ThresholdPct: 100 * sp.thr, BetterIs: LowerIsBetter,
				Gated: sp.gated, Method: MethodTrials, NBase: nb, NCand: nc},
			reps: make([]float64, 0, s.Resamples),
		}
		if len(gb)+len(gc) >= 3 {
			perProc := func(groups [][]int) []float64 {
				v := make([]float64, len(groups))
				for g, idx := range groups {
					set(0, nb+nc, 0)
					for _, i := range idx {
						w[i] = 1
					}
					v[g] = qs.quantile(w, sp.pct)
				}
				return v
			}
			xb, xc := perProc(gb), perProc(gc)
			if t, ok := processTestDF(xb, xc, s.Confidence, runVar, runDF); ok {
				m := &outs[k].m
				m.Baseline, m.Candidate, m.DeltaPct = t.base, t.cand, pctChange(t.base, t.cand)
				m.PValue, m.CIPct = ptr(t.p), t.ci
				eq, _ := processTestDF(xb, xc, equivConf(s.Confidence), runVar, runDF)
				m.EquivCIPct = &eq.ci
				m.Method, m.NBase, m.NCand = MethodProcesses, len(gb), len(gc)
				m.NBaseTrials, m.NCandTrials = nb, nc
				m.RunToRunVar = runVar
			}
		}
		units := byTrial
		if outs[k].m.Method == MethodProcesses {
			units = append(append([][]int{}, gb...), gc...)
		}
		sparseQuantile(&outs[k].m, sp.pct, qs.totals, units)
	}
	deltas := make([][]float64, len(specs))
	wb, wc := make([]int, nb+nc), make([]int, nb+nc)
	for r := 0; r < s.Resamples; r++ {
		rs.draw(wb, 0, nb)
		rs.draw(wc, nb, nc)
		for k, sp := range specs {
			ratio := qs.quantile(wc, sp.pct) / qs.quantile(wb, sp.pct)
			outs[k].reps = append(outs[k].reps, ratio)
			deltas[k] = append(deltas[k], 100*(ratio-1))
		}
	}
	for k := range outs {
		if outs[k].m.Method == MethodTrials {
			outs[k].m.CIPct = percentileInterval(deltas[k], s.Confidence)
			eq := percentileInterval(deltas[k], equivConf(s.Confidence))
			outs[k].m.EquivCIPct = &eq
		}
	}
	return outs
}

// RequestsForQuantile is the fewest requests one unit of a test (a target
// process, or a trial when the test is over trials) must hold for its
// quantile pct to be more than its largest value: 100 for P99, 1,000 for
// P99.9.
func RequestsForQuantile(pct float64) int {
	return int(math.Ceil(100/(100-pct) - 1e-9))
}

// sparseQuantile marks m when a unit of its test held too few requests for
// the quantile pct: the P99 of 5 requests is their maximum, a single slow
// request, and a test over such values calls noise a regression (the
// demo's A/A gates did, on LLM scenarios of 5 to 9 requests a trial).
// MinRequests and RequestsNeeded say why; sparseGuard decides it.
//
// totals are both sides' per-trial request counts, units the indexes into
// them of each unit of the test.
func sparseQuantile(m *Metric, pct float64, totals []int64, units [][]int) {
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
		return
	}
	m.MinRequests, m.RequestsNeeded = int(fewest), need
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
