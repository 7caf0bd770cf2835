package ghaction

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/report"
)

// A bundle whose headline contradicts its scenarios (issue 28: "pass"
// over scenarios that all failed) is refused, naming report.json and the
// scenario; one that agrees with itself is read.
func TestReadBundleRefusesAContradiction(t *testing.T) {
	gated := func(v compare.Verdict) []compare.Metric {
		return []compare.Metric{{Metric: compare.MetricP99, Verdict: v, Gated: true}}
	}
	regressed := compare.ScenarioComparison{Scenario: "a", Verdict: compare.Regressed, Metrics: gated(compare.Regressed)}
	unchanged := compare.ScenarioComparison{Scenario: "b", Verdict: compare.Unchanged, Metrics: gated(compare.Unchanged)}
	none := compare.ScenarioComparison{Scenario: "c", Verdict: compare.NoBaseline}
	inconclusive := compare.ScenarioComparison{Scenario: "g", Verdict: compare.Inconclusive, Metrics: gated(compare.Inconclusive)}
	tests := []struct {
		name      string
		verdict   compare.Verdict
		scenarios []compare.ScenarioComparison
		want      string // "" for a bundle that is read
	}{
		{"pass over a regression", compare.Pass, []compare.ScenarioComparison{regressed, unchanged}, `the verdict is "pass", but scenario "a" regressed`},
		{"inconclusive over a regression", compare.Undecided, []compare.ScenarioComparison{regressed}, `the verdict is "inconclusive", but scenario "a" regressed`},
		{"no-baseline over a regression", compare.NoBaseline, []compare.ScenarioComparison{regressed}, `scenario "a" regressed`},
		{"scenario unchanged over a regressed metric", compare.Pass,
			[]compare.ScenarioComparison{{Scenario: "d", Verdict: compare.Unchanged, Metrics: gated(compare.Regressed)}},
			`scenario "d" is "unchanged", but its gated metric p99_ms regressed`},
		{"fail without a regression", compare.Fail, []compare.ScenarioComparison{unchanged}, `the verdict is "fail", but no valid scenario regressed`},
		{"pass with nothing compared", compare.Pass, []compare.ScenarioComparison{none}, `no scenario was compared`},
		{"no-baseline with a comparison", compare.NoBaseline, []compare.ScenarioComparison{unchanged}, `scenario "b" was compared`},
		{"fail", compare.Fail, []compare.ScenarioComparison{regressed, unchanged, none}, ""},
		{"pass", compare.Pass, []compare.ScenarioComparison{unchanged, none}, ""},
		{"no baseline", compare.NoBaseline, []compare.ScenarioComparison{none}, ""},
		// An invalid scenario never fails the gate: compare makes it
		// inconclusive. "Regressed but invalid" is a forgery (issue 43).
		{"invalid inconclusive passes", compare.Pass, []compare.ScenarioComparison{unchanged,
			{Scenario: "e", Verdict: compare.Inconclusive, Invalid: true, Metrics: gated(compare.Inconclusive)}}, ""},
		{"pass over a regressed scenario marked invalid", compare.Pass, []compare.ScenarioComparison{unchanged,
			{Scenario: "e", Verdict: compare.Regressed, Invalid: true, Metrics: gated(compare.Regressed)}},
			`scenario "e" is marked invalid but "regressed"`},
		{"pass over all-inconclusive scenarios", compare.Pass, []compare.ScenarioComparison{inconclusive, inconclusive},
			`the verdict is "pass", but by the gate's rule its scenarios make it "inconclusive"`},
		{"pass over only invalid scenarios", compare.Pass, []compare.ScenarioComparison{
			{Scenario: "e", Verdict: compare.Inconclusive, Invalid: true}},
			`its scenarios make it "inconclusive"`},
		{"inconclusive over unchanged", compare.Undecided, []compare.ScenarioComparison{unchanged},
			`its scenarios make it "pass"`},
		{"a scenario verdict the gate never writes", compare.Pass, []compare.ScenarioComparison{unchanged,
			{Scenario: "f", Verdict: "fine"}}, `scenario "f" has the verdict "fine"`},
		{"inconclusive", compare.Undecided, []compare.ScenarioComparison{unchanged, inconclusive}, ""},
		{"incomparable over a regression", compare.Incomparable, []compare.ScenarioComparison{regressed}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &compare.Comparison{Schema: compare.Schema, Verdict: tt.verdict, Scenarios: tt.scenarios, Settings: compare.DefaultSettings()}
			if err := WriteBundle(dir, &report.Report{Comparison: c}, BundlePR{Number: 7, HeadSHA: strings.Repeat("a", 40)}); err != nil {
				t.Fatal(err)
			}
			_, _, err := ReadBundle(dir)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ReadBundle = %v, want the bundle read", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "report.json")):
				t.Errorf("ReadBundle = %v, want an error naming report.json with %q", err, tt.want)
			}
		})
	}
}
