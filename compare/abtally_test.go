package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestABRunTally(t *testing.T) {
	decided := ScenarioComparison{Metrics: []Metric{{Gated: true, Verdict: Unchanged}, {Verdict: Inconclusive}}}
	undecided := ScenarioComparison{Metrics: []Metric{{Gated: true, Verdict: Regressed}, {Gated: true, Verdict: Inconclusive}}}
	tests := []struct {
		name string
		scs  []ScenarioComparison
		want ABRun
	}{
		{"one of two decided: both scenarios' time over one verdict", []ScenarioComparison{decided, undecided},
			ABRun{Decided: 1, RunnerSPerDecided: 150, FixedRunnerSPerDecided: 300}},
		{"both decided", []ScenarioComparison{decided, decided}, ABRun{Decided: 2, RunnerSPerDecided: 75, FixedRunnerSPerDecided: 150}},
		{"none decided: no figure", []ScenarioComparison{undecided, undecided}, ABRun{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ABRun{Scenarios: []ABScenario{{RunnerS: 50, FixedRunnerS: 100}, {RunnerS: 100, FixedRunnerS: 200}}}
			r.Tally(tt.scs)
			got := ABRun{Decided: r.Decided, RunnerSPerDecided: r.RunnerSPerDecided, FixedRunnerSPerDecided: r.FixedRunnerSPerDecided}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Tally (-want +got):\n%s", d)
			}
		})
	}
}
