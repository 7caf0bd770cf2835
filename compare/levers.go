package compare

// Lever names what would decide a comparison that could not decide, or
// narrow what it can detect: a fact about the evidence, not advice. The
// report turns each into words and a command (report.LeverAdvice), so
// that renaming a command or flag touches the report, not the statistics.
type Lever string

// The levers, each with the evidence that calls for it.
const (
	// LeverQuietRunner: the host's other work or the runner's own speed
	// shift may explain the change, or the noise is beyond what more
	// units can shrink.
	LeverQuietRunner Lever = "quiet-runner"
	// LeverSameRunnerAB: measure base and head interleaved on one runner,
	// so that the host's moves hit both sides (never set on a comparison
	// that already is one).
	LeverSameRunnerAB Lever = "same-runner-ab"
	// LeverHistory: learn the run-to-run noise from a history of runs
	// (a baseline from two runs already has a noise floor).
	LeverHistory Lever = "history"
	// LeverTwoRunBaseline: store the baseline from two runs, which
	// measures its run-to-run noise.
	LeverTwoRunBaseline Lever = "two-run-baseline"
	// LeverAgreeingBaseline: the baseline's runs disagreed; store it from
	// runs that agree.
	LeverAgreeingBaseline Lever = "agreeing-baseline"
	// LeverServerCompute: the median did not decide and the server's own
	// compute time a request was not read (the target has no metrics, or
	// none with compute counters). A code change moves the compute time
	// about one to one, and the median only by its share of the latency
	// (bench/RESULTS-rules.md#compareleverservercompute).
	LeverServerCompute Lever = "server-compute"
)

// serverComputeLever reports whether sc calls for LeverServerCompute: an
// undecided scenario whose gated median is undecided and that has no
// server_compute_ms to decide what the median's noise hides.
func serverComputeLever(sc *ScenarioComparison) bool {
	if sc.Verdict != Inconclusive || sc.Invalid {
		return false
	}
	median := false
	for _, m := range sc.Metrics {
		switch m.Metric {
		case MetricServerCompute:
			return false
		case MetricP50:
			median = m.Gated && m.Verdict == Inconclusive
		}
	}
	return median
}

// addLevers appends ls to to, each once.
func addLevers(to []Lever, ls ...Lever) []Lever {
	for _, l := range ls {
		seen := false
		for _, x := range to {
			seen = seen || x == l
		}
		if !seen {
			to = append(to, l)
		}
	}
	return to
}

// runNoiseLevers are what remove a run-to-run variance from source src
// (a ScenarioComparison.RunToRunSource): a second baseline run where the
// baseline has one; where it already has two (a noise floor), the
// candidate's own run shift is what is left, which only many runs (a
// history's learned noise) or interleaving measure.
func runNoiseLevers(src string) []Lever {
	if src == RunToRunNoiseFloor {
		return []Lever{LeverHistory, LeverSameRunnerAB}
	}
	return []Lever{LeverTwoRunBaseline, LeverSameRunnerAB}
}

// comparisonLevers gathers the levers of every undecided scenario and of
// its gated metrics, in order, each once; paired (a same-runner A/B
// already) leaves LeverSameRunnerAB out.
func comparisonLevers(c *Comparison, paired bool) []Lever {
	var out []Lever
	for _, sc := range c.Scenarios {
		if sc.Verdict == NoBaseline || sc.Invalid {
			continue
		}
		out = addLevers(out, sc.Levers...)
		for _, m := range sc.Metrics {
			if m.Gated {
				out = addLevers(out, m.Levers...)
			}
		}
	}
	if paired {
		kept := out[:0]
		for _, l := range out {
			if l != LeverSameRunnerAB {
				kept = append(kept, l)
			}
		}
		out = kept
	}
	return out
}
