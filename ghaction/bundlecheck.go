package ghaction

import (
	"fmt"

	"github.com/perfgate/perfgate/compare"
)

// checkBundleVerdict refuses a comparison whose headline verdict
// disagrees with its own scenarios, or a scenario whose verdict disagrees
// with its gated metrics. A fork's job writes the bundle, so a forged
// headline ("pass" over scenarios that regressed) would otherwise be
// posted as "✅ pass" and set the verdict output to pass. The rules are
// compare's own: a scenario is the worst of its gated metrics (a
// regressed gated metric makes it regressed unless its results were
// invalid), and the comparison fails when a valid scenario regressed,
// passes only when one was compared, and fails only when one regressed.
//
// This stops a bundle that contradicts itself. A fork can still forge
// results and a comparison that agree with each other (its code measured
// itself): the comment says what the fork's run reported, never more.
func checkBundleVerdict(c *compare.Comparison) error {
	var regressed, compared string
	for _, sc := range c.Scenarios {
		if sc.Verdict == compare.NoBaseline {
			continue
		}
		if compared == "" {
			compared = sc.Scenario
		}
		if sc.Invalid {
			continue
		}
		for _, m := range sc.Metrics {
			if m.Gated && m.Verdict == compare.Regressed && sc.Verdict != compare.Regressed {
				return fmt.Errorf("scenario %q is %q, but its gated metric %s regressed", sc.Scenario, sc.Verdict, m.Metric)
			}
		}
		if sc.Verdict == compare.Regressed && regressed == "" {
			regressed = sc.Scenario
		}
	}
	switch v := c.Verdict; {
	case regressed != "" && v != compare.Fail && v != compare.Incomparable:
		return fmt.Errorf("the verdict is %q, but scenario %q regressed", v, regressed)
	case v == compare.Fail && regressed == "":
		return fmt.Errorf("the verdict is %q, but no valid scenario regressed", v)
	case v == compare.Pass && compared == "":
		return fmt.Errorf("the verdict is %q, but no scenario was compared", v)
	case v == compare.NoBaseline && compared != "":
		return fmt.Errorf("the verdict is %q, but scenario %q was compared", v, compared)
	}
	return nil
}
