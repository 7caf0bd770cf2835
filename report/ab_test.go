package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
)

// TestABSection checks that an A/B comparison's reports say which mode
// ran, the pairs, the stopping, the runner time beside the fixed design's
// and the drift the pairing cancelled, with the ref escaped.
func TestABSection(t *testing.T) {
	c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Pass, Settings: compare.DefaultSettings(),
		Scenarios: []compare.ScenarioComparison{{Scenario: "api|v2", Layer: "service", Verdict: compare.Unchanged}},
		AB: &compare.ABRun{Ref: "main<b>", BaseSHA: "0a1b2c3d4e5f60718293", HeadSHA: "4f2c1e0d9b8a7f6e5d4c", Resident: "both", MaxTrials: 20,
			Scenarios: []compare.ABScenario{{Scenario: "api|v2", Order: "ABBAABBAABBAABBA", Pairs: 8, Trials: 16, Looks: 1, Level: 0.026,
				Stopped: "decided", RunnerS: 95, FixedTrials: 40, FixedRunnerS: 237, Processes: [2]int{3, 3}, BaseDriftPct: 41.2, UnpairedDeltaPct: 12.5}}}}
	r := &Report{Title: "perfgate.yaml", Comparison: c}
	var md, txt strings.Builder
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "text": txt.String()} {
		for _, want := range []string{"Same-runner A/B", "0a1b2c3d4e5f", "8 pairs", "decided after 1 look", "16 trials, 95 s", "fixed design: 40 trials, ~4.0 min", "+41.2%", "+12.5%", "3 / 3"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", name, want, out)
			}
		}
	}
	if strings.Contains(md.String(), "main<b>") {
		t.Errorf("markdown report carries the ref unescaped:\n%s", md.String())
	}
	// A '|' in a name stays in its cell: the row keeps its 7 columns.
	if !strings.Contains(md.String(), "| api\\|v2 | 8 pairs") || !strings.Contains(txt.String(), "  api|v2; pairs (order) 8 pairs") {
		t.Errorf("the A/B row of a scenario named api|v2 is split:\n%s\n%s", md.String(), txt.String())
	}
	if !strings.Contains(md.String(), "paired t-test") {
		t.Errorf("markdown details do not name the paired method:\n%s", md.String())
	}
	if strings.Contains(md.String(), "over the rounds' log ratios") {
		t.Errorf("a comparison without an A/B sweep describes one:\n%s", md.String())
	}
	// An A/B sweep's max QPS, tested over paired rounds, is described as
	// such, not as the stored gate's Welch test over estimates.
	c.Scenarios[0].Metrics = []compare.Metric{{Metric: compare.MetricMaxQPS, Gated: true, Method: compare.MethodPairedKnees, BetterIs: compare.HigherIsBetter,
		Baseline: 100, Candidate: 101, DeltaPct: 1, CIPct: [2]float64{-4, 6}, ThresholdPct: 5, Verdict: compare.Inconclusive, NBase: 4, NCand: 4}}
	md.Reset()
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "paired t-test over the rounds' log ratios") || strings.Contains(md.String(), "max QPS under the SLO: Welch") {
		t.Errorf("an A/B sweep's max QPS method is not described as paired over rounds:\n%s", md.String())
	}
}

// TestABRunnerTimePerVerdict: every A/B report says the runner time per
// decided verdict beside the fixed design's, or that none was decided;
// a run of declared pairs says so in place of the revisions.
func TestABRunnerTimePerVerdict(t *testing.T) {
	tests := []struct {
		name string
		ab   compare.ABRun
		want []string
	}{
		{"decided", compare.ABRun{Ref: "main", Resident: "both", Decided: 1, RunnerSPerDecided: 150, FixedRunnerSPerDecided: 300,
			Scenarios: []compare.ABScenario{{Scenario: "a", RunnerS: 50}, {Scenario: "b", RunnerS: 100}}},
			[]string{"Runner time per decided verdict: 2.5 min (1 of 2 decided; the fixed design: ~5.0 min)."}},
		{"none decided", compare.ABRun{Ref: "main", Resident: "both", Scenarios: []compare.ABScenario{{Scenario: "a", RunnerS: 50}, {Scenario: "b", RunnerS: 100}}},
			[]string{"No scenario was decided in 2.5 min of runner time."}},
		{"declared pairs", compare.ABRun{Declared: true, Resident: "both", Decided: 1, RunnerSPerDecided: 20, FixedRunnerSPerDecided: 40,
			Scenarios: []compare.ABScenario{{Scenario: "model: fp32 → int8", RunnerS: 20}}},
			[]string{"Declared pairs: each pair's base scenario against its head scenario", "Runner time per decided verdict: 20 s"}},
		// The concurrent design is named as such, in the section and the
		// method, never as interleaved (ABBA).
		{"concurrent", compare.ABRun{Ref: "main", Resident: "both", Design: "concurrent", Decided: 1, RunnerSPerDecided: 30, FixedRunnerSPerDecided: 60,
			Scenarios: []compare.ABScenario{{Scenario: "a", Design: "concurrent", Order: "======", Pairs: 6, RunnerS: 30}}},
			[]string{"measured both at once on this runner (fresh processes for both every block, the same open-loop schedule sent to each", "6 pairs (======)", "base and head trials measured at once"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ab := tt.ab
			c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Pass, Settings: compare.DefaultSettings(), AB: &ab}
			var txt strings.Builder
			if err := Text(&txt, &Report{Title: "t", Comparison: c}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(txt.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, txt.String())
				}
			}
			if tt.ab.Design == "concurrent" && strings.Contains(txt.String(), "measured interleaved") {
				t.Errorf("a concurrent run is described as interleaved:\n%s", txt.String())
			}
			if tt.ab.Declared && strings.Contains(txt.String(), "Same-runner A/B: base") {
				t.Errorf("a run of declared pairs is described as two revisions:\n%s", txt.String())
			}
		})
	}
}
