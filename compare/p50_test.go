package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare/comparetest"
)

// The median latency is gated beside P99 with its own threshold
// (Settings.P50Regression), and the scenario names the metrics that
// decided it.
func TestP50Gated(t *testing.T) {
	tests := []struct {
		name          string
		p50           float64
		wantGated     bool
		wantThreshold float64
		wantP50       Verdict
		wantDecidedBy []string
	}{
		{"default: gated at 5%", DefaultP50Regression, true, 5, Regressed, []string{MetricP50, MetricP99}},
		// A threshold of its own: +10% is inside 20%, so P99 alone decides.
		{"own threshold", 0.20, true, 20, Unchanged, []string{MetricP99}},
		// 0 keeps the old behaviour: reported at P99's threshold, not gated.
		{"off", 0, false, 5, Regressed, []string{MetricP99}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 7, 1.10, nil)
			s := withinRun()
			s.P50Regression = tt.p50
			got := mustCompare(t, one(b), one(c), s)
			m := metric(t, got, MetricP50)
			if m.Gated != tt.wantGated || m.ThresholdPct != tt.wantThreshold || m.Verdict != tt.wantP50 {
				t.Errorf("p50: gated %v threshold %v verdict %s, want %v %v %s", m.Gated, m.ThresholdPct, m.Verdict, tt.wantGated, tt.wantThreshold, tt.wantP50)
			}
			if d := cmp.Diff(tt.wantDecidedBy, got.Scenarios[0].DecidedBy); d != "" {
				t.Errorf("decided_by (-want +got):\n%s", d)
			}
			if got.Verdict != Fail {
				t.Errorf("verdict %s, want fail", got.Verdict)
			}
		})
	}
}

// Streams gate TTFT and TPOT P50 beside their P99s.
func TestStreamMediansGated(t *testing.T) {
	b, c := pair(t, 3, 1.3, func(sp *comparetest.Spec) { sp.Streaming = true })
	got := mustCompare(t, one(b), one(c), DefaultSettings())
	for _, name := range []string{MetricTTFTP50, MetricTPOTP50} {
		if m := metric(t, got, name); !m.Gated || m.ThresholdPct != 100*DefaultP50Regression {
			t.Errorf("%s: gated %v threshold %v, want gated at %v", name, m.Gated, m.ThresholdPct, 100*DefaultP50Regression)
		}
	}
}

func TestSettingsP50Validate(t *testing.T) {
	s := DefaultSettings()
	s.P50Regression = -0.01
	if s.Validate() == nil {
		t.Errorf("Validate(p50 -1%%) = nil, want an error")
	}
	s.P50Regression = 0
	if err := s.Validate(); err != nil {
		t.Errorf("Validate(p50 0, not gated) = %v, want nil", err)
	}
}

// A scenario of 4 trials a side can call a P99 regression alone but not
// with P50 sharing α: its medians are reported, not gated, as before.
func TestMediansLeftOutWhenTrialsTooFew(t *testing.T) {
	for _, tt := range []struct {
		trials    int
		wantGated bool
	}{{4, false}, {5, true}} {
		b, c := pair(t, 5, 1.3, func(sp *comparetest.Spec) { sp.Trials = tt.trials })
		got := mustCompare(t, one(b), one(c), withinRun())
		if m := metric(t, got, MetricP50); m.Gated != tt.wantGated {
			t.Errorf("%d trials: p50 gated %v, want %v", tt.trials, m.Gated, tt.wantGated)
		}
		if got.Verdict != Fail {
			t.Errorf("%d trials: verdict %s (%s), want fail", tt.trials, got.Verdict, got.Reason)
		}
	}
}
