package compare

import (
	"math"
	"testing"
)

// The history's learned noise for a scenario comes before the suite's
// pooled estimate, the noise floor and the assumed value; scenarios it has
// not learned keep those. The medians' family has its own: learned from
// the medians' spread, else gate.run_to_run_median assumed (never the
// tail's learned value), and its own floor (the P50's).
func TestRunToRunSource(t *testing.T) {
	s := DefaultSettings()
	s.Learned = map[string]LearnedNoise{"s0": {Fraction: 0.02, Runs: 14}}
	withMed := DefaultSettings()
	withMed.Learned = map[string]LearnedNoise{"s0": {Fraction: 0.12, Runs: 14, MedianFraction: 0.03, MedianRuns: 12}}
	none := DefaultSettings()
	none.RunToRun = 0
	old := DefaultSettings()
	old.RunToRunMedian = 0 // a comparison written before it existed: the tail's
	ms := []moved{{d: 0.01, v: 0.0004, ok: true}, {d: -0.01, v: 0.0004, ok: true}}
	sq := func(f float64) float64 { return math.Pow(math.Log1p(f), 2) }
	// 20% apart: (ln 1.2)² less 4/3 of the sampling, times 0.75, pooled
	// with the candidate's assumed run shift on priorRuns.
	beyond := func(cand float64) float64 {
		return (priorRuns*cand + 0.75*(sq(0.2)-0.0004*4/3)) / (priorRuns + 1)
	}
	tests := []struct {
		name             string
		s                Settings
		i                int
		floor            float64 // the baseline's P99 and P50 noise floor, percent (0: none)
		wantVar, wantMed float64
		wantSrc, medSrc  string
	}{
		{"learned", s, 0, 0, 2 * sq(0.02), 2 * sq(DefaultRunToRunMedian), "history (14 runs)", RunToRunAssumed},
		{"learned, the medians too", withMed, 0, 0, 2 * sq(0.12), 2 * sq(0.03), "history (14 runs)", "history (12 runs)"},
		{"learned, with a noise floor too", s, 0, 20, 2 * sq(0.02), beyond(sq(DefaultRunToRunMedian)), "history (14 runs)", RunToRunNoiseFloor},
		{"not learned: assumed", s, 1, 0, 2 * sq(DefaultRunToRun), 2 * sq(DefaultRunToRunMedian), RunToRunAssumed, RunToRunAssumed},
		{"not learned, no median setting: the tail's", old, 1, 0, 2 * sq(DefaultRunToRun), 2 * sq(DefaultRunToRun), RunToRunAssumed, RunToRunAssumed},
		// 1% apart is within the runs' sampling (v 0.0004): the
		// candidate's own run shift, gate.run_to_run for one run.
		{"not learned, a noise floor its sampling explains", s, 1, 1, sq(DefaultRunToRun), sq(DefaultRunToRunMedian), RunToRunNoiseFloor, RunToRunNoiseFloor},
		{"not learned, a noise floor beyond its sampling", s, 1, 20, beyond(sq(DefaultRunToRun)), beyond(sq(DefaultRunToRunMedian)), RunToRunNoiseFloor, RunToRunNoiseFloor},
		{"none assumed", none, 0, 0, 0, 0, RunToRunNone, RunToRunNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			floors := floorsOf(2, tt.floor, 0, 1)
			got := poolRunNoise(names(2), floors, all(2), ms, ms, ms, tt.s)[tt.i]
			if math.Abs(got.lat-tt.wantVar) > 1e-12 || got.latSrc != tt.wantSrc {
				t.Errorf("scenario %d, tail: %v, %q, want %v, %q", tt.i, got.lat, got.latSrc, tt.wantVar, tt.wantSrc)
			}
			if math.Abs(got.med-tt.wantMed) > 1e-12 || got.medSrc != tt.medSrc {
				t.Errorf("scenario %d, medians: %v, %q, want %v, %q", tt.i, got.med, got.medSrc, tt.wantMed, tt.medSrc)
			}
		})
	}
}
