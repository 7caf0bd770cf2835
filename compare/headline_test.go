package compare

import (
	"math/rand/v2"
	"testing"
)

// HeadlineVerdict and topVerdict apply one rule: over every list of up to
// four scenarios drawn from the verdicts a scenario can have (valid or
// invalid), with matching environments, they agree.
func TestHeadlineVerdictIsTopVerdictsRule(t *testing.T) {
	kinds := []ScenarioComparison{
		{Verdict: NoBaseline},
		{Verdict: Unchanged},
		{Verdict: Improved},
		{Verdict: Regressed, Metrics: []Metric{{Metric: MetricP99, Verdict: Regressed, Gated: true}}},
		{Verdict: Inconclusive},
		{Verdict: Inconclusive, Invalid: true},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		n := rng.IntN(5)
		var scs []ScenarioComparison
		compared := 0
		for k := 0; k < n; k++ {
			sc := kinds[rng.IntN(len(kinds))]
			sc.Scenario = string(rune('a' + k))
			if sc.Verdict != NoBaseline {
				compared++
			}
			scs = append(scs, sc)
		}
		c := &Comparison{Scenarios: scs}
		want, _ := topVerdict(c, &EnvCheck{Match: true}, compared, DefaultSettings(), false)
		if got := HeadlineVerdict(scs); got != want {
			t.Fatalf("HeadlineVerdict(%+v) = %q, want topVerdict's %q", scs, got, want)
		}
	}
}
