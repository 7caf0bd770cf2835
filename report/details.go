package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// mdDetails is the collapsed section: environment, method, warnings (the
// details section's groups), "none" for an empty group.
func mdDetails(s section) string {
	var b strings.Builder
	b.WriteString("<details><summary>" + capitalize(s.title) + "</summary>\n")
	for _, g := range s.groups {
		b.WriteString("\n**" + capitalize(g.title) + "**\n\n")
		if len(g.lines) == 0 {
			b.WriteString("none\n")
		}
		for _, l := range g.lines {
			b.WriteString("- " + esc(l) + "\n")
		}
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// verdictLines are the verdict in full for the details: the layers that
// decided it and the comparison's whole reason (every undecided interval,
// what the gate could see). The headline keeps one line of it.
func (r *Report) verdictLines() []string {
	var out []string
	if layers, v := r.responsible(); len(layers) > 0 {
		what := "regressions from "
		if v == compare.Improved {
			what = "improvements from "
		}
		out = append(out, what+strings.Join(layers, ", "))
	}
	if c := Reason(r.Comparison); c != "" {
		out = append(out, c)
	}
	return out
}

// environment describes where both sides ran, in lines.
func (r *Report) environment() []string {
	var out []string
	if e := r.Comparison.Environment; e != nil {
		out = append(out, "baseline: "+e.Baseline, "PR: "+e.Candidate)
		switch {
		case e.Match:
			out = append(out, "the environments match")
		case e.Allowed:
			out = append(out, "the environments differ (allowed): "+strings.Join(e.Differences, "; "))
		default:
			out = append(out, "the environments differ: "+strings.Join(e.Differences, "; "))
		}
		return out
	}
	for _, side := range []struct {
		name string
		rs   []*result.Result
	}{{"baseline", r.Baseline}, {"PR", r.Candidate}} {
		if len(side.rs) > 0 && side.rs[0] != nil {
			out = append(out, side.name+": "+describeEnv(side.rs[0].Environment))
		}
	}
	if len(out) == 0 {
		out = append(out, "not recorded")
	}
	return out
}

// describeEnv is an environment in one line.
func describeEnv(e result.Environment) string {
	parts := []string{}
	if e.CPU != "" {
		parts = append(parts, fmt.Sprintf("%s × %d cores", e.CPU, e.Cores))
	}
	for _, g := range e.GPUs {
		s := g.Name
		if g.Driver != "" {
			s += " (driver " + g.Driver + ")"
		}
		parts = append(parts, s)
	}
	if len(e.GPUs) == 0 {
		parts = append(parts, "no GPU")
	}
	if e.OS != "" {
		parts = append(parts, e.OS)
	}
	if e.Perfgate != "" {
		parts = append(parts, "perfgate "+e.Perfgate)
	}
	return strings.Join(parts, ", ")
}

// method states how the verdicts were reached, in lines.
func (r *Report) method() []string {
	s := r.Comparison.Settings
	var out []string
	trials := map[string][]string{}
	for _, sc := range r.Comparison.Scenarios {
		if sc.Verdict == compare.NoBaseline {
			continue
		}
		k := fmt.Sprintf("%d baseline and %d PR trials", sc.BaseTrials, sc.CandTrials)
		trials[k] = append(trials[k], sc.Scenario)
	}
	keys := sortedKeys(trials)
	switch len(keys) {
	case 0:
	case 1:
		out = append(out, keys[0]+" per scenario")
	default:
		for _, k := range keys {
			out = append(out, k+": "+strings.Join(trials[k], ", "))
		}
	}
	out = append(out,
		fmt.Sprintf("gate: P99 worse by more than %s%s%s, max QPS under the SLO lower by more than %s, error rate higher by more than %s percentage points, each with %s confidence",
			pctOf(s.P99Regression), latencyGateDetail(s), serverComputeGate(r.Comparison), pctOf(s.MaxQPSRegression), num(100*s.ErrorRateIncrease), pctOf(s.Confidence)),
		fmt.Sprintf("latency: over target processes when the trials came from several (Student's t on the log of each process's quantile, variance pooled over both sides: the run-to-run noise is in the test; a regression needs the change beyond the threshold and the test significant), else two-sided Mann-Whitney U over per-trial values with a %d-resample bootstrap interval of the change (seed %d); Holm-corrected across a scenario's gated metrics, and, for tests over processes or knee estimates, a regression or improvement also significant after Holm's correction across all such tests of the comparison (p_gate: the gate is one decision)", s.Resamples, s.Seed),
		"max QPS under the SLO: Welch's t-test over each side's independent knee estimates (the search's and one per confirmation round in a fresh target process); a regression needs the change beyond the threshold and the test significant; with one knee a side (no estimates) the brackets show the change but never call it",
		fmt.Sprintf("unchanged: the change's %s interval (two one-sided tests at %s each) lies inside the threshold%s, so the %s interval shown may reach a little past it; an interval wider than the threshold is inconclusive, not a verdict; a regression resting on trials measured while the host was busy is inconclusive (host busy), and one the runner's own slowdown could explain (a fixed compute probe run between the target processes, slower by 10%% or more and significantly) is inconclusive (runner slower); a baseline's noise floor, when its runs disagreed beyond their sampling, is in the test as run-to-run noise, pooled with the candidate's assumed run shift (weighted as four runs against the floor's one)", pctOf(2*s.Confidence-1), pctOf(1-s.Confidence), tailMarginMethod(s), pctOf(s.Confidence)))
	if r.Comparison.AB != nil {
		out[len(out)-3] = abMethod(s, r.Comparison.AB.Design)
		if usesMethod(r.Comparison, compare.MethodPairedKnees) {
			out[len(out)-2] = abKneeMethod
		}
	} else if s.RunToRun > 0 {
		var pooled, assumed []string
		for _, sc := range r.Comparison.Scenarios {
			switch sc.RunToRunSource {
			case compare.RunToRunPooled:
				pooled = append(pooled, fmt.Sprintf("%s %.3g%%", sc.Scenario, sc.RunToRunPct))
			case compare.RunToRunAssumed:
				assumed = append(assumed, sc.Scenario)
			}
		}
		if len(pooled) > 0 {
			out = append(out, "run to run, measured: against a baseline from one run, how far whole runs move was estimated from how far the comparison's other scenarios moved beyond their own noise (DerSimonian–Laird, plus the others' common shift, each scenario left out of its own estimate), per run: "+strings.Join(pooled, ", "))
		}
		if len(assumed) > 0 {
			out = append(out, fmt.Sprintf("run to run, assumed: against a baseline measured in one run (no noise floor), with too few other scenarios to measure it, whole runs are assumed to move %s between runs in the tail (gate.run_to_run) and %s in the medians (gate.run_to_run_median) for %s; a baseline from two runs measures it instead", pctOf(s.RunToRun), pctOf(s.MedianRunToRun()), strings.Join(assumed, ", ")))
		}
	}
	for _, sc := range r.Comparison.Scenarios {
		for _, m := range sc.Metrics {
			if m.NoiseFloorPct > 0 {
				out = append(out, fmt.Sprintf("%s: %s threshold raised to the baseline's noise floor %.3g%%", sc.Scenario, m.Metric, m.NoiseFloorPct))
			}
		}
		if sc.RunToRunSource == compare.RunToRunNoiseFloor && sc.RunToRunPct > 0 {
			out = append(out, fmt.Sprintf("%s: the baseline's runs: %.3g%% a run in the P99's test (their disagreement, where beyond their sampling, pooled with the assumed shift of the candidate's run)", sc.Scenario, sc.RunToRunPct))
		}
		if sc.RunToRunMedianSource == compare.RunToRunNoiseFloor && sc.RunToRunMedianPct > 0 {
			out = append(out, fmt.Sprintf("%s: the baseline's runs: %.3g%% a run in the medians' tests (likewise, from the P50's disagreement)", sc.Scenario, sc.RunToRunMedianPct))
		}
	}
	for _, p := range r.Plans {
		if p.Candidate != nil && p.Candidate.Formula != "" {
			out = append(out, fmt.Sprintf("%s: %s", p.Scenario, p.Candidate.Formula))
		}
	}
	return out
}

// pctOf formats a fraction as a percentage: 0.05 is "5%".
func pctOf(f float64) string {
	return num(100*f) + "%"
}

// tailMarginMethod says how a tail quantile with a wider margin of
// unchanged is judged ("" when there is none).
func tailMarginMethod(s compare.Settings) string {
	m := s.TailMargin(compare.MetricP99)
	if m <= 0 {
		return ""
	}
	return fmt.Sprintf(" (for P99, TTFT and TPOT P99: inside ±%.3g%% with the point change inside the threshold)", m)
}
