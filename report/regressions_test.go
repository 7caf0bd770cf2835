package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare"
)

func TestRegressionLines(t *testing.T) {
	p99 := compare.Metric{Metric: compare.MetricP99, Baseline: 12.3, Candidate: 14.51, DeltaPct: 18, CIPct: [2]float64{12, 23}, Verdict: compare.Regressed}
	tests := []struct {
		name      string
		scenarios []compare.ScenarioComparison
		want      []string
	}{
		{"none regressed", []compare.ScenarioComparison{{Scenario: "api", Layer: "service", Verdict: compare.Unchanged,
			Metrics: []compare.Metric{{Metric: compare.MetricP99, Verdict: compare.Unchanged}}}}, nil},
		{"one metric", []compare.ScenarioComparison{{Scenario: "api", Layer: "service", Verdict: compare.Regressed,
			Metrics: []compare.Metric{p99, {Metric: compare.MetricMaxQPS, Baseline: 1200, Candidate: 1190, Verdict: compare.Unchanged}}}},
			[]string{"api (service layer) regressed; p99_ms 12.30 → 14.51 (+18.0%, interval [+12.0%, +23.0%])"}},
		// The error rate's change is in percentage points, its values in
		// percent; a knee's interval may be open at the top.
		{"points and an open interval", []compare.ScenarioComparison{{Scenario: "llm", Layer: "model", Verdict: compare.Regressed,
			Metrics: []compare.Metric{
				{Metric: compare.MetricErrorRate, Baseline: 0.001, Candidate: 0.021, DeltaPct: 2, CIPct: [2]float64{1.5, 2.5}, Absolute: true, Verdict: compare.Regressed},
				{Metric: compare.MetricMaxQPS, Baseline: 1234.5, Candidate: 962.9, DeltaPct: -22, CIPct: [2]float64{-30, 0}, CIOpenHigh: true, Verdict: compare.Regressed},
			}}},
			[]string{"llm (model layer) regressed; error_rate 0.10% → 2.10% (+2.00 pp, interval [+1.50 pp, +2.50 pp]); max_qps 1234 → 962.9 (-22.0%, interval [-30.0%, ∞))"}},
		// A knee search that met the SLO at no rate: its max QPS is a
		// bound, and so is the change.
		{"a censored max QPS", []compare.ScenarioComparison{{Scenario: "batched", Layer: "service", Verdict: compare.Regressed,
			Metrics: []compare.Metric{
				{Metric: compare.MetricMaxQPS, Baseline: 111.6, Candidate: 12.5, DeltaPct: -88.8, CIPct: [2]float64{-100, -83.5}, Censored: "candidate", Verdict: compare.Regressed},
			}}},
			[]string{"batched (service layer) regressed; max_qps 111.6 → < 12.50 (≤ -88.8%, interval [-100.0%, -83.5%])"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RegressionLines(&compare.Comparison{Scenarios: tt.scenarios})
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("RegressionLines (-want +got):\n%s", d)
			}
		})
	}
}

// A layer whose max QPS rests on a censored side shows the bound as its
// scenario's metric does: "≤" before the change, "≥" for a baseline.
func TestChangeCensored(t *testing.T) {
	tests := []struct {
		c    *compare.Change
		want string
	}{
		{&compare.Change{DeltaPct: -88.8, CIPct: [2]float64{-100, -83.5}, Censored: "candidate", Verdict: compare.Regressed}, "≤ -88.8% [-100.0%, -83.5%] regressed"},
		{&compare.Change{DeltaPct: 300, CIPct: [2]float64{250, 300}, CIOpenHigh: true, Censored: "baseline", Verdict: compare.Improved}, "≥ +300.0% [+250.0%, ∞) improved"},
		{&compare.Change{DeltaPct: -4, CIPct: [2]float64{-6, -2}, Verdict: compare.Unchanged}, "-4.0% [-6.0%, -2.0%] unchanged"},
	}
	for _, tt := range tests {
		if got := change(tt.c, false); got != tt.want {
			t.Errorf("change(%+v) = %q, want %q", *tt.c, got, tt.want)
		}
	}
}
