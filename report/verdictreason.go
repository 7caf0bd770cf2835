package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// Reason says why the comparison's verdict is what it is: its Reason
// where one is set (a decoded document's, in words this version may not
// compose), else comparisonReason's words from its data. It is composed
// when the report renders, from c.Verdict as it is then: a verdict the
// gate changed after Compare (compare-with: both) reads right.
func Reason(c *compare.Comparison) string {
	if c.Reason != "" {
		return c.Reason
	}
	return comparisonReason(c)
}

// comparisonReason composes the comparison's reason from its verdict, its
// scenarios (compare.StandingOf), the environment's differences and what
// it could detect. An A/B comparison (c.AB) names the probes, not the
// runs, where the host was busy.
func comparisonReason(c *compare.Comparison) string {
	paired := c.AB != nil
	switch c.Verdict {
	case compare.Incomparable:
		var diffs []string
		if e := c.Environment; e != nil {
			diffs = e.Differences
		}
		return "the baseline was measured on a different environment (" +
			strings.Join(diffs, "; ") + "); rerun the baseline on this hardware or allow the mismatch"
	case compare.NoBaseline:
		if paired && len(c.Scenarios) == 0 {
			return "no scenario was measured on both sides"
		}
		return "no scenario has a baseline: nothing was compared"
	}
	ev := compare.StandingOf(c.Scenarios)
	var regressed, invalid, inconclusive, undecided []string
	for _, i := range ev.Invalid {
		invalid = append(invalid, c.Scenarios[i].Scenario)
	}
	for _, i := range ev.Regressed {
		sc := c.Scenarios[i]
		var ms []string
		for _, m := range sc.Metrics {
			if m.Gated && m.Verdict == compare.Regressed {
				ms = append(ms, fmt.Sprintf("%s %+.1f%%", m.Metric, m.DeltaPct))
			}
		}
		regressed = append(regressed, sc.Scenario+" ("+strings.Join(ms, ", ")+")")
	}
	for _, i := range ev.Inconclusive {
		sc := c.Scenarios[i]
		if u := undecidedText(sc, paired); u != "" {
			undecided = append(undecided, u)
		} else {
			inconclusive = append(inconclusive, intervalsText(sc))
		}
	}
	withDetects := func(why string) string {
		if d := Detects(c); d != "" {
			why += "; " + d
		}
		return why
	}
	switch {
	case c.Verdict == compare.Fail && len(regressed) == 0:
		// The verdict was set beside this comparison (the gate's
		// compare-with: both, whose warning says which failed).
		return "failed, though no scenario here regressed: see the warnings"
	case c.Verdict == compare.Fail:
		return "regressed: " + strings.Join(regressed, "; ")
	case c.Verdict == compare.Undecided && len(ev.Inconclusive) == 0 && len(invalid) > 0:
		return "every compared result is invalid (" + strings.Join(invalid, ", ") + "), so nothing could be decided: fix the runs (see the warnings) and gate again"
	case c.Verdict == compare.Undecided:
		var parts []string
		if len(undecided) > 0 {
			parts = append(parts, "could not decide "+strings.Join(undecided, "; "))
		}
		if len(inconclusive) > 0 {
			parts = append(parts, "not shown unchanged: "+strings.Join(inconclusive, "; "))
		}
		return withDetects(strings.Join(parts, "; "))
	}
	return withDetects("every gated metric unchanged or improved within its threshold" + tailMarginText(c.Settings))
}

// tailMarginText names the tail quantiles' wider margin of unchanged
// (compare.Settings.TailMargin), "" when there is none.
func tailMarginText(s compare.Settings) string {
	if m := s.TailMargin(compare.MetricP99); m > 0 {
		return fmt.Sprintf(" (P99 within ±%.3g%%)", m)
	}
	return ""
}

// intervalsText quotes a scenario's gated metrics left inconclusive whose
// interval leaves the threshold though the point change does not: what
// kept the gate from saying unchanged.
func intervalsText(sc compare.ScenarioComparison) string {
	var ms []string
	for _, m := range sc.Metrics {
		if !m.Gated || m.Verdict != compare.Inconclusive {
			continue
		}
		unit := "%"
		if m.Absolute {
			unit = " points"
		}
		margin := max(m.ThresholdPct, m.EquivalencePct) // a tail quantile's margin of unchanged, when wider
		t := fmt.Sprintf("%s %+.1f%s [%+.1f%s, %+.1f%s] leaves ±%.3g%s", m.Metric, m.DeltaPct, unit, m.CIPct[0], unit, m.CIPct[1], unit, margin, unit)
		if m.CIOpenHigh {
			t = fmt.Sprintf("%s %+.1f%s [%+.1f%s, ∞) leaves ±%.3g%s", m.Metric, m.DeltaPct, unit, m.CIPct[0], unit, margin, unit)
		}
		if c := m.ConfiguredThresholdPct; c > 0 && !m.Beyond() {
			// Not a regression (inside the baseline's noise floor), and
			// not unchanged either: the configured threshold is the one
			// the interval left.
			t = fmt.Sprintf("%s %+.1f%s [%+.1f%s, %+.1f%s] leaves ±%.3g%s (inside the baseline's noise floor of %.3g%s: no regression is called there)",
				m.Metric, m.DeltaPct, unit, m.CIPct[0], unit, m.CIPct[1], unit, c, unit, m.ThresholdPct, unit)
			ms = append(ms, t)
			continue
		}
		switch {
		case runNoiseBound(m):
			t += fmt.Sprintf(" (run-to-run noise %.0f%% a run)", 100*math.Sqrt(m.RunToRunVar/2))
		case m.MDEUnitsNeeded > 0:
			t += fmt.Sprintf(": about %d %s a side would decide it", m.MDEUnitsNeeded, m.MDEUnit)
		}
		ms = append(ms, t)
	}
	if len(ms) == 0 {
		if why := undecidableReason(sc); why != "" {
			return sc.Scenario + " (" + why + ")"
		}
		return sc.Scenario
	}
	return sc.Scenario + " (" + strings.Join(ms, "; ") + ")"
}

// undecidableReason is why a scenario had nothing to decide from ("" when
// it had evidence): a decoded document's reason where no guard's is.
func undecidableReason(sc compare.ScenarioComparison) string {
	switch {
	case sc.Undecidable != nil:
		return NoteText(*sc.Undecidable)
	case sc.Guard == "" && sc.Verdict != compare.NoBaseline:
		return sc.Reason
	}
	return ""
}

// undecidedText says what a scenario could not decide: its gated metrics
// left inconclusive with a point change beyond their threshold, and how
// many trials per side would likely decide them; or that a regression
// rested on a busy host. Empty when nothing gated is beyond its threshold.
// paired (an A/B run, which measured both sides under the same load)
// names the probes that decide it rather than the run.
func undecidedText(sc compare.ScenarioComparison, paired bool) string {
	if sc.HostBusy && paired {
		return sc.Scenario + " (host busy: other work used the cores while the probes that decide it ran)"
	}
	if sc.HostBusy {
		return sc.Scenario + " (host busy: other work used the cores while it was measured)"
	}
	if sc.RunnerShifted && sc.RunnerShiftPct != nil {
		return fmt.Sprintf("%s (runner %+.0f%% on its speed probe)", sc.Scenario, *sc.RunnerShiftPct)
	}
	var ms []string
	for _, m := range sc.Metrics {
		if !m.Gated || m.Verdict != compare.Inconclusive || !m.Beyond() {
			continue
		}
		unit := "%"
		if m.Absolute {
			unit = " points"
		}
		what := "trials"
		switch m.Method {
		case compare.MethodProcesses:
			what = "target processes"
		case compare.MethodKneeEstimates, compare.MethodBracket, compare.MethodCensoredKnee:
			what = "knee estimates"
		case compare.MethodPairedKnees:
			what = "rounds of knee estimates"
		}
		t := fmt.Sprintf("%s %+.1f%s beyond the %.3g%s threshold, not decided with %d vs %d %s",
			m.Metric, m.DeltaPct, unit, m.ThresholdPct, unit, m.NBase, m.NCand, what)
		if m.RequestsNeeded > 0 {
			ms = append(ms, t+fmt.Sprintf(": a %s needs at least %d requests in each of those %s and one had %d (lengthen the window or raise the rate)",
				strings.TrimSuffix(m.Metric, "_ms"), m.RequestsNeeded, what, m.MinRequests))
			continue
		}
		switch {
		case m.TrialsNeeded >= 100:
			t += fmt.Sprintf(": 100 or more %s per side needed, or a quieter runner", what)
		case m.TrialsNeeded > 0:
			t += fmt.Sprintf(": about %d %s per side needed", m.TrialsNeeded, what)
		}
		ms = append(ms, t)
	}
	if len(ms) == 0 {
		return ""
	}
	if sc.BusyTrials > 0 {
		ms = append(ms, fmt.Sprintf("the host was busy with other work during %d of %d trials", sc.BusyTrials, sc.BaseTrials+sc.CandTrials))
	}
	return sc.Scenario + " (" + strings.Join(ms, "; ") + ")"
}

// runNoiseBound reports whether more units cannot bring m's MDE to its
// threshold and its test holds run-to-run noise (a decoded document may
// carry the words alone).
func runNoiseBound(m compare.Metric) bool {
	return (m.MDEBound != "" || m.MDELimit != "") && m.RunToRunVar > 0
}

// MDELimit says why more units cannot bring m's MDE to its threshold
// (m.MDEBound): its MDELimit where set (a decoded document's), else the
// words composed from its numbers; "" when more units can.
func MDELimit(m compare.Metric) string {
	if m.MDELimit != "" {
		return m.MDELimit
	}
	return boundText(m.MDEBound, m.RunToRunVar, m.ThresholdPct, m.MDEUnit)
}

// boundText says an MDE bound in words: the run-to-run variance rrVar
// (log scale, of the difference of two runs) that keeps the MDE above
// thr whatever the units, or more than compare.MaxMDEUnits units a side.
func boundText(b compare.MDEBound, rrVar, thr float64, unit string) string {
	switch b {
	case compare.MDEBoundRunToRun:
		return fmt.Sprintf("the run-to-run noise in its test (%.3g%% a run) keeps it above %.3g%% whatever the %s",
			100*math.Sqrt(rrVar/2), thr, unit)
	case compare.MDEBoundUnits:
		return fmt.Sprintf("more than %d %s a side would be needed to bring it to %.3g%%", compare.MaxMDEUnits, unit, thr)
	case "":
		return ""
	}
	return string(b)
}

// SensitivityLever says what would bring the worst scenario's MDE to the
// threshold: its Lever where set (a decoded document's), else so many
// units a side, or why units cannot.
func SensitivityLever(s compare.Sensitivity) string {
	if s.Lever != "" {
		return s.Lever
	}
	return sensitivityLever(s)
}

// sensitivityLever composes s's lever from its numbers alone.
func sensitivityLever(s compare.Sensitivity) string {
	switch {
	case s.Bound != "":
		return boundText(s.Bound, s.RunToRunVar, s.ThresholdPct, s.Unit)
	case s.UnitsNeeded > 0:
		return fmt.Sprintf("about %d %s a side would make it %s", s.UnitsNeeded, s.Unit, detectPct(s.ThresholdPct, s.Absolute))
	}
	return ""
}

// Detects is what the comparison could detect, in one line: its Detects
// where set (a decoded document's), else detectsText's.
func Detects(c *compare.Comparison) string {
	if c.Detects != "" {
		return c.Detects
	}
	return detectsText(c.Sensitivity)
}

// detectsText says ss in one line: per gated metric (the error rate aside:
// its threshold is a tenth of a point) the change the gate would catch
// with 80% power, then what would narrow it, then the run-to-run noise
// that keeps it there whatever the units. "" when ss says nothing.
func detectsText(ss []compare.Sensitivity) string {
	var parts, levers []string
	var limits []float64 // run-to-run noise (% a run) that keeps a metric above its threshold
	for _, st := range ss {
		if st.Metric == compare.MetricErrorRate {
			continue
		}
		t := fmt.Sprintf("%s changes ≥ %s", st.Metric, detectPct(math.Max(st.MedianMDEPct, st.ThresholdPct), st.Absolute))
		if st.Scenarios > 1 {
			t += fmt.Sprintf(" (median of %d scenarios", st.Scenarios)
			if st.MaxMDEPct > st.MedianMDEPct*1.05 && st.MaxMDEPct > st.ThresholdPct {
				t += fmt.Sprintf("; %s in %s", detectPct(st.MaxMDEPct, st.Absolute), st.WorstScenario)
			}
			t += ")"
		}
		parts = append(parts, t)
		switch lever := SensitivityLever(st); {
		case st.MaxMDEPct <= st.ThresholdPct:
		case st.Bound != "" && st.RunToRunVar > 0:
			limits = append(limits, 100*math.Sqrt(st.RunToRunVar/2))
		case lever != "":
			levers = append(levers, st.Metric+": "+lever)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	line := "this gate would catch (80% power) " + strings.Join(parts, "; ")
	if len(levers) > 0 {
		line += "; to narrow it, " + strings.Join(levers, "; ")
	}
	if len(limits) > 0 {
		lo, hi := slices.Min(limits), slices.Max(limits)
		noise := fmt.Sprintf("%.0f%%", lo)
		if hi-lo >= 1 {
			noise = fmt.Sprintf("%.0f–%.0f%%", lo, hi)
		}
		line += fmt.Sprintf("; run-to-run noise of %s a run keeps it there whatever the units", noise)
	}
	return line
}

// detectPct writes a percent (points when absolute) for the sensitivity
// line.
func detectPct(v float64, absolute bool) string {
	if absolute {
		return fmt.Sprintf("%.2g points", v)
	}
	if v >= 10 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}
