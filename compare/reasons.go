package compare

import (
	"fmt"
	"strings"
)

// scenarioReason states a guard's downgrade d of sc in words, from d's
// numbers, for ScenarioComparison.Reason.
func scenarioReason(sc *ScenarioComparison, d Downgrade) string {
	switch d.Code {
	case ReasonInvalidRun:
		return strings.Join(d.Why, "; ") + ": never used to pass or fail"
	case ReasonHostBusy:
		if len(d.Busy) == 0 {
			return "inconclusive (host busy): measured while other work used the host; rerun on a quiet machine"
		}
		what := "the regression"
		if d.From == Improved {
			what = "the improvement"
		}
		var busy []string
		for _, b := range d.Busy {
			busy = append(busy, fmt.Sprintf("%d of %d %s %s (%s)", b.Busy, b.Total, b.Side, b.Of, b.Why))
		}
		return "inconclusive (host busy): " + what + " rests on trials measured while other work used the host: " +
			strings.Join(busy, "; ") + "; rerun on a quiet runner"
	case ReasonRunnerShift:
		word, what := "faster", "improvement"
		if d.ShiftPct > 0 {
			word, what = "slower", "regression"
		}
		return fmt.Sprintf("inconclusive (runner %s): the runner itself ran a fixed compute probe %+.0f%% per step during the candidate's run against the baseline's "+
			"(measured while no load ran); a machine that much %s, not the change, may explain the %s of %s",
			word, d.ShiftPct, word, what, strings.Join(d.Metrics, ", "))
	case ReasonGateWide:
		var what []string
		for _, i := range d.at {
			m := sc.Metrics[i]
			what = append(what, fmt.Sprintf("%s %+.1f%% (p %.3g alone, %.3g across the gate's %d tests)", m.Metric, m.DeltaPct, *m.PHolm, *m.PGate, d.Tests))
		}
		return "inconclusive across the gate: " + strings.Join(what, "; ") +
			": significant for this scenario alone, not after Holm's correction over every gated test of the comparison; rerun, or add trials (processes, knee estimates)"
	}
	return sc.Reason
}
