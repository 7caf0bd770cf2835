package ghaction

import (
	"fmt"

	"github.com/perfgate/perfgate/compare"
)

// checkBundleVerdict refuses a comparison whose headline verdict is not
// the one its own scenarios make by the gate's rule
// (compare.HeadlineVerdict), or whose scenarios contradict themselves. A
// fork's job writes the bundle, so a forged headline ("pass" over
// scenarios that regressed, or that were all inconclusive) would
// otherwise be posted as "✅ pass" and set the verdict output to pass.
//
// A scenario contradicts itself when its verdict is not one compare
// writes, when it is marked invalid but is not inconclusive (compare
// makes every invalid scenario inconclusive, so "regressed and invalid"
// is a forgery meant to hide a regression), or when a gated metric
// regressed but the scenario did not. The headline may be stricter than
// the rule only where the gate makes it so: fail over a valid regression
// (as the rule), and incomparable once something was compared (a
// hardware mismatch the bundle's environment records).
//
// This stops a bundle that contradicts itself. A fork can still forge
// results and a comparison that agree with each other (its code measured
// itself): the comment says what the fork's run reported, never more.
func checkBundleVerdict(c *compare.Comparison) error {
	var regressed, compared string
	for _, sc := range c.Scenarios {
		switch sc.Verdict {
		case compare.NoBaseline, compare.Unchanged, compare.Improved, compare.Regressed, compare.Inconclusive:
		default:
			return fmt.Errorf("scenario %q has the verdict %q, which the gate never writes", sc.Scenario, sc.Verdict)
		}
		if sc.Verdict == compare.NoBaseline {
			continue
		}
		if compared == "" {
			compared = sc.Scenario
		}
		if sc.Invalid {
			if sc.Verdict != compare.Inconclusive {
				return fmt.Errorf("scenario %q is marked invalid but %q: the gate makes every invalid result inconclusive", sc.Scenario, sc.Verdict)
			}
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
	want := compare.HeadlineVerdict(c.Scenarios)
	switch v := c.Verdict; {
	case regressed != "" && v != compare.Fail && v != compare.Incomparable:
		return fmt.Errorf("the verdict is %q, but scenario %q regressed", v, regressed)
	case v == compare.Fail && regressed == "":
		return fmt.Errorf("the verdict is %q, but no valid scenario regressed", v)
	case v == compare.Pass && compared == "":
		return fmt.Errorf("the verdict is %q, but no scenario was compared", v)
	case v == compare.NoBaseline && compared != "":
		return fmt.Errorf("the verdict is %q, but scenario %q was compared", v, compared)
	case v == compare.Incomparable && compared != "":
	case v != want:
		return fmt.Errorf("the verdict is %q, but by the gate's rule its scenarios make it %q", v, want)
	}
	return nil
}
