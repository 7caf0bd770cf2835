package report

import (
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// RegressionLines are the regressed scenarios of c, one line each with its
// regressed metrics (base → PR, change and interval, written as the
// comparison's own renderers write them): the Action's error annotations.
func RegressionLines(c *compare.Comparison) []string {
	var out []string
	for _, s := range c.Scenarios {
		if s.Verdict != compare.Regressed {
			continue
		}
		var b strings.Builder
		b.WriteString(s.Scenario + " (" + s.Layer + " layer) regressed")
		for _, m := range s.Metrics {
			if m.Verdict == compare.Regressed {
				bv, cv := metricValues(&m)
				b.WriteString("; " + m.Metric + " " + bv + " → " + cv +
					" (" + delta(&m) + ", interval " + ciText(m.CIPct, m.Absolute, m.CIOpenHigh) + ")")
			}
		}
		out = append(out, b.String())
	}
	return out
}
