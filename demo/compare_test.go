package demo

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// testResult is a valid result of scenario name, as the demo measures it.
func testResult(name string, seed uint64) *result.Result {
	return comparetest.Result(comparetest.Spec{Scenario: name, Layer: "model", Trials: 5, Requests: 200,
		MedianMs: 3, Noise: 0.02}, rand.New(rand.NewPCG(seed, 2)))
}

// busyTrial marks r's first trial as measured on a busy host.
func busyTrial(r *result.Result) *result.Result {
	r.Trials[0].Host = &result.HostLoad{Busy: true, Why: "other work"}
	return r
}

// Layers pairs the variants that both ran, in the order of Pairs, each
// named for its layer; the results of the run are left as measured.
func TestLayers(t *testing.T) {
	var outs []suite.Outcome
	for i, name := range []string{"service-batch32", "model-int8", "model-fp32", "service-batch1", "llm-fp32", "ladder-fp32"} {
		outs = append(outs, suite.Outcome{Scenario: &config.Scenario{Name: name}, Result: testResult(name, uint64(i))})
	}
	// A scenario that failed: no result.
	outs = append(outs, suite.Outcome{Scenario: &config.Scenario{Name: "llm-int8"}})
	run := Results(outs)
	if len(run.All) != 6 || len(run.ByName) != 6 {
		t.Fatalf("Results: %d results, %d by name, want 6 and 6", len(run.All), len(run.ByName))
	}
	base, cand := run.Layers()
	var got []string
	for i := range base {
		got = append(got, base[i].Scenario+" = "+cand[i].Scenario)
	}
	want := []string{"model: fp32 → int8 = model: fp32 → int8", "service: batching off → on = service: batching off → on"}
	if !slices.Equal(got, want) {
		t.Errorf("Layers = %q, want %q", got, want)
	}
	if &base[0].Trials[0] != &run.ByName["model-fp32"].Trials[0] || run.ByName["model-fp32"].Scenario != "model-fp32" {
		t.Errorf("Layers changed the run's results or took another's trials")
	}
}

// A layer measured while the host was busy is inconclusive (host busy)
// whatever its direction, and so is the comparison unless it fails; a
// layer measured on a quiet host keeps its verdict.
func TestHostBusy(t *testing.T) {
	tests := []struct {
		name        string
		base, cand  *result.Result
		sc          compare.ScenarioComparison
		verdict     compare.Verdict // of the comparison, before
		wantBusy    bool
		wantVerdict compare.Verdict // of the layer
		wantP99     compare.Verdict
		wantOverall compare.Verdict
	}{
		{name: "busy baseline, p99 regressed", base: busyTrial(testResult("int8", 1)), cand: testResult("int8", 2),
			sc:      compare.ScenarioComparison{Scenario: "int8", Verdict: compare.Unchanged, Metrics: []compare.Metric{{Metric: compare.MetricP99, Verdict: compare.Regressed}}},
			verdict: compare.Pass, wantBusy: true, wantVerdict: compare.Inconclusive, wantP99: compare.Inconclusive, wantOverall: compare.Undecided},
		{name: "busy candidate, improved", base: testResult("int8", 1), cand: busyTrial(testResult("int8", 2)),
			sc:      compare.ScenarioComparison{Scenario: "int8", Verdict: compare.Improved, Metrics: []compare.Metric{{Metric: compare.MetricP99, Verdict: compare.Improved}}},
			verdict: compare.Pass, wantBusy: true, wantVerdict: compare.Inconclusive, wantP99: compare.Inconclusive, wantOverall: compare.Undecided},
		{name: "quiet", base: testResult("quiet", 3), cand: testResult("quiet", 4),
			sc:      compare.ScenarioComparison{Scenario: "quiet", Verdict: compare.Improved, Metrics: []compare.Metric{{Metric: compare.MetricP99, Verdict: compare.Improved}}},
			verdict: compare.Pass, wantVerdict: compare.Improved, wantP99: compare.Improved, wantOverall: compare.Pass},
		{name: "busy, failing comparison stays failing", base: busyTrial(testResult("int8", 1)), cand: testResult("int8", 2),
			sc:      compare.ScenarioComparison{Scenario: "int8", Verdict: compare.Unchanged, Metrics: []compare.Metric{{Metric: compare.MetricP99, Verdict: compare.Unchanged}}},
			verdict: compare.Fail, wantBusy: true, wantVerdict: compare.Inconclusive, wantP99: compare.Inconclusive, wantOverall: compare.Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &compare.Comparison{Verdict: tt.verdict, Scenarios: []compare.ScenarioComparison{tt.sc}}
			HostBusy(c, []*result.Result{tt.base}, []*result.Result{tt.cand})
			sc := c.Scenarios[0]
			if sc.HostBusy != tt.wantBusy || sc.Verdict != tt.wantVerdict || sc.Metrics[0].Verdict != tt.wantP99 {
				t.Errorf("layer: host busy %v, verdict %s, p99 %s; want %v, %s, %s", sc.HostBusy, sc.Verdict, sc.Metrics[0].Verdict, tt.wantBusy, tt.wantVerdict, tt.wantP99)
			}
			if c.Verdict != tt.wantOverall {
				t.Errorf("comparison verdict %s (%s), want %s", c.Verdict, c.Reason, tt.wantOverall)
			}
			if tt.wantOverall == compare.Undecided && (!strings.Contains(c.Reason, "host was busy") || !strings.Contains(c.Reason, sc.Scenario)) {
				t.Errorf("comparison reason %q, want it to name the busy layer %s", c.Reason, sc.Scenario)
			}
		})
	}
}
