package compare

// processQuantiles compares a latency quantile over target processes
// (MethodProcesses), when the trials came from three or more processes in
// all: each process's value is the quantile of its merged trials, the
// point values are the geometric means of the processes' values, and the
// test and the interval are Student's t-test pooled over both sides on
// their logarithms (processTestDF), with the run-to-run variance
// (trialQuantile.runVar on runDF degrees of freedom) added, so that the
// between-process variance is in the test. Each process is a unit of the
// test, so a process of too few requests for the quantile marks it sparse.
// It does not apply with fewer than three processes or a value that is
// not positive.
type processQuantiles struct{}

func (processQuantiles) method() string { return MethodProcesses }

func (processQuantiles) estimate(in latencyInput) (Estimate, bool) {
	q := in.trials
	if q == nil || len(q.procB)+len(q.procC) < 3 {
		return Estimate{}, false
	}
	xb, xc := q.over(q.procB), q.over(q.procC)
	t, ok := processTestDF(xb, xc, in.conf, q.runVar, q.runDF)
	if !ok {
		return Estimate{}, false
	}
	eq, _ := processTestDF(xb, xc, in.eqConf, q.runVar, q.runDF)
	e := Estimate{Base: t.base, Cand: t.cand, DeltaPct: pctChange(t.base, t.cand),
		CIPct: t.ci, EquivCIPct: &eq.ci, P: t.p,
		NBase: len(q.procB), NCand: len(q.procC), NBaseTrials: q.nb, NCandTrials: q.nc,
		RunToRunVar: q.runVar}
	q.sparse(&e, append(append([][]int{}, q.procB...), q.procC...))
	return e, true
}
