package compare

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/perfgate/perfgate/result"
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
				PValue: ptr(p), ThresholdPct: 100 * s.P99Regression, BetterIs: LowerIsBetter,
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
			if pt, ci, gbase, gcand, ok := processTestDF(xb, xc, s.Confidence, runVar, runDF); ok {
				m := &outs[k].m
				m.Baseline, m.Candidate, m.DeltaPct = gbase, gcand, pctChange(gbase, gcand)
				m.PValue, m.CIPct = ptr(pt), ci
				_, eq, _, _, _ := processTestDF(xb, xc, equivConf(s.Confidence), runVar, runDF)
				m.EquivCIPct = &eq
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

// MinKneeEstimates is the fewest independent knee estimates per side with
// which max QPS is tested; with fewer, a change beyond the threshold is
// inconclusive, never a regression.
const MinKneeEstimates = 3

// maxQPS compares the knees of two sweeps.
//
// When both sides carry independent knee estimates (Capacity.Estimates:
// the search's own and one per confirmation round, each round in a fresh
// target process), the point values are their geometric means and the
// test is Welch's t-test on their logarithms (see welchLog), whose
// interval is the change's. The verdict is then decided in decide by the
// point-and-test rule: regressed when the point change is beyond the
// threshold and p (Holm) < α. With few estimates an interval is wide, and
// requiring all of it beyond the threshold would miss most real losses;
// the threshold guards practical significance, the test statistical.
//
// Without estimates on both sides (older results) there is one knee per
// run: the interval is what the two brackets allow, [cand.low/base.high −
// 1, cand.high/base.low − 1], which is search resolution, not run-to-run
// noise, so such a comparison can say unchanged but never regressed or
// improved (those become inconclusive, asking for estimates).
//
// It returns the metric, the ratio [point, low, high] for attribution (the
// top may be +Inf), and a warning saying how it was compared (or why not).
func maxQPS(b, c *result.Capacity, s Settings, runVar, runDF float64) (*Metric, *[3]float64, string) {
	switch {
	case b == nil && c == nil:
		return nil, nil, ""
	case b == nil || c == nil:
		return nil, nil, "max_qps: only one side ran a sweep: not compared"
	case !b.Found || b.MaxQPS <= 0:
		if m, ratio, w, ok := censoredKnee(b, c, "baseline", s, runVar, runDF); ok {
			return m, ratio, w
		}
		return nil, nil, "max_qps: the baseline's sweep found no passing rate: not compared"
	case !c.Found:
		if m, ratio, w, ok := censoredKnee(c, b, "candidate", s, runVar, runDF); ok {
			return m, ratio, w
		}
	}
	if c.Found && s.PairedKnees && len(b.Estimates) >= 2 && len(b.Estimates) == len(c.Estimates) {
		if m, ratio, w, ok := pairedKnees(b.Estimates, c.Estimates, s); ok {
			return m, ratio, w
		}
	}
	if c.Found && len(b.Estimates) >= 2 && len(c.Estimates) >= 2 {
		if p, ci, ok := welchLogDF(b.Estimates, c.Estimates, s.Confidence, runVar, runDF); ok {
			base, cand := GeoMean(b.Estimates), GeoMean(c.Estimates)
			m := &Metric{Metric: MetricMaxQPS, Baseline: base, Candidate: cand, DeltaPct: pctChange(base, cand),
				CIPct: ci, PValue: ptr(p), ThresholdPct: 100 * s.MaxQPSRegression, BetterIs: HigherIsBetter,
				Gated: true, Method: MethodKneeEstimates, NBase: len(b.Estimates), NCand: len(c.Estimates), RunToRunVar: runVar}
			if _, eq, ok := welchLogDF(b.Estimates, c.Estimates, equivConf(s.Confidence), runVar, runDF); ok {
				m.EquivCIPct = &eq
			}
			ratio := &[3]float64{cand / base, 1 + ci[0]/100, 1 + ci[1]/100}
			w := fmt.Sprintf("max_qps: %d baseline and %d candidate knee estimates (the search's and one per confirmation round, each in a fresh target process where perfgate starts the target), Welch's t-test on their logarithms; regressed only when the change is beyond %.3g%% and significant",
				m.NBase, m.NCand, m.ThresholdPct)
			return m, ratio, w
		}
	}
	bLo, bHi := bracket(b)
	cLo, cHi := bracket(c)
	base, cand := b.MaxQPS, c.MaxQPS
	if !c.Found {
		cand = 0
	}
	lo := 100 * (cLo/bHi - 1)
	hi := 100 * (cHi/bLo - 1)
	m := &Metric{Metric: MetricMaxQPS, Baseline: base, Candidate: cand, DeltaPct: pctChange(base, cand),
		CIPct: [2]float64{lo, hi}, ThresholdPct: 100 * s.MaxQPSRegression, BetterIs: HigherIsBetter,
		Gated: true, Method: MethodBracket, NBase: 1, NCand: 1}
	// Decided with the scenario's other metrics (decide); without a test
	// it is unchanged or inconclusive, and an inconclusive change beyond
	// the threshold asks for knee estimates.
	if Decide(m.DeltaPct, m.equivalenceCI(), m.ThresholdPct, HigherIsBetter, math.NaN(), s.alpha()) == Inconclusive && (beyond(*m) || m.DeltaPct > m.ThresholdPct) {
		// One knee a side: its bracket is search resolution, not noise,
		// so there is no test; knee estimates would give one.
		m.TrialsNeeded = MinKneeEstimates
	}
	ratio := &[3]float64{cand / base, cLo / bHi, cHi / bLo}
	if math.IsInf(hi, 1) {
		// JSON has no infinity: the open top is flagged and shown as the
		// larger of the point and the bottom.
		m.CIOpenHigh = true
		m.CIPct[1] = math.Max(m.DeltaPct, lo)
		return m, ratio, "max_qps: the candidate's sweep stopped before any rate failed, so its knee has no upper bound: the change can be inconclusive, never unchanged or a regression"
	}
	w := fmt.Sprintf("max_qps: one knee per run (no independent estimates on %s), so no test: the interval is what the knee brackets allow (baseline [%.4g, %.4g], candidate [%.4g, %.4g]) and a change beyond %.3g%% is inconclusive; confirm the knee (load.estimates >= %d) to test it",
		estimateSides(b, c), bLo, bHi, cLo, cHi, 100*s.MaxQPSRegression, MinKneeEstimates)
	return m, ratio, w
}

// pairedKnees tests max QPS over paired knee estimates (Settings.
// PairedKnees): d_r = ln(cand_r / base_r) for each round r, the change
// exp(mean d) − 1 with Student's t interval and test on n − 1 degrees of
// freedom, no run-to-run term. ok is false when an estimate is not
// positive.
func pairedKnees(b, c []float64, s Settings) (*Metric, *[3]float64, string, bool) {
	d := make([]float64, len(b))
	for i := range b {
		if !(b[i] > 0) || !(c[i] > 0) {
			return nil, nil, "", false
		}
		d[i] = math.Log(c[i] / b[i])
	}
	stat := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	p, lo, mid, hi := pairedT(d, s.Confidence)
	_, elo, _, ehi := pairedT(d, equivConf(s.Confidence))
	base, cand := GeoMean(b), GeoMean(c)
	m := &Metric{Metric: MetricMaxQPS, Baseline: base, Candidate: cand, DeltaPct: stat(mid),
		CIPct: [2]float64{stat(lo), stat(hi)}, EquivCIPct: &[2]float64{stat(elo), stat(ehi)}, PValue: ptr(p),
		ThresholdPct: 100 * s.MaxQPSRegression, BetterIs: HigherIsBetter, Gated: true,
		Method: MethodPairedKnees, NBase: len(b), NCand: len(c)}
	ratio := &[3]float64{math.Exp(mid), math.Exp(lo), math.Exp(hi)}
	w := fmt.Sprintf("max_qps: %d rounds of knee estimates, each round's two measured in the same fresh target processes back to back; Student's paired t-test on the rounds' log ratios, with no run-to-run term (both sides ran every round together); regressed only when the change is beyond %.3g%% and significant",
		len(b), m.ThresholdPct)
	return m, ratio, w, true
}

// MinCensoredFails is the fewest failing probes, and no passing one, that
// a knee search must have for its lowest failing rate to stand in for its
// max QPS (MethodCensoredKnee): one failing window may be one unlucky
// second; a search that went on failing as it lowered the rate has found
// a service that cannot meet the SLO there.
const MinCensoredFails = 3

// censoredKnee compares max QPS when one side's knee search (none) met the
// SLO at no rate it tried and the other's (known) has two or more knee
// estimates: the side without a knee has a max QPS below its lowest
// failing rate r, so r stands in for it as an upper bound. Under the null
// hypothesis that side's knee would be one more estimate like the known
// side's, so r is tested as one new observation (a prediction test):
//
//	t = (ln r − mean ln known) / √(s²·(1 + 1/n) + run-to-run variance)
//
// on n − 1 degrees of freedom (Satterthwaite's when the run-to-run
// variance is itself estimated). Since the true value lies below r, the
// one-sided p-value in the direction of "no knee" is conservative; the
// two-sided p is twice it. DeltaPct is the change with r in place of the
// missing max QPS: a bound, the least change the data allow in that
// direction, and the interval is open beyond it (−100% for a candidate,
// ci_open_high for a baseline). So a service that cannot meet the SLO at
// any rate it was probed at is regressed against one that could (unless
// the bound is within the threshold, or the test is not significant);
// before, it was left inconclusive with the knee "invalid".
//
// ok is false when the known side has fewer than two positive estimates,
// or the censored side has fewer than MinCensoredFails failing probes or
// any passing one (not generator-bound ones, which neither pass nor fail).
func censoredKnee(none, known *result.Capacity, side string, s Settings, runVar, runDF float64) (*Metric, *[3]float64, string, bool) {
	fails, bound := 0, math.Inf(1)
	for _, p := range none.Points {
		switch {
		case p.GeneratorBound:
		case p.Pass:
			return nil, nil, "", false
		case p.OfferedRPS > 0:
			fails++
			bound = math.Min(bound, p.OfferedRPS)
		}
	}
	lk, ok := logs(known.Estimates)
	if fails < MinCensoredFails || !ok || len(lk) < 2 || !known.Found {
		return nil, nil, "", false
	}
	mk, vk := meanVar(lk)
	n := float64(len(lk))
	pred := vk * (1 + 1/n)
	v := pred + runVar
	if !(v > 0) {
		return nil, nil, "", false
	}
	df := n - 1
	if pred > 0 && runVar > 0 {
		df = v * v / (pred*pred/(n-1) + runVar*runVar/runDF)
	}
	td := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	z := (math.Log(bound) - mk) / math.Sqrt(v)
	p := math.Min(1, 2*td.CDF(z)) // the censored side lies below the bound
	q := td.Quantile((1 + s.Confidence) / 2)
	spread := q * math.Sqrt(vk/n+runVar)
	kv := GeoMean(known.Estimates)
	m := &Metric{Metric: MetricMaxQPS, ThresholdPct: 100 * s.MaxQPSRegression, BetterIs: HigherIsBetter,
		Gated: true, Method: MethodCensoredKnee, PValue: ptr(p), Censored: side, RunToRunVar: runVar}
	var ratio *[3]float64
	if side == "candidate" {
		// The change is at most bound/known − 1 (and below it, to −100%).
		d := math.Log(bound) - mk
		m.Baseline, m.Candidate = kv, bound
		m.NBase, m.NCand = len(lk), fails
		m.DeltaPct = 100 * math.Expm1(d)
		m.CIPct = [2]float64{-100, 100 * math.Expm1(d+spread)}
		ratio = &[3]float64{bound / kv, 0, math.Exp(d + spread)}
	} else {
		// The change is at least known/bound − 1 (and above it, unbounded).
		d := mk - math.Log(bound)
		m.Baseline, m.Candidate = bound, kv
		m.NBase, m.NCand = fails, len(lk)
		m.DeltaPct = 100 * math.Expm1(d)
		m.CIPct = [2]float64{100 * math.Expm1(d-spread), 100 * math.Expm1(d)}
		m.CIOpenHigh = true
		ratio = &[3]float64{kv / bound, math.Exp(d - spread), math.Inf(1)}
	}
	eq := m.CIPct
	m.EquivCIPct = &eq
	w := fmt.Sprintf("max_qps: the %s's knee search met the SLO at no rate it tried (%d probes failed, the lowest at %.4g rps), so its max QPS is below %.4g rps: that bound tested as one more knee estimate against the other side's %d (Student's t on the logs, their spread and the run-to-run noise); delta_pct is the least change the data allow",
		side, fails, bound, bound, len(lk))
	return m, ratio, w, true
}

// estimateSides names the sides without knee estimates.
func estimateSides(b, c *result.Capacity) string {
	switch {
	case len(b.Estimates) < 2 && len(c.Estimates) < 2:
		return "either side"
	case len(b.Estimates) < 2:
		return "the baseline"
	}
	return "the candidate"
}

// bracket returns the knee's bounds: [0, lowest fail] when nothing passed,
// and an infinite top when nothing failed.
func bracket(c *result.Capacity) (lo, hi float64) {
	lo, hi = c.Bracket[0], c.Bracket[1]
	if !c.Found {
		lo = 0
		if hi <= 0 {
			hi = c.Bracket[0]
		}
	}
	if c.Found && lo <= 0 {
		lo = c.MaxQPS
	}
	if hi <= lo {
		hi = math.Inf(1)
	}
	return lo, hi
}

// pctChange is 100·(cand/base − 1), 0 when base is 0.
func pctChange(base, cand float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * (cand/base - 1)
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

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
