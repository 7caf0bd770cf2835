package compare

import (
	"fmt"
	"math"
	"testing"
)

// scen is a compared scenario with one gated, tested P99 metric.
func scen(name string, p, delta float64, verdict Verdict) ScenarioComparison {
	m := Metric{Metric: MetricP99, DeltaPct: delta, CIPct: [2]float64{delta / 2, delta * 1.5}, PValue: ptr(p), PHolm: ptr(p),
		Verdict: verdict, ThresholdPct: 5, BetterIs: "lower", Gated: true, Method: MethodProcesses, NBase: 5, NCand: 5}
	return ScenarioComparison{Scenario: name, Verdict: verdict, Metrics: []Metric{m}}
}

func TestGateWide(t *testing.T) {
	quiet := func(n int) []ScenarioComparison {
		var out []ScenarioComparison
		for i := range n {
			out = append(out, scen(fmt.Sprintf("q%d", i), 0.5, 2, Inconclusive))
		}
		return out
	}
	tests := []struct {
		name  string
		scs   []ScenarioComparison
		want  map[string]Verdict // scenario → verdict after
		pGate float64            // the downgraded metric's p across the gate, ±0.005
		tests int                // the gate-wide family's size
	}{
		{name: "alone, p 0.02 stands", scs: []ScenarioComparison{scen("a", 0.02, 30, Regressed)},
			want: map[string]Verdict{"a": Regressed}},
		{name: "one of 13, p 0.02 is noise across the gate", scs: append(quiet(12), scen("a", 0.02, 30, Regressed)),
			want: map[string]Verdict{"a": Inconclusive}, pGate: 0.26, tests: 13},
		{name: "one of 13, p 0.0001 stands", scs: append(quiet(12), scen("a", 0.0001, 300, Regressed)),
			want: map[string]Verdict{"a": Regressed}},
		{name: "an improvement likewise", scs: append(quiet(12), scen("b", 0.03, -30, Improved)),
			want: map[string]Verdict{"b": Inconclusive}},
		// Over trials (one process a side) the discrete test could never
		// reach a gate-wide level: it keeps its scenario's correction.
		{name: "a trial-tested change keeps its scenario's verdict",
			scs: append(quiet(12), func() ScenarioComparison {
				sc := scen("a", 0.0079, 30, Regressed)
				sc.Metrics[0].Method = MethodTrials
				return sc
			}()),
			want: map[string]Verdict{"a": Regressed}},
		{name: "a scenario with no baseline is not a test",
			scs:  []ScenarioComparison{scen("a", 0.02, 30, Regressed), {Scenario: "new", Verdict: NoBaseline}},
			want: map[string]Verdict{"a": Regressed, "new": NoBaseline}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gateWide(tt.scs, DefaultSettings())
			for _, sc := range tt.scs {
				want, ok := tt.want[sc.Scenario]
				if !ok {
					want = Inconclusive
				}
				if sc.Verdict != want {
					t.Errorf("%s: verdict %s (%s), want %s", sc.Scenario, sc.Verdict, sc.Reason, want)
				}
				if len(sc.Metrics) > 0 && sc.Metrics[0].Method != MethodTrials && sc.Metrics[0].PGate == nil {
					t.Errorf("%s: no p_gate", sc.Scenario)
				}
				if want == Inconclusive && tt.tests > 0 && sc.Scenario == "a" {
					if sc.Guard != ReasonGateWide || len(sc.Downgrades) != 1 || sc.Downgrades[0].Tests != tt.tests || math.Abs(*sc.Metrics[0].PGate-tt.pGate) > 0.005 {
						t.Errorf("%s: guard %q, downgrades %+v, p_gate %v; want gate-wide over %d tests, p_gate %v", sc.Scenario, sc.Guard, sc.Downgrades, *sc.Metrics[0].PGate, tt.tests, tt.pGate)
					}
				}
			}
		})
	}
}
