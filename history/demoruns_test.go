package history

import (
	"context"
	"math"
	"testing"

	"github.com/perfgate/perfgate/changepoint"
)

// demoRunsDir is a history of real runs of the demo's reference server
// (testdata/demo-runs/README.md says how it was made): 16 runs of
// scenario model-fp32, the service 23.5% slower from the 11th.
const demoRunsDir = "testdata/demo-runs"

// demoChange is the 0-based index of the first slower run.
const demoChange = 10

// TestChangesOnDemoRuns runs the change-point detector on the demo's own
// history: it must find the slowdown in P50 at the 11th run (±1), about
// +20%, and nothing in any metric over the ten unchanged runs. Each
// permutation seed of 1…20 must agree (the default is seed 1).
func TestChangesOnDemoRuns(t *testing.T) {
	recs, err := Dir(demoRunsDir).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 16 {
		t.Fatalf("%s holds %d records, want 16", demoRunsDir, len(recs))
	}
	for seed := uint64(1); seed <= 20; seed++ {
		set := changepoint.DefaultSettings()
		set.Seed = seed
		for _, s := range AllSeries(recs, "model-fp32", "") {
			cs, err := s.Changes(set)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if seed == 1 {
					t.Logf("%s: change at run %d (commit %.12s), %+.1f%%, confidence %.1f%%", s.Metric, c.Index+1, c.After.Commit, c.SizePct, 100*c.Confidence)
				}
				if c.Index < demoChange-1 || c.Index > demoChange+1 {
					t.Errorf("seed %d: %s: a change point at run %d, away from the slowdown at run %d: %+v", seed, s.Metric, c.Index+1, demoChange+1, c)
				}
			}
			// The ten unchanged runs alone: no change point in any metric.
			before := s
			before.Points = s.Points[:demoChange]
			if cs, err := before.Changes(set); err != nil || len(cs) > 0 {
				t.Errorf("seed %d: %s over the unchanged runs: change points %+v (%v), want none", seed, s.Metric, cs, err)
			}
			if s.Metric == MetricP50 && (len(cs) != 1 || !cs[0].Regression || math.Abs(cs[0].SizePct-20) > 8) {
				t.Errorf("seed %d: p50_ms change points %+v, want one regression of about +20%% at run %d", seed, cs, demoChange+1)
			}
		}
	}
}
