package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// LeverAdvice says how to pull a lever that compare named (compare.Lever):
// the words and the command. compare states the facts; the commands live
// here, so that renaming a command or flag touches the report only.
func LeverAdvice(l compare.Lever) string {
	switch l {
	case compare.LeverQuietRunner:
		return "rerun on a quiet runner"
	case compare.LeverSameRunnerAB:
		return "compare base and head on the same runner (perfgate gate --ab REF)"
	case compare.LeverHistory:
		return "learn the run-to-run noise from a history of runs (perfgate gate --history DIR, docs/history.md)"
	case compare.LeverTwoRunBaseline:
		return "store the baseline from two runs (perfgate baseline update --from run1/ --from run2/ --to baselines/)"
	case compare.LeverAgreeingBaseline:
		return "store the baseline from runs that agree"
	case compare.LeverServerCompute:
		return "declare the target's metrics: so that the gate reads the server's compute time, which a code change moves about one to one (docs/writing-a-target.md#metrics-perfgate-reads)"
	}
	return string(l)
}

// ScenarioReason says why a scenario is inconclusive or has no baseline:
// its Reason where one is set (a decoded document's, in words this
// version may not compose), else scenarioReason's words from its data.
func ScenarioReason(sc *compare.ScenarioComparison) string {
	if sc.Reason != "" {
		return sc.Reason
	}
	return scenarioReason(sc)
}

// scenarioReason composes a scenario's reason from its data alone: why it
// had nothing to decide from (Undecidable), else the guard whose
// downgrade is its reason (Guard), else that it had no baseline.
func scenarioReason(sc *compare.ScenarioComparison) string {
	switch {
	case sc.Undecidable != nil:
		return NoteText(*sc.Undecidable)
	case sc.Guard != "":
		return guardReason(sc)
	case sc.Verdict == compare.NoBaseline:
		return "no baseline for this scenario: nothing to compare with"
	}
	return ""
}

// guardReason states the last downgrade of sc's Guard in words, from its
// numbers and the metrics it took the verdict from.
func guardReason(sc *compare.ScenarioComparison) string {
	var d *compare.Downgrade
	for i := range sc.Downgrades {
		if sc.Downgrades[i].Code == sc.Guard {
			d = &sc.Downgrades[i]
		}
	}
	if d == nil {
		return string(sc.Guard)
	}
	switch d.Code {
	case compare.ReasonInvalidRun:
		return strings.Join(joinWarnings(d.Causes, d.Why), "; ") + ": never used to pass or fail"
	case compare.ReasonHostBusy:
		if len(d.Busy) == 0 {
			return "inconclusive (host busy): measured while other work used the host; rerun on a quiet machine"
		}
		what := "the regression"
		if d.From == compare.Improved {
			what = "the improvement"
		}
		var busy []string
		for _, b := range d.Busy {
			busy = append(busy, fmt.Sprintf("%d of %d %s %s (%s)", b.Busy, b.Total, b.Side, b.Of, b.Why))
		}
		return "inconclusive (host busy): " + what + " rests on trials measured while other work used the host: " +
			strings.Join(busy, "; ") + "; rerun on a quiet runner"
	case compare.ReasonRunnerShift:
		word, what := "faster", "improvement"
		if d.ShiftPct > 0 {
			word, what = "slower", "regression"
		}
		return fmt.Sprintf("inconclusive (runner %s): the runner itself ran a fixed compute probe %+.0f%% per step during the candidate's run against the baseline's "+
			"(measured while no load ran); a machine that much %s, not the change, may explain the %s of %s",
			word, d.ShiftPct, word, what, strings.Join(d.Metrics, ", "))
	case compare.ReasonGateWide:
		var what []string
		for _, name := range d.Metrics {
			for _, m := range sc.Metrics {
				if m.Metric == name && m.PHolm != nil && m.PGate != nil {
					what = append(what, fmt.Sprintf("%s %+.1f%% (p %.3g alone, %.3g across the gate's %d tests)", m.Metric, m.DeltaPct, *m.PHolm, *m.PGate, d.Tests))
				}
			}
		}
		return "inconclusive across the gate: " + strings.Join(what, "; ") +
			": significant for this scenario alone, not after Holm's correction over every gated test of the comparison; rerun, or add trials (processes, knee estimates)"
	}
	return string(d.Code)
}

// Advice is the comparison's levers as one sentence ("" when none): what
// would decide its undecided scenarios or narrow what it detects.
func Advice(c *compare.Comparison) string {
	if c == nil || len(c.Levers) == 0 {
		return ""
	}
	var ws []string
	for _, l := range c.Levers {
		ws = append(ws, LeverAdvice(l))
	}
	return "to decide more: " + strings.Join(ws, ", or ")
}

// reasonWithAdvice is the comparison's reason followed by its advice.
func reasonWithAdvice(c *compare.Comparison) string {
	a, why := Advice(c), Reason(c)
	switch {
	case a == "":
		return why
	case why == "":
		return a
	}
	return why + "; " + a
}

// latencyThresholdDetail says, after the latency threshold, the tail
// quantiles' wider margin of unchanged and the medians' threshold (each
// left out when there is none).
func latencyThresholdDetail(s compare.Settings) string {
	var parts []string
	if m := s.TailMargin(compare.MetricP99); m > 0 {
		parts = append(parts, fmt.Sprintf("P99 unchanged within ±%.3g%%", m))
	}
	if s.P50Regression > 0 {
		parts = append(parts, fmt.Sprintf("P50 %.3g%%", 100*s.P50Regression))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// serverComputeGated reports whether c gated the server's own compute
// time (server_compute_ms) in any scenario: only then do the settings
// name its threshold, so a comparison of servers without such metrics
// reads as before.
func serverComputeGated(c *compare.Comparison) bool {
	for _, sc := range c.Scenarios {
		for _, m := range sc.Metrics {
			if m.Metric == compare.MetricServerCompute && m.Gated {
				return true
			}
		}
	}
	return false
}

// serverComputeThreshold says server_compute_ms's threshold ("" when no
// scenario gated it).
func serverComputeThreshold(c *compare.Comparison) string {
	if !serverComputeGated(c) {
		return ""
	}
	return fmt.Sprintf(", server compute %.3g%%", 100*c.Settings.ServerComputeRegression)
}

// serverComputeGate is server_compute_ms's gate in words ("" when no
// scenario gated it).
func serverComputeGate(c *compare.Comparison) string {
	if !serverComputeGated(c) {
		return ""
	}
	return ", the server's own compute time per request (server_compute_ms, from its metrics) worse by more than " + pctOf(c.Settings.ServerComputeRegression)
}

// latencyGateDetail is, after P99's gate in words, its wider margin of
// unchanged and the medians' gate (each left out when there is none).
func latencyGateDetail(s compare.Settings) string {
	t := ""
	if m := s.TailMargin(compare.MetricP99); m > 0 {
		t = fmt.Sprintf(" (called unchanged within ±%.3g%%)", m)
	}
	if s.P50Regression <= 0 {
		return t
	}
	return t + ", P50 (and TTFT and TPOT P50) worse by more than " + pctOf(s.P50Regression)
}
