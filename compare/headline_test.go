package compare

import "testing"

// HeadlineVerdict is the gate's rule for the comparison's verdict (it
// calls topLevel, which Compare calls): the rows are the cases a forged
// bundle tries, each with the verdict the gate would have written.
func TestHeadlineVerdict(t *testing.T) {
	var (
		none         = ScenarioComparison{Verdict: NoBaseline}
		unchanged    = ScenarioComparison{Verdict: Unchanged}
		improved     = ScenarioComparison{Verdict: Improved}
		regressed    = ScenarioComparison{Verdict: Regressed, Metrics: []Metric{{Metric: MetricP99, Verdict: Regressed, Gated: true}}}
		inconclusive = ScenarioComparison{Verdict: Inconclusive}
		invalid      = ScenarioComparison{Verdict: Inconclusive, Invalid: true}
		hidden       = ScenarioComparison{Verdict: Regressed, Invalid: true}
	)
	tests := []struct {
		name string
		scs  []ScenarioComparison
		want Verdict
	}{
		{"nothing compared", []ScenarioComparison{none, none}, NoBaseline},
		{"unchanged and improved", []ScenarioComparison{unchanged, improved, none}, Pass},
		{"one regressed", []ScenarioComparison{unchanged, regressed}, Fail},
		{"one inconclusive", []ScenarioComparison{unchanged, inconclusive}, Undecided},
		{"all inconclusive", []ScenarioComparison{inconclusive, inconclusive}, Undecided},
		{"every compared one invalid", []ScenarioComparison{invalid, none}, Undecided},
		{"a regression marked invalid", []ScenarioComparison{hidden}, Undecided},
		{"a regression beside an invalid one", []ScenarioComparison{invalid, regressed}, Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HeadlineVerdict(tt.scs); got != tt.want {
				t.Errorf("HeadlineVerdict(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}
