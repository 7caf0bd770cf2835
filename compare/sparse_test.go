package compare

import (
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// TestSparseQuantile checks that a P99 resting on units of fewer than 100
// requests is not a verdict on its own: the demo's A/A gates called +40%
// "regressed" on an LLM scenario of 5 requests a trial, where the P99 is
// the slowest request. Such a P99 is inconclusive unless the median moved
// the same way (a whole distribution 3× slower is still called); with
// enough requests a widened tail is called on its own.
func TestSparseQuantile(t *testing.T) {
	tests := []struct {
		name         string
		requests     int
		processes    int
		scale, sigma float64 // the candidate's; the baseline has 1 and 0.3
		wantVerdict  Verdict
		wantMin      int
	}{
		{"5 requests a trial, tail widened", 5, 1, 1, 1.2, Inconclusive, 5},
		{"5 requests in each of 5 processes, tail widened", 5, 5, 1, 1.2, Inconclusive, 5},
		{"60 requests in each of 5 processes, tail widened", 60, 5, 1, 1.2, Inconclusive, 60},
		{"200 requests in each of 5 processes, tail widened", 200, 5, 1, 1.2, Regressed, 0},
		{"200 requests a trial, tail widened", 200, 1, 1, 1.2, Regressed, 0},
		{"5 requests a trial, all 3x slower", 5, 1, 3, 0.3, Regressed, 5},
		{"5 requests in each of 5 processes, all 3x slower", 5, 5, 3, 0.3, Regressed, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 5))
			b := sparseRun(rng, 1, 0.3, tt.processes, tt.requests)
			c := sparseRun(rng, tt.scale, tt.sigma, tt.processes, tt.requests)
			cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			m := metric(t, cmp, MetricP99)
			if m.Verdict != tt.wantVerdict || m.MinRequests != tt.wantMin {
				t.Fatalf("p99 %+.1f%%: verdict %s, min requests %d; want %s, %d", m.DeltaPct, m.Verdict, m.MinRequests, tt.wantVerdict, tt.wantMin)
			}
			if tt.wantMin > 0 && m.RequestsNeeded != 100 {
				t.Errorf("requests needed %d, want 100", m.RequestsNeeded)
			}
			if tt.wantMin > 0 && tt.wantVerdict == Inconclusive {
				if cmp.Verdict == Fail {
					t.Errorf("comparison %s on a sparse P99", cmp.Verdict)
				}
			}
		})
	}
}

// sparseRun is a run of 5 trials of requests requests each, spread over
// processes target processes (one process: all 5 in it), latencies
// lognormal with median 4 ms × scale and log-sd sigma.
func sparseRun(rng *rand.Rand, scale, sigma float64, processes, requests int) *result.Result {
	r := comparetest.Result(comparetest.Spec{Scenario: "proc", Layer: "service", Trials: 5, Requests: requests,
		MedianMs: 4, Sigma: sigma, Noise: 0.01, Scale: scale}, rng)
	for i := range r.Trials {
		r.Trials[i].Process = i%processes + 1
	}
	r.Restarts = processes
	return r
}

// TestSparseQuantileRealAA replays the A/A gate that called one slow
// request a regression: the full demo's llm-int8 (5 requests in each of 5
// target processes) against the same code gated minutes later on a quiet
// machine (testdata/aa, 2026-11-30). Before the rule it was "regressed":
// P99 +40.2%, TTFT P99 +24.2%, TPOT P99 +49.7%.
func TestSparseQuantileRealAA(t *testing.T) {
	var rs [2]*result.Result
	for i, f := range []string{"testdata/aa/llm-int8-demo.json", "testdata/aa/llm-int8-gate3.json"} {
		r, err := result.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rs[i] = r
	}
	cmp, err := Compare([]*result.Result{rs[0]}, []*result.Result{rs[1]}, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	sc := cmp.Scenarios[0]
	if sc.Verdict == Regressed || cmp.Verdict == Fail {
		t.Fatalf("A/A llm-int8: scenario %s, comparison %s; want no regression", sc.Verdict, cmp.Verdict)
	}
	for _, name := range []string{MetricP99, MetricTTFTP99, MetricTPOTP99} {
		m := metric(t, cmp, name)
		if m.Verdict != Inconclusive || m.MinRequests != 5 {
			t.Errorf("%s %+.1f%%: verdict %s, min requests %d; want inconclusive on 5", name, m.DeltaPct, m.Verdict, m.MinRequests)
		}
	}
}
