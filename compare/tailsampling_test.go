package compare

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
)

// The sampling floor of a unit's quantile against what spreads the
// units' log ratios. With requests drawn from one lognormal on both sides
// (sampling the only noise), the floor is the whole spread; with every
// trial scaled by 40% of the runner's noise beside it, sampling is a
// small part. An undecided P99 says which in a note (TailSampling, run
// where the measuring stopped).
func TestTailSpread(t *testing.T) {
	tests := []struct {
		name  string
		noise float64
		// ratio bounds the P99 floor over the observed spread.
		lo, hi float64
	}{
		{"sampling alone", 0, 0.75, 1.3},
		{"the runner beside it", 0.4, 0, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := comparetest.Spec{Scenario: "svc", Trials: 20, Requests: 300, MedianMs: 3, Sigma: 0.5, Noise: tt.noise}
			p := Pairs{Base: comparetest.Result(spec, rand.New(rand.NewPCG(1, 2))).Trials,
				Head: comparetest.Result(spec, rand.New(rand.NewPCG(3, 4))).Trials}
			sc := ComparePaired("svc", "service", p, DefaultSettings(), 0.05, 0.05)
			if slices.ContainsFunc(sc.Notes, func(n Note) bool { return n.Code == NoteTailSampling }) {
				t.Fatalf("ComparePaired noted the sampling floor itself: a look's comparison must stay cheap")
			}
			TailSampling(&sc, p, DefaultSettings())
			var note *Note
			for i := range sc.Notes {
				if sc.Notes[i].Code == NoteTailSampling && sc.Notes[i].Metric == MetricP99 {
					note = &sc.Notes[i]
				}
			}
			if note == nil {
				t.Fatalf("no tail-sampling note for P99: %s, notes %+v", sc.Verdict, sc.Notes)
			}
			r := note.FloorPct / note.Pct
			t.Logf("%s: P99 spread %.1f%%, sampling %.1f%% (%.2f), %d requests a unit", tt.name, note.Pct, note.FloorPct, r, note.Need)
			if r < tt.lo || r > tt.hi || note.Need != 300 {
				t.Errorf("P99's sampling floor %.1f%% of a spread %.1f%% (%.2f), %d requests: want a ratio in [%.2f, %.2f] at 300", note.FloorPct, note.Pct, r, note.Need, tt.lo, tt.hi)
			}
		})
	}
}
