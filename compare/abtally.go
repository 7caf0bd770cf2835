package compare

// Tally sets the run's decided count and runner time per decided verdict
// from its scenarios' comparisons scs: the runner time every scenario
// took (decided or not: an undecided one is spent all the same) over the
// scenarios decided, beside the same for the fixed design. It is the
// figure an A/B design is judged by: a design that stops early but
// decides less may cost more per verdict.
func (r *ABRun) Tally(scs []ScenarioComparison) {
	r.Decided = 0
	for _, sc := range scs {
		if Decided(sc) {
			r.Decided++
		}
	}
	var run, fixed float64
	for _, s := range r.Scenarios {
		run += s.RunnerS
		fixed += s.FixedRunnerS
	}
	r.RunnerSPerDecided, r.FixedRunnerSPerDecided = 0, 0
	if r.Decided > 0 {
		r.RunnerSPerDecided = run / float64(r.Decided)
		r.FixedRunnerSPerDecided = fixed / float64(r.Decided)
	}
}
