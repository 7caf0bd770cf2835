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
