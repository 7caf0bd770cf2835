package compare

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/result"
)

// Sources of the run-to-run variance in a scenario's tests
// (ScenarioComparison.RunToRunSource).
const (
	RunToRunNoiseFloor = "noise floor"
	RunToRunPooled     = "pooled"
	RunToRunAssumed    = "assumed"
	RunToRunNone       = "none"
)

// MinPooledScenarios is the fewest other scenarios whose movement between
// the two runs must be known for their pooled estimate to replace the
// assumed run-to-run noise (gate.run_to_run) in a scenario's test.
const MinPooledScenarios = 4

// pooledFloor is the least run-to-run noise a pooled estimate may give,
// as a per-run standard deviation on the log scale (0.5%): an estimate of
// zero from a handful of scenarios is not evidence of none (its
// uncertainty is in the test's degrees of freedom besides).
const pooledFloor = 0.005

// runNoise is the run-to-run variance (log scale, of the difference of
// two runs) added to one scenario's tests, per family of metrics.
//
// lat is the tail's family (P99, P99.9, TTFT and TPOT P99), med the
// medians' (P50, TTFT and TPOT P50, the server's compute time): a run
// shifts them by different amounts (Settings.RunToRunMedian), and each
// is measured from its own metric (P99's moves and floor, P50's).
type runNoise struct {
	lat, med, qps          float64
	latDF, medDF, qpsDF    float64 // degrees of freedom of the estimate (+Inf: assumed)
	latSrc, medSrc, qpsSrc string
	measured               bool // the baseline carries a noise floor
}

// noRunNoise is the run-to-run noise of a comparison within one run: none.
func noRunNoise() runNoise {
	inf := math.Inf(1)
	return runNoise{latDF: inf, medDF: inf, qpsDF: inf, latSrc: RunToRunNone, medSrc: RunToRunNone, qpsSrc: RunToRunNone}
}

// moved is one scenario's change between the runs in one metric, on the
// log scale, with its sampling variance (from the test's own interval).
type moved struct {
	d, v float64
	ok   bool
	// within is the sampling variance of the difference of two runs'
	// values (log scale) as the candidate's own processes show it, the
	// spread of one run (0: unknown; runFloorVar then scales v).
	within float64
}

// runSampling is the sampling variance of the difference of two runs'
// quantile pct (log scale, each the quantile of its trials' merged
// histograms, as NoiseFloor reads a run) as r's processes show it: twice
// the delete-one-process jackknife variance of r's own merged quantile. r is one run, so its
// processes share the run's shift and their spread is sampling and
// process-to-process noise alone. 0 when r has fewer than two processes
// with a histogram.
//
// Why a jackknife and not 2 s²/k from the processes' own P99s: a merged
// P99 leans on the slowest processes and varies more than the mean of
// their logs, so the smaller estimate takes two runs' ordinary
// disagreement for a shift (TestSimulatedRunToRun;
// bench/RESULTS-rules.md#comparerunsampling).
func runSampling(r *result.Result, pct float64) float64 {
	byProc := map[int][]result.Trial{}
	var procs []int
	for _, t := range r.Trials {
		if t.Valid && len(t.Histogram) > 0 {
			p := max(t.Process, 1)
			if byProc[p] == nil {
				procs = append(procs, p)
			}
			byProc[p] = append(byProc[p], t)
		}
	}
	k := len(procs)
	if k < 2 {
		return 0
	}
	theta := make([]float64, 0, k)
	for _, leave := range procs {
		var ts []result.Trial
		for _, p := range procs {
			if p != leave {
				ts = append(ts, byProc[p]...)
			}
		}
		h, err := result.MergeTrials(ts)
		if err != nil || h == nil || h.TotalCount() == 0 {
			return 0
		}
		v := float64(h.ValueAtQuantile(pct))
		if !(v > 0) {
			return 0
		}
		theta = append(theta, math.Log(v))
	}
	_, s2 := meanVar(theta)
	// Jackknife: (k−1)/k Σ(θᵢ − θ̄)² = (k−1)²/k · s².
	return 2 * s2 * float64((k-1)*(k-1)) / float64(k)
}

// poolRunNoise decides, per compared pair, the run-to-run variance its
// tests over processes and knee estimates add. The baseline's run(s) and
// the candidate's run each moved by the machine's state, which their
// processes cannot show (a one-run baseline at all; a two-run baseline
// only for itself, not for the candidate's run). Where the suite allows
// it is measured: how far the other scenarios' P99 (P50, max QPS) moved
// between the baseline and the candidate beyond what their own sampling
// noise explains, by the DerSimonian–Laird estimate of between-scenario
// variance plus the run's common shift (commonShift), leaving the
// scenario itself out (so that its own change does
// not widen its own test). That needs MinPooledScenarios others; else a
// baseline from two or more runs measures it from its noise floor
// (runFloorVar) and a one-run baseline assumes gate.run_to_run (the
// medians gate.run_to_run_median).
// Settings.RunToRun 0 adds nothing (comparisons within one run). lat,
// med and qps are the scenarios' P99, P50 and max QPS changes measured
// with no run-to-run term; compared marks the pairs with a baseline.
//
// A scenario whose noise the history learned (Settings.Learned) uses that
// before all of these, on its runs less one degrees of freedom: the tail's
// and max QPS's from the tail's spread, the medians' from their own.
func poolRunNoise(names []string, floors []map[string]float64, compared []bool, lat, med, qps []moved, s Settings) []runNoise {
	out := make([]runNoise, len(floors))
	assumed, assumedMed := s.runVar(false), s.runVarMedian()
	for i, floor := range floors {
		measured := len(floor) > 0
		n := &out[i]
		*n = noRunNoise()
		n.measured = measured
		if !compared[i] || s.RunToRun <= 0 {
			continue
		}
		ln, learned := s.Learned[names[i]]
		if learned && ln.Runs > 1 && ln.Fraction >= 0 {
			l := math.Log1p(ln.Fraction)
			n.lat, n.latDF, n.latSrc = 2*l*l, float64(ln.Runs-1), fmt.Sprintf("history (%d runs)", ln.Runs)
			n.qps, n.qpsDF, n.qpsSrc = n.lat, n.latDF, n.latSrc
		} else {
			n.lat, n.latDF, n.latSrc = pooledOr(lat, i, assumed, math.Inf(1), RunToRunAssumed)
			n.qps, n.qpsDF, n.qpsSrc = pooledOr(qps, i, assumed, math.Inf(1), RunToRunAssumed)
			if measured && n.latSrc != RunToRunPooled {
				n.lat, n.latDF = runFloorVar(floor[MetricP99], lat[i], assumed/2)
				n.latSrc = RunToRunNoiseFloor
			}
			if measured && n.qpsSrc != RunToRunPooled {
				n.qps, n.qpsDF = runFloorVar(floor[MetricMaxQPS], qps[i], assumed/2)
				n.qpsSrc = RunToRunNoiseFloor
			}
		}
		if learned && ln.MedianRuns > 1 && ln.MedianFraction >= 0 {
			l := math.Log1p(ln.MedianFraction)
			n.med, n.medDF, n.medSrc = 2*l*l, float64(ln.MedianRuns-1), fmt.Sprintf("history (%d runs)", ln.MedianRuns)
			continue
		}
		n.med, n.medDF, n.medSrc = pooledOr(med, i, assumedMed, math.Inf(1), RunToRunAssumed)
		if measured && n.medSrc != RunToRunPooled {
			n.med, n.medDF = runFloorVar(floor[MetricP50], med[i], assumedMed/2)
			n.medSrc = RunToRunNoiseFloor
		}
	}
	return out
}

// runFloorVar is the run-to-run variance a baseline from two runs adds to
// its scenario's test when the suite is too small to pool: how far the two
// runs disagreed (floorPct, NoiseFloor's, of P99, P50 or max QPS) beyond
// what their processes' sampling explains, pooled with the candidate's
// assumed run shift.
//
// Why a variance and not a raised threshold: the candidate is one run, and
// its processes share that run's shift, which no spread between them
// shows. A threshold raised to the floor lets that shift through whenever
// it exceeds the two baseline runs' disagreement: with a run-level shift
// of SD σ the candidate's distance from the baseline runs' mean has SD
// 1.22σ and their disagreement 1.41σ, so it does in about 46% of A/A
// gates, and the test over processes, which sees no run shift, then calls
// it (bench/RESULTS-rules.md#comparerunfloorvar).
//
// The estimate: if the runs' shift has variance σ², ln(r1/r2) has variance
// 2σ² plus the sampling of the two runs' means, which is 2R/(R+1) = 4/3
// times the sampling variance v of the baseline-vs-candidate difference
// (R = 2 runs of equal processes; more runs make the floor, their largest
// disagreement, larger: cautious), or better, 2 s²/k from the spread s² of
// the candidate run's own k processes (runSampling): the baseline's
// processes span both runs, so their spread holds the very shift being
// measured. The candidate's shift less the mean of
// the baseline's two has variance 1.5σ² = 0.75 · 2σ², in the unit the
// tests add (the variance of the difference of two runs, scaled), on 1
// degree of freedom: a floor its sampling explains (floorChi2) adds only
// cand (below); one beyond cand's own size is pooled with cand (priorRuns)
// and Satterthwaite folds the pooled degrees of freedom into the test's.
//
// cand is the candidate's own run shift, ln(1 + gate.run_to_run)²: the
// least this adds. The candidate is one run, and two baseline runs that
// agreed say nothing about how far that run moved: with nothing for it in
// the test, a candidate run that shifted while the baseline's runs agreed
// is called a change (TestSimulatedRunShift holds the A/A rate with it;
// bench/RESULTS-rules.md#comparerunfloorvar has the cases without). Only
// more runs (a history) or pooling over the suite's scenarios measure the
// candidate's shift.
func runFloorVar(floorPct float64, m moved, cand float64) (v, df float64) {
	if !(floorPct > 0) {
		return cand, math.Inf(1)
	}
	f := math.Log1p(floorPct / 100)
	samp := 0.0
	switch {
	case m.within > 0:
		samp = m.within
	case m.ok:
		samp = m.v * 4 / 3
	}
	if samp > 0 && f*f <= floorChi2*samp {
		return cand, math.Inf(1)
	}
	if v := 0.75 * (f*f - samp); v > cand {
		return (priorRuns*cand + v) / (priorRuns + 1), priorRuns + 1
	}
	return cand, math.Inf(1)
}

// priorRuns is the weight, in degrees of freedom, of the assumed run
// shift (cand) beside a noise floor's own estimate (one degree of
// freedom) when the floor is beyond it: the two are pooled (a moderated
// variance, as empirical-Bayes t-tests pool a gene's variance with the
// prior's), so one disagreement between two runs raises the noise in the
// test without leaving it on one degree of freedom, whose t quantile
// (12.7) decides nothing. The assumed value is already trusted whole
// when the runs agree; a disagreement can only raise it
// (bench/RESULTS-rules.md#comparerunfloorvar-priorruns).
const priorRuns = 4

// floorChi2 is the 95th percentile of χ² on 1 degree of freedom: two
// runs' disagreement counts as a run shift only when it is beyond what
// their sampling explains at that level. Below it the runs agree, and the
// test keeps its degrees of freedom: counting every excess, however
// small, on one degree of freedom costs power on a runner with no run
// shift (TestSimulatedRunToRun; bench/RESULTS-rules.md#comparerunfloorvar).
const floorChi2 = 3.841459

// pooledOr is the leave-one-out pooled variance of the difference of two
// runs for scenario i, or the fallback when too few others moved.
//
// The pooled estimate rests on the others' count less one degrees of
// freedom; the tests fold that uncertainty in (Satterthwaite), so a
// small suite's estimate widens the interval rather than pretending to
// know the noise.
func pooledOr(ms []moved, i int, fallback, fallbackDF float64, fallbackSrc string) (v, df float64, src string) {
	var d, vs []float64
	for j, m := range ms {
		if j != i && m.ok {
			d, vs = append(d, m.d), append(vs, m.v)
		}
	}
	if len(d) < MinPooledScenarios {
		return fallback, fallbackDF, fallbackSrc
	}
	floor := 2 * math.Log1p(pooledFloor) * math.Log1p(pooledFloor)
	tau2 := tauSquared(d, vs)
	return math.Max(tau2+commonShift(d, vs, tau2), floor), float64(len(d) - 1), RunToRunPooled
}

// shiftZ2 is the square of the two-sided 95% normal quantile: the others'
// mean move counts as the run's common shift only beyond what their
// sampling noise explains at that level, and only by its excess.
const shiftZ2 = 1.959964 * 1.959964

// commonShift is the part of the run-to-run variance that moves every
// scenario alike: the square of the others' mean move (weighted as in
// DerSimonian–Laird, by 1/(v + τ²)) beyond shiftZ2 times its sampling
// variance, 0 within it (a mean move their noise explains is no shift, so
// a suite whose runs did not shift keeps τ² alone: 1 time in 20 does it
// add anything). A whole run that was slower or faster than the
// baseline's (the host's memory or caches shared with other guests, which
// the runner-speed probe need not see) is spread between scenarios not at
// all, so τ² alone misses it (bench/RESULTS-rules.md#comparecommonshift).
// With one run a side, that shift cannot be told from a
// change that slowed every scenario, so it widens the test rather than
// being subtracted.
func commonShift(d, v []float64, tau2 float64) float64 {
	var sw, swd float64
	for i := range d {
		w := 1 / (v[i] + tau2)
		sw += w
		swd += w * d[i]
	}
	if sw <= 0 {
		return 0
	}
	m := swd / sw
	return math.Max(0, m*m-shiftZ2/sw)
}

// tauSquared is the DerSimonian–Laird estimate of the variance between
// the true values behind d (each measured with variance v):
// τ² = max(0, (Q − (k−1)) / (Σw − Σw²/Σw)), w = 1/v, Q = Σw(d − d̄)².
func tauSquared(d, v []float64) float64 {
	var sw, sw2, swd float64
	for i := range d {
		w := 1 / v[i]
		sw += w
		sw2 += w * w
		swd += w * d[i]
	}
	mean := swd / sw
	var q float64
	for i := range d {
		q += (d[i] - mean) * (d[i] - mean) / v[i]
	}
	den := sw - sw2/sw
	if den <= 0 {
		return 0
	}
	return math.Max(0, (q-float64(len(d)-1))/den)
}

// movedOf reads a scenario's change and its sampling variance in metric
// name from a comparison made with no run-to-run term: the interval's
// half-width on the log scale over the test's critical value. A sparse
// quantile (Metric.RequestsNeeded set) tells nothing of the run.
func movedOf(sc ScenarioComparison, name, method string, conf float64) moved {
	if sc.Invalid || sc.Verdict == NoBaseline {
		return moved{}
	}
	for _, m := range sc.Metrics {
		if m.Metric != name || m.Method != method || m.CIOpenHigh {
			continue
		}
		// A quantile resting on too few requests a unit (the P99 of 5
		// requests is the slowest one) moves by its sampling alone far
		// more than its interval, made from a handful of maxima, says:
		// read as run-to-run noise it would widen every other test.
		if m.RequestsNeeded > 0 {
			return moved{}
		}
		lo, hi := m.CIPct[0], m.CIPct[1]
		if !(lo > -100) || math.IsNaN(hi) || math.IsInf(hi, 0) || m.DeltaPct <= -100 {
			return moved{}
		}
		se := (math.Log1p(hi/100) - math.Log1p(lo/100)) / 2 / quantileFor(m, 1-conf)
		if !(se > 0) {
			return moved{}
		}
		return moved{d: math.Log1p(m.DeltaPct / 100), v: se * se, ok: true}
	}
	return moved{}
}

// hasFloor reports whether a baseline carries a measured noise floor.
func hasFloor(b *result.Result) bool { return len(b.NoiseFloorPct) > 0 }
