package compare

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// TestSparseQuantileInconclusive checks that a P99 resting on units of
// fewer than 100 requests is never a verdict: the demo's A/A gates called
// +40% "regressed" on an LLM scenario of 5 requests a trial, where the
// P99 is the slowest request. With enough requests the same change is
// called.
func TestSparseQuantileInconclusive(t *testing.T) {
	tests := []struct {
		name        string
		requests    int
		processes   int
		scale       float64
		wantVerdict string
		wantMin     int
	}{
		{"5 requests a trial, one process a side", 5, 1, 3, Inconclusive, 5},
		{"5 requests in each of 5 processes", 5, 5, 3, Inconclusive, 5},
		{"60 requests in each of 5 processes", 60, 5, 3, Inconclusive, 60},
		{"200 requests in each of 5 processes", 200, 5, 3, Regressed, 0},
		{"200 requests a trial, one process a side", 200, 1, 3, Regressed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 5))
			var b, c *result.Result
			if tt.processes == 1 {
				spec := comparetest.Spec{Scenario: "proc", Layer: "service", Trials: 5,
					Requests: tt.requests, MedianMs: 4, Sigma: 0.3, Noise: 0.01, Scale: 1}
				b = comparetest.Result(spec, rng)
				spec.Scale = tt.scale
				c = comparetest.Result(spec, rng)
			} else {
				b, c = sparseRun(rng, 1, tt.processes, tt.requests), sparseRun(rng, tt.scale, tt.processes, tt.requests)
			}
			cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			m := metric(t, cmp, MetricP99)
			if m.Verdict != tt.wantVerdict || m.MinRequests != tt.wantMin {
				t.Fatalf("p99 %+.1f%%: verdict %s, min requests %d; want %s, %d", m.DeltaPct, m.Verdict, m.MinRequests, tt.wantVerdict, tt.wantMin)
			}
			if tt.wantMin > 0 {
				if m.RequestsNeeded != 100 {
					t.Errorf("requests needed %d, want 100", m.RequestsNeeded)
				}
				if !strings.Contains(cmp.Reason, "needs at least 100 requests") {
					t.Errorf("reason does not say why: %s", cmp.Reason)
				}
				if cmp.Verdict == Fail {
					t.Errorf("comparison %s on a sparse P99", cmp.Verdict)
				}
			}
		})
	}
}

// sparseRun is a run of n target processes, one trial each of requests
// requests, latencies scaled by scale.
func sparseRun(rng *rand.Rand, scale float64, n, requests int) *result.Result {
	var out *result.Result
	for p := range n {
		r := comparetest.Result(comparetest.Spec{Scenario: "proc", Layer: "service", Trials: 1, Requests: requests,
			MedianMs: 4, Sigma: 0.3, Noise: 0.01, Scale: scale}, rng)
		r.Trials[0].Process = p + 1
		if out == nil {
			out = r
			continue
		}
		out.Trials = append(out.Trials, r.Trials...)
	}
	out.Restarts = n
	out.Load.Trials = n
	return out
}
