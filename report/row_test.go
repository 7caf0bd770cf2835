package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare"
)

// The row's notes name the metrics that decided a verdict when its
// columns (P99, max QPS) are not among them, and only then.
func TestRowNamesWhatDecided(t *testing.T) {
	p99 := compare.Metric{Metric: compare.MetricP99, Baseline: 59.1, Candidate: 39, DeltaPct: -34, Verdict: compare.Improved, Gated: true}
	for _, tt := range []struct {
		name string
		by   []string
		want []string
	}{
		{"a stream's TPOT regressed, its P99 improved", []string{compare.MetricTPOTP99, compare.MetricTPOTP50}, []string{"(by tpot_p99_ms, tpot_p50_ms)"}},
		{"the median decided where the P99 could not", []string{compare.MetricP50}, []string{"(by p50_ms)"}},
		{"the P99 among them", []string{compare.MetricP50, compare.MetricP99}, nil},
		{"max QPS", []string{compare.MetricMaxQPS}, nil},
		{"undecided", nil, nil},
	} {
		s := compare.ScenarioComparison{Scenario: "llm", Verdict: compare.Regressed, DecidedBy: tt.by,
			Metrics: []compare.Metric{p99}}
		w := (&Report{}).scenarioRow(s, "-")
		if d := cmp.Diff(tt.want, w.Notes); d != "" {
			t.Errorf("%s: notes (-want +got):\n%s", tt.name, d)
		}
	}
}
