package compare

import (
	"math"
	"testing"
)

// The history's learned noise for a scenario comes before the suite's
// pooled estimate, the noise floor and the assumed value; scenarios it has
// not learned keep those.
func TestRunToRunSource(t *testing.T) {
	s := DefaultSettings()
	s.Learned = map[string]LearnedNoise{"s0": {Fraction: 0.02, Runs: 14}}
	none := DefaultSettings()
	none.RunToRun = 0
	ms := []moved{{d: 0.01, v: 0.0004, ok: true}, {d: -0.01, v: 0.0004, ok: true}}
	tests := []struct {
		name    string
		s       Settings
		i       int
		floor   float64 // the baseline's P99 noise floor, percent (0: none)
		wantVar float64
		wantSrc string
	}{
		{"learned", s, 0, 0, 2 * math.Pow(math.Log1p(0.02), 2), "history (14 runs)"},
		{"learned, with a noise floor too", s, 0, 20, 2 * math.Pow(math.Log1p(0.02), 2), "history (14 runs)"},
		{"not learned: assumed", s, 1, 0, 2 * math.Pow(math.Log1p(DefaultRunToRun), 2), RunToRunAssumed},
		// 1% apart is within the runs' sampling (v 0.0004): the
		// candidate's own run shift, gate.run_to_run for one run.
		{"not learned, a noise floor its sampling explains", s, 1, 1, math.Pow(math.Log1p(DefaultRunToRun), 2), RunToRunNoiseFloor},
		// 20% apart: (ln 1.2)² less 4/3 of the sampling, times 0.75.
		{"not learned, a noise floor beyond its sampling", s, 1, 20, 0.75 * (math.Pow(math.Log1p(0.2), 2) - 0.0004*4/3), RunToRunNoiseFloor},
		{"none assumed", none, 0, 0, 0, RunToRunNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			floors := floorsOf(2, tt.floor, 0, 1)
			got := poolRunNoise(names(2), floors, all(2), ms, ms, tt.s)[tt.i]
			if math.Abs(got.lat-tt.wantVar) > 1e-12 || got.latSrc != tt.wantSrc {
				t.Errorf("scenario %d: %v, %q, want %v, %q", tt.i, got.lat, got.latSrc, tt.wantVar, tt.wantSrc)
			}
		})
	}
}
