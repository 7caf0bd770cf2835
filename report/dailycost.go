package report

import "fmt"

// dailyCost is a plan's scheduled cost per day (capacity.traffic), base →
// PR with the change, and the PR's flat fleet for comparison.
func dailyCost(p Plan) string {
	c := p.Candidate
	out := "— → " + costOf(c.CostPerDay)
	if d := p.Diff; d != nil && d.CostPerDayDelta != nil {
		out = fmt.Sprintf("%s → %s (%s)", costOf(d.BaselineCostPerDay), costOf(d.CandidateCostPerDay),
			boldIf(signedMoney(*d.CostPerDayDelta), *d.CostPerDayDelta > 0))
	}
	if c.FlatCostPerDay != nil {
		out += " (flat " + costOf(c.FlatCostPerDay) + ")"
	}
	return out
}
