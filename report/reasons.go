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
	}
	return string(l)
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
	a := Advice(c)
	switch {
	case a == "":
		return c.Reason
	case c.Reason == "":
		return a
	}
	return c.Reason + "; " + a
}

// medianThreshold says the medians' threshold beside the latency one
// ("" when they are not gated).
func medianThreshold(s compare.Settings) string {
	if s.P50Regression <= 0 {
		return ""
	}
	return fmt.Sprintf(" (P50 %.3g%%)", 100*s.P50Regression)
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

// medianGate is the medians' gate in words ("" when they are not gated).
func medianGate(s compare.Settings) string {
	if s.P50Regression <= 0 {
		return ""
	}
	return ", P50 (and TTFT and TPOT P50) worse by more than " + pctOf(s.P50Regression)
}
