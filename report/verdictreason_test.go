package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/compare"
)

// The comparison's reason is composed from its data when it renders:
// each row is a case whose words compare wrote before it stated facts
// only, and the case of a verdict changed after Compare (the gate's
// compare-with: both).
func TestComparisonReason(t *testing.T) {
	shift := 40.0
	p99 := func(m compare.Metric) compare.Metric {
		m.Metric, m.Gated, m.Verdict, m.BetterIs = compare.MetricP99, true, compare.Inconclusive, compare.LowerIsBetter
		return m
	}
	busy := compare.ScenarioComparison{Scenario: "knee", Verdict: compare.Inconclusive, HostBusy: true,
		Metrics: []compare.Metric{{Metric: compare.MetricMaxQPS, Gated: true, Verdict: compare.Inconclusive, DeltaPct: -40, ThresholdPct: 5, BetterIs: compare.HigherIsBetter}}}
	tests := []struct {
		name string
		c    compare.Comparison
		want string
	}{
		{"runner shift", compare.Comparison{Verdict: compare.Undecided, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Inconclusive,
			RunnerShifted: true, RunnerShiftPct: &shift}}},
			"could not decide s (runner +40% on its speed probe)"},
		{"host busy, stored baseline", compare.Comparison{Verdict: compare.Undecided, Scenarios: []compare.ScenarioComparison{busy}},
			"could not decide knee (host busy: other work used the cores while it was measured)"},
		// An A/B run measured both sides under the same load: the probes
		// that decide it ran while the host was busy.
		{"host busy, A/B", compare.Comparison{Verdict: compare.Undecided, AB: &compare.ABRun{}, Scenarios: []compare.ScenarioComparison{busy}},
			"could not decide knee (host busy: other work used the cores while the probes that decide it ran)"},
		{"sparse quantile", compare.Comparison{Verdict: compare.Undecided, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Inconclusive,
			Metrics: []compare.Metric{p99(compare.Metric{DeltaPct: 200, ThresholdPct: 5, Method: compare.MethodProcesses, NBase: 5, NCand: 5, RequestsNeeded: 100, MinRequests: 5})}}}},
			"could not decide s (p99_ms +200.0% beyond the 5% threshold, not decided with 5 vs 5 target processes: a p99 needs at least 100 requests in each of those target processes and one had 5 (lengthen the window or raise the rate))"},
		{"run-to-run noise", compare.Comparison{Verdict: compare.Undecided, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Inconclusive,
			Metrics: []compare.Metric{p99(compare.Metric{DeltaPct: -17.1, CIPct: [2]float64{-43, 20.8}, ThresholdPct: 5, MDEBound: compare.MDEBoundRunToRun, RunToRunVar: 0.0128})}}}},
			"not shown unchanged: s (p99_ms -17.1% [-43.0%, +20.8%] leaves ±5% (run-to-run noise 8% a run))"},
		// gate.p99_equivalence: the margin a tail quantile's interval left,
		// and the margin a passing comparison's unchanged was within.
		{"left the tail's wider margin", compare.Comparison{Verdict: compare.Undecided, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Inconclusive,
			Metrics: []compare.Metric{p99(compare.Metric{DeltaPct: 2, CIPct: [2]float64{-9, 13}, ThresholdPct: 5, EquivalencePct: 10})}}}},
			"not shown unchanged: s (p99_ms +2.0% [-9.0%, +13.0%] leaves ±10%)"},
		{"unchanged within the tail's wider margin", compare.Comparison{Verdict: compare.Pass,
			Settings:  compare.Settings{P99Regression: 0.05, P99Equivalence: 0.10},
			Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Unchanged}}},
			"every gated metric unchanged or improved within its threshold (P99 within ±10%)"},
		{"A/B scenario with no evidence", compare.Comparison{Verdict: compare.Undecided, AB: &compare.ABRun{}, Scenarios: []compare.ScenarioComparison{{Scenario: "api", Verdict: compare.Inconclusive,
			Undecidable: &compare.Note{Code: compare.NotePairedTooFewUnits, Count: 1, Total: 3, Need: 100}}}},
			"not shown unchanged: api (3 pair(s) measured, 1 unit(s) of at least 100 requests a side: at least 2 are needed)"},
		{"A/B run with no scenario", compare.Comparison{Verdict: compare.NoBaseline, AB: &compare.ABRun{}}, "no scenario was measured on both sides"},
		{"no baseline", compare.Comparison{Verdict: compare.NoBaseline, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.NoBaseline}}},
			"no scenario has a baseline: nothing was compared"},
		{"incomparable", compare.Comparison{Verdict: compare.Incomparable, Environment: &compare.EnvCheck{Differences: []string{"gpu model: A100 ≠ H200 (s)"}}},
			"the baseline was measured on a different environment (gpu model: A100 ≠ H200 (s)); rerun the baseline on this hardware or allow the mismatch"},
		{"regressed", compare.Comparison{Verdict: compare.Fail, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Regressed,
			Metrics: []compare.Metric{{Metric: compare.MetricP99, Gated: true, Verdict: compare.Regressed, DeltaPct: 12.84}}}}},
			"regressed: s (p99_ms +12.8%)"},
		// compare-with: both failed a passing A/B run on the stored
		// baselines' regression: the reason follows the verdict.
		{"failed beside", compare.Comparison{Verdict: compare.Fail, Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Unchanged}}},
			"failed, though no scenario here regressed: see the warnings"},
		{"a decoded reason", compare.Comparison{Verdict: compare.Pass, Reason: "written by an older perfgate"}, "written by an older perfgate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reason(&tt.c); got != tt.want {
				t.Errorf("Reason =\n%q, want\n%q", got, tt.want)
			}
		})
	}
}

// What more units cannot do, and the sensitivity line, are composed from
// the bound and the numbers.
func TestMDEWords(t *testing.T) {
	m := compare.Metric{ThresholdPct: 5, MDEUnit: "target processes", MDEBound: compare.MDEBoundRunToRun, RunToRunVar: 0.02}
	if got, want := MDELimit(m), "the run-to-run noise in its test (10% a run) keeps it above 5% whatever the target processes"; got != want {
		t.Errorf("MDELimit(run-to-run) = %q, want %q", got, want)
	}
	m.MDEBound = compare.MDEBoundUnits
	if got, want := MDELimit(m), "more than 1000 target processes a side would be needed to bring it to 5%"; got != want {
		t.Errorf("MDELimit(units) = %q, want %q", got, want)
	}
	ss := []compare.Sensitivity{
		{Metric: compare.MetricP99, Scenarios: 9, MedianMDEPct: 18, MaxMDEPct: 41, WorstScenario: "llm-fp32", ThresholdPct: 5, UnitsNeeded: 12, Unit: "target processes"},
		{Metric: compare.MetricMaxQPS, Scenarios: 1, MedianMDEPct: 30, MaxMDEPct: 30, WorstScenario: "knee", ThresholdPct: 5, Bound: compare.MDEBoundRunToRun, RunToRunVar: 0.02, Unit: "knee estimates"},
		{Metric: compare.MetricErrorRate, Scenarios: 9, MedianMDEPct: 0.05, MaxMDEPct: 0.05, ThresholdPct: 0.1, Absolute: true},
	}
	const want = "this gate would catch (80% power) p99_ms changes ≥ 18% (median of 9 scenarios; 41% in llm-fp32); max_qps changes ≥ 30%; " +
		"to narrow it, p99_ms: about 12 target processes a side would make it 5.0%; run-to-run noise of 10% a run keeps it there whatever the units"
	if got := Detects(&compare.Comparison{Sensitivity: ss}); got != want {
		t.Errorf("Detects =\n%q, want\n%q", got, want)
	}
}

// The JSON carries the words composed from the data, and decoding it
// leaves them to the data again.
func TestReasonWordsInJSON(t *testing.T) {
	c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Undecided,
		Scenarios: []compare.ScenarioComparison{{Scenario: "s", Verdict: compare.Inconclusive, Metrics: []compare.Metric{{Metric: compare.MetricP99,
			Gated: true, Verdict: compare.Inconclusive, BetterIs: compare.LowerIsBetter, DeltaPct: 2, CIPct: [2]float64{-9, 14}, ThresholdPct: 5,
			MDEUnit: "trials", MDEBound: compare.MDEBoundUnits}}}},
		Sensitivity: []compare.Sensitivity{{Metric: compare.MetricP99, Scenarios: 1, MedianMDEPct: 60, MaxMDEPct: 60, WorstScenario: "s", ThresholdPct: 5,
			Unit: "trials", Bound: compare.MDEBoundUnits}}}
	var b strings.Builder
	if err := ComparisonJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"reason": "not shown unchanged: s (p99_ms +2.0% [-9.0%, +14.0%] leaves ±5%); this gate would catch`,
		`"mde_limit": "more than 1000 trials a side`, `"lever": "more than 1000 trials a side`, `"detects": "this gate would catch (80% power) p99_ms changes ≥ 60%`} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("JSON lacks %s:\n%s", w, b.String())
		}
	}
	got, err := DecodeComparison(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c, got, cmpopts.IgnoreUnexported(compare.Downgrade{})); d != "" {
		t.Errorf("DecodeComparison(ComparisonJSON(c)) (-want +got):\n%s", d)
	}
}
