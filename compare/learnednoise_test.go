package compare

import (
	"math"
	"testing"
)

func TestRunToRunSource(t *testing.T) {
	s := DefaultSettings()
	s.Learned = map[string]LearnedNoise{"chat": {Fraction: 0.02, Runs: 14}}
	none := DefaultSettings()
	none.RunToRun = 0
	tests := []struct {
		name     string
		s        Settings
		scenario string
		measured bool
		wantVar  float64
		wantSrc  string
	}{
		{"learned", s, "chat", false, 2 * math.Pow(math.Log1p(0.02), 2), "history (14 runs)"},
		{"not learned: assumed", s, "other", false, 2 * math.Pow(math.Log1p(DefaultRunToRun), 2), RunToRunAssumed},
		// A baseline of several runs measured its own noise: neither the
		// history nor the assumption adds to it.
		{"noise floor wins", s, "chat", true, 0, RunToRunNoiseFloor},
		{"none assumed", none, "chat", false, 0, RunToRunNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, src := tt.s.runToRun(tt.scenario, tt.measured)
			if math.Abs(v-tt.wantVar) > 1e-12 || src != tt.wantSrc {
				t.Errorf("runToRun(%q, %v) = %v, %q, want %v, %q", tt.scenario, tt.measured, v, src, tt.wantVar, tt.wantSrc)
			}
		})
	}
}
