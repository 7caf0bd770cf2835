package report

import (
	"fmt"

	"github.com/perfgate/perfgate/result"
)

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

// cacheNote is the server cache's hit rate beside the latency, for a
// scenario whose server exports cache counters: ". Cache hit rate 30.0%
// (triton, requests; 30% of inputs repeated) at P99 4.20 ms".
func cacheNote(r *result.Result) string {
	c := r.Cache
	if c == nil {
		return ""
	}
	s := fmt.Sprintf(". Cache hit rate %.1f%% (%s, %s", 100*c.HitRate, c.Source, c.Unit)
	if c.Repeat > 0 {
		s += fmt.Sprintf("; %.0f%% of inputs repeated", 100*c.Repeat)
	}
	return s + fmt.Sprintf(") at P99 %.2f ms", r.Summary.Latency.P99)
}
