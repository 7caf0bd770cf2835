package compare

// trialQuantiles compares a latency quantile over trials (MethodTrials):
// the point values are the quantiles of each side's merged trials, the
// test is the two-sided Mann-Whitney U test of each trial's own quantile,
// and the interval is the percentile bootstrap of 100·(cand/base − 1)
// over the quantiles of merged resampled trials (trialQuantile.ratios).
// Each trial is a unit of the test, so a trial of too few requests for the
// quantile marks it sparse. It applies to any two sets of trials: it is
// the last of latencyMethods, used when the trials came from one target
// process a side.
type trialQuantiles struct{}

func (trialQuantiles) method() string { return MethodTrials }

func (trialQuantiles) estimate(in latencyInput) (Estimate, bool) {
	q := in.trials
	if q == nil {
		return Estimate{}, false
	}
	byTrial := make([][]int, q.nb+q.nc)
	for i := range byTrial {
		byTrial[i] = []int{i}
	}
	perTrial := q.over(byTrial)
	base, cand := q.merged(0, q.nb), q.merged(q.nb, q.nb+q.nc)
	deltas := make([]float64, 0, len(q.ratios))
	for _, r := range q.ratios {
		deltas = append(deltas, 100*(r-1))
	}
	eq := percentileInterval(deltas, in.eqConf)
	e := Estimate{Base: base, Cand: cand, DeltaPct: pctChange(base, cand),
		CIPct: percentileInterval(deltas, in.conf), EquivCIPct: &eq,
		P: mannWhitney(perTrial[:q.nb], perTrial[q.nb:]), NBase: q.nb, NCand: q.nc}
	q.sparse(&e, byTrial)
	return e, true
}
