package compare

import (
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// simRuns is the number of comparisons per simulated condition.
const simRuns = 40

// simulate compares simRuns pairs of synthetic runs, 5 trials a side with
// 3% trial-to-trial noise, the candidate's latencies scaled by scale, and
// counts the comparisons whose verdict is Fail.
func simulate(t *testing.T, seed uint64, scale float64) (fails int, verdicts map[string]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	verdicts = map[string]int{}
	for range simRuns {
		spec := comparetest.Spec{Scenario: "sim", Layer: "service", Trials: 5, Requests: 20000,
			MedianMs: 4, Sigma: 0.5, Noise: 0.03}
		base := comparetest.Result(spec, rng)
		spec.Scale = scale
		cand := comparetest.Result(spec, rng)
		c, err := Compare([]*result.Result{base}, []*result.Result{cand}, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		verdicts[c.Scenarios[0].Verdict]++
		if c.Verdict == Fail {
			fails++
		}
	}
	return fails, verdicts
}

// TestSimulatedRates checks the gate's error rates at the defaults: A/A
// comparisons (no change) fail at most once in 40, and a 15% P99
// regression fails at least 38 times in 40.
func TestSimulatedRates(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs (single goroutine, deterministic)")
	}
	tests := []struct {
		name    string
		scale   float64
		wantMin int
		wantMax int
		seed    uint64
	}{
		{name: "A/A", scale: 1, wantMin: 0, wantMax: 1, seed: 1},
		{name: "15% regression", scale: 1.15, wantMin: 38, wantMax: simRuns, seed: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails, verdicts := simulate(t, tt.seed, tt.scale)
			t.Logf("%s: %d/%d fail; scenario verdicts %v", tt.name, fails, simRuns, verdicts)
			if fails < tt.wantMin || fails > tt.wantMax {
				t.Errorf("%s: %d/%d comparisons failed, want %d..%d", tt.name, fails, simRuns, tt.wantMin, tt.wantMax)
			}
		})
	}
}
