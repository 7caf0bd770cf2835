package compare

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/result"
)

// scenarioOut is a scenario's comparison plus what layer attribution needs:
// the bootstrap replicates of the P99 ratio and the max QPS ratio interval.
type scenarioOut struct {
	sc       ScenarioComparison
	p99Point float64   // candidate/baseline P99; 0 when not compared
	p99Reps  []float64 // bootstrap replicates of that ratio
	qps      *[3]float64
	// untestable marks metrics (by index) whose per-trial values are all
	// tied: their test cannot reject, so by Tarone's refinement of the
	// multiplicity correction they are left out of Holm's family.
	untestable map[int]bool
}

// quantSpec names a quantile metric of a histogram family.
type quantSpec struct {
	name  string
	pct   float64
	gated bool
	thr   float64 // the threshold, as a fraction
	// median puts it in the medians' family of run-to-run noise
	// (runNoise.med), else the tail's (runNoise.lat).
	median bool
}

// medianGated reports whether s gates the medians (P50Regression > 0),
// and their threshold: P50Regression, or P99Regression when they are
// only reported.
func medianGated(s Settings) (bool, float64) {
	if s.P50Regression > 0 {
		return true, s.P50Regression
	}
	return false, s.P99Regression
}

// compareScenario compares one scenario's candidate with its baseline.
func compareScenario(b, c *result.Result, s Settings, noise runNoise) scenarioOut {
	out := scenarioOut{sc: ScenarioComparison{Scenario: c.Scenario, Layer: c.Layer, Metrics: []Metric{}}}
	sc := &out.sc
	if sc.Layer == "" {
		sc.Layer = b.Layer
	}
	for _, w := range b.Warnings {
		sc.Notes = append(sc.Notes, Note{Code: NoteResultWarning, Side: "baseline", Text: w})
	}
	for _, w := range c.Warnings {
		sc.Notes = append(sc.Notes, Note{Code: NoteResultWarning, Side: "candidate", Text: w})
	}
	var reasons []Note
	for _, x := range []struct {
		who string
		r   *result.Result
	}{{"baseline", b}, {"candidate", c}} {
		if x.r.Interrupted {
			reasons = append(reasons, Note{Code: NoteRunInterrupted, Side: x.who})
		} else if !x.r.Valid {
			reasons = append(reasons, Note{Code: NoteRunInvalid, Side: x.who})
		}
		if x.r.Simulated {
			sc.Simulated = true
			sc.Notes = append(sc.Notes, Note{Code: NoteSimulated, Side: x.who})
		}
	}
	if n, ok := loadMismatch(b, c); ok {
		sc.Notes = append(sc.Notes, n)
	}
	bs, cs := prepare(b, "baseline", ""), prepare(c, "candidate", "")
	sc.Notes = append(sc.Notes, bs.notes...)
	sc.Notes = append(sc.Notes, cs.notes...)
	sc.BaseTrials, sc.CandTrials = bs.trials, cs.trials
	for _, x := range []*side{bs, cs} {
		if x.broken != "" {
			reasons = append(reasons, Note{Code: NoteUnreadableTrial, Text: x.broken})
		}
	}
	if bs.broken == "" && cs.broken == "" {
		if (bs.trials == 0 || cs.trials == 0) && !kneeless(bs, cs) {
			reasons = append(reasons, Note{Code: NoteNoValidTrials, NBase: bs.trials, NCand: cs.trials})
		} else {
			out.metrics(bs, cs, s, noise)
		}
	}
	ev := &scenarioEvidence{invalid: reasons, ignoreHost: s.IgnoreHostLoad}
	ev.busy, sc.BusyTrials = busyOf(b, c)
	rm := runnerSpeed(b, c, s)
	ev.shift, ev.moved, sc.RunnerShiftPct = rm.pct, rm.moved, rm.shown
	guardScenario(sc, ev)
	sparseWarnings(sc)
	return out
}

// kneeless reports whether a side has no trials because its knee search
// met the SLO at no rate (a sweep's trials are its knee's probe): that
// side is compared by max QPS alone, as a bound (MethodCensoredKnee).
func kneeless(bs, cs *side) bool {
	for _, x := range []*side{bs, cs} {
		c := x.res.Capacity
		if x.res.Load.Mode == "sweep" && c != nil && !c.Found && x.trials == 0 {
			return true
		}
	}
	return false
}

// metrics fills the scenario's metrics, applies Holm's correction to the
// gated ones and decides each verdict.
func (out *scenarioOut) metrics(bs, cs *side, s Settings, noise runNoise) {
	// The run-to-run variance a one-run baseline cannot show: pooled from
	// the suite's other scenarios, or assumed (poolRunNoise); the tail's
	// is the scenario's headline figure, the medians' is recorded beside.
	rv := noise.lat
	sc := &out.sc
	sc.RunToRunSource = noise.latSrc
	if rv > 0 {
		sc.RunToRunPct = 100 * math.Sqrt(rv/2)
	}
	if noise.medSrc != RunToRunNone {
		sc.RunToRunMedianSource = noise.medSrc
		if noise.med > 0 {
			sc.RunToRunMedianPct = 100 * math.Sqrt(noise.med/2)
		}
	}
	rs := newResampler(s.Seed, sc.Scenario)
	// After a sweep the trials are the knee's probe, run at each side's own
	// knee rate: their latencies are shown but only max QPS is gated.
	sweep := bs.res.Load.Mode == "sweep" || cs.res.Load.Mode == "sweep"
	med, medThr := medianGated(s)
	lat := quantileMetrics(bs.lat, cs.lat, bs.latProc, cs.latProc, []quantSpec{
		{MetricP50, 50, med && !sweep, medThr, true}, {MetricP99, 99, !sweep, s.P99Regression, false}, {MetricP999, 99.9, false, s.P99Regression, false},
	}, s, noise, rs)
	if sweep {
		sc.Notes = append(sc.Notes, Note{Code: NoteSweepLatency})
	}
	noKnee := kneeless(bs, cs)
	switch {
	case len(lat) > 0:
		if !sweep { // a knee probe's P99 is not the layer's latency change
			out.p99Point = 1 + lat[1].m.DeltaPct/100
			out.p99Reps = lat[1].reps
		}
	case noKnee:
		sc.Notes = append(sc.Notes, Note{Code: NoteKneelessLatency})
	default:
		sc.Notes = append(sc.Notes, Note{Code: NoteNoHistograms})
	}
	for _, q := range lat {
		sc.Metrics = append(sc.Metrics, q.m)
	}
	if k := maxQPS(bs.res.Capacity, cs.res.Capacity, s, noise.qps, noise.qpsDF); k.m != nil {
		sc.Metrics = append(sc.Metrics, *k.m)
		out.qps = k.ratio
		sc.Notes = append(sc.Notes, k.note)
	} else if k.note.Code != "" {
		sc.Notes = append(sc.Notes, k.note)
	}
	if !noKnee { // a kneeless side has no trials: no error rate to compare
		sc.Metrics = append(sc.Metrics, errorRate(bs, cs, s, rs))
		if errorRatesTied(bs, cs) {
			out.untestable = map[int]bool{len(sc.Metrics) - 1: true}
		}
	}
	if bs.tokens != nil && cs.tokens != nil {
		for _, fam := range []struct {
			b, c      []*hdrhistogram.Histogram
			name, p50 string
		}{{bs.ttft, cs.ttft, MetricTTFTP99, MetricTTFTP50}, {bs.tpot, cs.tpot, MetricTPOTP99, MetricTPOTP50}} {
			if fam.b == nil || fam.c == nil {
				sc.Notes = append(sc.Notes, Note{Code: NoteHistogramsMissing, Metric: fam.name})
				continue
			}
			// After a sweep, TTFT and TPOT were measured at each side's own
			// knee, as P99 was: shown, not gated.
			specs := []quantSpec{{fam.name, 99, !sweep, s.P99Regression, false}}
			if med {
				specs = []quantSpec{{fam.p50, 50, !sweep, medThr, true}, specs[0]}
			}
			for _, q := range quantileMetrics(fam.b, fam.c, bs.strProc, cs.strProc, specs, s, noise, rs) {
				sc.Metrics = append(sc.Metrics, q.m)
			}
		}
		for _, fam := range []struct {
			b, c []float64
			name string
		}{{bs.tokens, cs.tokens, MetricTokensPerS}, {bs.goodput, cs.goodput, MetricGoodput}} {
			if m, ok := meanMetric(fam.name, fam.b, fam.c, s.MaxQPSRegression, s, rs); ok {
				sc.Metrics = append(sc.Metrics, m)
			} else {
				sc.Notes = append(sc.Notes, Note{Code: NoteZeroBaseline, Metric: fam.name})
			}
		}
	}
	// The server's own compute time per request, where its counters gave
	// it for every trial: gated beside the medians, in the same family.
	if m, ok := serverCompute(bs, cs, s, !sweep, noise.med, noise.medDF, rs); ok {
		sc.Metrics = append(sc.Metrics, m)
	}
	// A noise floor is in the tests over processes and knee estimates as
	// a variance: pooled from the suite or learned from a history, or, from
	// the floor itself, P99's, P50's and max QPS's (runFloorVar). It raises
	// the threshold of every other metric it has: one tested otherwise (one
	// knee a side), and TTFT and TPOT against a floor, whose own
	// disagreement the P99's and P50's variances need not hold.
	floor := map[string]float64{}
	inTest := map[string]bool{}
	for _, m := range sc.Metrics {
		over := m.Method == MethodProcesses || m.Method == MethodKneeEstimates || m.Method == MethodCensoredKnee
		var fromFloor bool
		switch m.Metric {
		case MetricP99, MetricMaxQPS, MetricP50:
			fromFloor = false // its own floor is in its test
		case MetricTTFTP50, MetricTPOTP50, MetricServerCompute:
			fromFloor = noise.medSrc == RunToRunNoiseFloor
		default:
			fromFloor = noise.latSrc == RunToRunNoiseFloor
		}
		inTest[m.Metric] = over && !fromFloor
	}
	for k, v := range bs.res.NoiseFloorPct {
		if !inTest[k] {
			floor[k] = v
		}
	}
	sc.Notes = append(sc.Notes, applyNoiseFloor(sc.Metrics, floor)...)
	for _, f := range []struct {
		metric, src string
		v, df       float64
	}{{MetricP99, noise.latSrc, noise.lat, noise.latDF}, {MetricP50, noise.medSrc, noise.med, noise.medDF}, {MetricMaxQPS, noise.qpsSrc, noise.qps, noise.qpsDF}} {
		// The floor's own estimate (finite degrees of freedom), not the
		// candidate's run shift that stands in when the runs agreed.
		if f.src == RunToRunNoiseFloor && !math.IsInf(f.df, 1) && inTest[f.metric] {
			sc.Notes = append(sc.Notes, Note{Code: NoteBaselineRunsDiffer, Metric: f.metric, Pct: bs.res.NoiseFloorPct[f.metric], DF: f.df})
		}
	}
	usesRunNoise := false
	for _, m := range sc.Metrics {
		usesRunNoise = usesRunNoise || (m.Gated && (m.Method == MethodProcesses || m.Method == MethodKneeEstimates || m.Method == MethodCensoredKnee))
	}
	if !usesRunNoise {
		sc.RunToRunSource, sc.RunToRunPct = "", 0
		sc.RunToRunMedianSource, sc.RunToRunMedianPct = "", 0
	}
	out.decide(s, len(bs.lat), len(cs.lat))
}

// decide applies Holm's correction across the gated metrics with a
// p-value (except untestable ones, whose p-value of 1 is kept), sets every
// metric's verdict, says how many trials would decide a gated change
// beyond its threshold that was left inconclusive, and warns when the
// trials are too few for any regression to be significant.
func (out *scenarioOut) decide(s Settings, nb, nc int) {
	sc := &out.sc
	out.settleMedians(s, nb, nc)
	var fam []int
	var ps []float64
	for i, m := range sc.Metrics {
		if m.Gated && m.PValue != nil && !out.untestable[i] {
			fam = append(fam, i)
			ps = append(ps, *m.PValue)
		}
	}
	for j, p := range holm(ps) {
		sc.Metrics[fam[j]].PHolm = ptr(p)
	}
	alpha := s.alpha()
	level := alpha
	if len(fam) > 0 {
		level = alpha / float64(len(fam))
	}
	for i := range sc.Metrics {
		m := &sc.Metrics[i]
		p := math.NaN()
		switch {
		case m.PHolm != nil:
			p = *m.PHolm
		case m.PValue != nil:
			p = *m.PValue
		}
		m.EquivalencePct = s.TailMargin(m.Metric)
		decideMetric(m, p, alpha)
		if m.Gated && m.Verdict == Inconclusive && beyond(*m) && m.TrialsNeeded == 0 && m.RequestsNeeded == 0 && m.Method != MethodCensoredKnee {
			m.TrialsNeeded = needed(*m, level)
		}
		if m.TrialsNeeded > sc.TrialsNeeded {
			sc.TrialsNeeded = m.TrialsNeeded
		}
	}
	trialTests := 0
	for _, i := range fam {
		if sc.Metrics[i].Method == MethodTrials {
			trialTests++
		}
	}
	if trialTests > 0 {
		if mp := minPValue(nb, nc); mp >= level {
			sc.Notes = append(sc.Notes, Note{Code: NoteTrialPower, Need: trialsNeeded(level), Level: level, Alpha: alpha, Tests: len(fam), NBase: nb, NCand: nc, P: mp})
		}
	}
}

// sparseWarnings says, for each gated quantile whose test units held too
// few requests, whether its verdict stands (the median moved the same
// way) or was left inconclusive (the sparse-quantile guard).
func sparseWarnings(sc *ScenarioComparison) {
	for _, m := range sc.Metrics {
		switch {
		case !m.Gated || m.RequestsNeeded == 0:
		case m.Verdict == Inconclusive:
			sc.Notes = append(sc.Notes, Note{Code: NoteSparseInconclusive, Metric: m.Metric, Count: m.MinRequests, Need: m.RequestsNeeded})
		default:
			sc.Notes = append(sc.Notes, Note{Code: NoteSparseStands, Metric: m.Metric, Count: m.MinRequests, Need: m.RequestsNeeded, Verdict: m.Verdict})
		}
	}
}

// isMedian reports whether a metric is a gated median (P50Regression).
func isMedian(name string) bool {
	return name == MetricP50 || name == MetricTTFTP50 || name == MetricTPOTP50
}

// isLocation reports whether a metric is a location metric gated beside
// P99 (a median, or the server's compute time): those settleMedians
// reports without gating when they would silence the scenario.
func isLocation(name string) bool {
	return isMedian(name) || name == MetricServerCompute
}

// settleMedians reports the medians (and the server's compute time:
// isLocation) without gating them when, tested
// over nb vs nc trials, they would leave the scenario's family unable to
// reject at all though it could without them: a scenario of 4 trials a
// side can call a P99 regression alone (smallest p 0.029 < 0.05) but not
// once P50 shares α (0.025). Such a scenario is gated as it was before
// the medians were.
func (out *scenarioOut) settleMedians(s Settings, nb, nc int) {
	sc := &out.sc
	all, meds := 0, 0
	for i, m := range sc.Metrics {
		if !m.Gated || m.PValue == nil || out.untestable[i] || m.Method != MethodTrials {
			continue
		}
		all++
		if isLocation(m.Metric) {
			meds++
		}
	}
	if meds == 0 || all == meds {
		return
	}
	mp := minPValue(nb, nc)
	if mp < s.alpha()/float64(all) || mp >= s.alpha()/float64(all-meds) {
		return
	}
	var names []string
	for i := range sc.Metrics {
		if m := &sc.Metrics[i]; m.Gated && isLocation(m.Metric) && m.Method == MethodTrials {
			m.Gated = false
			names = append(names, m.Metric)
		}
	}
	sc.Notes = append(sc.Notes, Note{Code: NoteMediansNotGated, Names: names, NBase: nb, NCand: nc, P: mp, Tests: all, Count: all - meds})
}

// beyond reports whether m's point change is beyond its threshold in the
// bad direction.
func beyond(m Metric) bool {
	if m.BetterIs == HigherIsBetter {
		return m.DeltaPct < -m.ThresholdPct
	}
	return m.DeltaPct > m.ThresholdPct
}

// Beyond reports whether m's point change is beyond its threshold in the
// bad direction (report says so of an undecided metric).
func (m Metric) Beyond() bool { return beyond(m) }

// needed estimates the trials (or knee estimates) per side that would
// decide m: enough for the test to reach level at all (for the
// rank test), and enough for the interval, narrowing as 1/√n, to clear
// the threshold.
func needed(m Metric, level float64) int {
	n := max(m.NBase, m.NCand)
	need := trialsFor(n, (m.CIPct[1]-m.CIPct[0])/2, math.Abs(m.DeltaPct)-m.ThresholdPct)
	if m.Method == MethodTrials && minPValue(m.NBase, m.NCand) >= level {
		need = max(need, trialsNeeded(level))
	}
	if m.Method == MethodKneeEstimates || m.Method == MethodBracket {
		need = max(need, MinKneeEstimates)
	}
	if m.Method == MethodProcesses {
		// Processes a side; with one trial per process (restarts = trials)
		// that is the trials too.
		need = max(need, MinProcesses)
	}
	return need
}

// MinProcesses is the fewest target processes a side that the gate's
// default asks for a latency test over processes to have the power to
// call a regression of a few times the between-process noise.
const MinProcesses = 5

// applyNoiseFloor raises each metric's threshold to the baseline's
// measured run-to-run noise floor for it, when that is larger: a change
// the same code shows between two runs is not a regression. This holds
// for metrics tested over processes too: the processes of one run share
// its machine state, so their spread does not hold the candidate run's own
// shift, which the floor measures. The threshold it raised stays in
// ConfiguredThresholdPct: `unchanged` is still judged against it.
func applyNoiseFloor(ms []Metric, floor map[string]float64) (notes []Note) {
	for i := range ms {
		m := &ms[i]
		if f, ok := floor[m.Metric]; ok && !m.Absolute && f > m.ThresholdPct {
			notes = append(notes, Note{Code: NoteNoiseFloorRaised, Metric: m.Metric, Pct: m.ThresholdPct, FloorPct: f})
			m.ConfiguredThresholdPct = m.ThresholdPct
			m.ThresholdPct, m.NoiseFloorPct = f, f
		}
	}
	return notes
}

// maxQPSIs reports whether sc's max-QPS metric has verdict v.
func maxQPSIs(sc *ScenarioComparison, v Verdict) bool {
	for _, m := range sc.Metrics {
		if m.Metric == MetricMaxQPS && m.Verdict == v {
			return true
		}
	}
	return false
}

// busySide counts one side's measurements taken while the host was busy
// with other work (result.HostLoad.Busy): its trials and its knee probes,
// each with the first reason the load monitor gave.
type busySide struct {
	trials, of       int
	why              string
	probes, probesOf int
	probeWhy         string
}

// busyOf gathers the host-busy evidence of the baseline b and the
// candidate c, and how many trials of both were busy.
func busyOf(b, c *result.Result) (sides [2]busySide, busyTrials int) {
	for k, r := range []*result.Result{b, c} {
		x := &sides[k]
		x.of = len(r.Trials)
		for _, t := range r.Trials {
			if t.Host != nil && t.Host.Busy {
				x.trials++
				if x.why == "" {
					x.why = t.Host.Why
				}
			}
		}
		busyTrials += x.trials
		if r.Capacity != nil {
			x.probesOf = len(r.Capacity.Points)
			for _, p := range r.Capacity.Points {
				if p.Host != nil && p.Host.Busy {
					x.probes++
					if x.probeWhy == "" {
						x.probeWhy = p.Host.Why
					}
				}
			}
		}
	}
	return sides, busyTrials
}

// errorRatesTied reports whether every valid trial on both sides has the
// same error rate (typically zero).
func errorRatesTied(bs, cs *side) bool {
	first, seen := 0.0, false
	for _, x := range []*side{bs, cs} {
		for i, e := range x.errs {
			r := 0.0
			if x.reqs[i] > 0 {
				r = float64(e) / float64(x.reqs[i])
			}
			if seen && r != first {
				return false
			}
			first, seen = r, true
		}
	}
	return true
}

// loadMismatch says when the two sides did not apply the same load, so
// their latencies are not like for like: another mode, rate or
// concurrency, or (after a sweep, whose trials are the knee's probe)
// another offered rate.
func loadMismatch(b, c *result.Result) (Note, bool) {
	lb, lc := b.Load, c.Load
	switch {
	case lb.Mode != lc.Mode:
		return Note{Code: NoteLoadModes, Names: []string{lb.Mode, lc.Mode}}, true
	case lb.Concurrency != lc.Concurrency:
		return Note{Code: NoteConcurrency, NBase: lb.Concurrency, NCand: lc.Concurrency}, true
	case differ(lb.Rate, lc.Rate):
		return Note{Code: NoteOfferedRates, Base: lb.Rate, Cand: lc.Rate}, true
	}
	ob, oc := offered(b.Trials), offered(c.Trials)
	if differ(ob, oc) {
		return Note{Code: NoteTrialRates, Base: ob, Cand: oc}, true
	}
	return Note{}, false
}

// offered is the trials' mean offered rate, 0 when unknown.
func offered(ts []result.Trial) float64 {
	var sum float64
	for _, t := range ts {
		sum += t.OfferedRPS
	}
	if len(ts) == 0 {
		return 0
	}
	return sum / float64(len(ts))
}

// differ reports two known positive rates more than 5% apart.
func differ(a, b float64) bool {
	return a > 0 && b > 0 && math.Abs(a-b) > 0.05*math.Max(a, b)
}

func joinReasons(rs []string) string {
	out := rs[0]
	for _, r := range rs[1:] {
		out += "; " + r
	}
	return out
}

func ptr(f float64) *float64 { return &f }
