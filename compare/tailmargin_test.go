package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// Decide with a tail quantile's wider margin of unchanged
// (Evidence.EquivalencePct): the interval inside ±margin and the point
// change inside ±threshold; a significant change beyond the threshold
// still regresses; without the margin, the threshold is the margin.
func TestDecideTailMargin(t *testing.T) {
	tests := []struct {
		name          string
		delta, lo, hi float64
		p, margin     float64
		want          Verdict
	}{
		{"inside the threshold", 0.5, -4, 4.5, 0.8, 10, Unchanged},
		{"inside the margin", 0.5, -8, 9, 0.8, 10, Unchanged},
		{"inside the margin, no margin set", 0.5, -8, 9, 0.8, 0, Inconclusive},
		{"past the margin", 0.5, -8, 11, 0.8, 10, Inconclusive},
		{"point past the threshold, not significant", 6, -2, 9.5, 0.2, 10, Inconclusive},
		{"point past the threshold, significant", 7, 1, 9.5, 0.01, 10, Regressed},
		{"improved past the threshold", -7, -9.5, -1, 0.01, 10, Improved},
		{"a margin narrower than the threshold is the threshold", 0.5, -4, 4.5, 0.8, 3, Unchanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(Evidence{DeltaPct: tt.delta, EquivCIPct: [2]float64{tt.lo, tt.hi}, ThresholdPct: 5,
				EquivalencePct: tt.margin, BetterIs: LowerIsBetter, P: tt.p, Alpha: 0.05})
			if got != tt.want {
				t.Errorf("Decide(%+.1f%% [%+.1f, %+.1f], p %v, margin %v) = %s, want %s", tt.delta, tt.lo, tt.hi, tt.p, tt.margin, got, tt.want)
			}
		})
	}
}

// tailPairs builds twelve pairs whose head P50 is the base's within 1%
// and whose head P99 is the base's times scale and a ±14% wobble: a tail
// whose paired interval leaves ±5% and sits inside ±10%, over a median
// that decides.
func tailPairs(scale float64) Pairs {
	p99 := []float64{1.15, 0.87, 1.13, 0.88, 1.14, 0.86, 1.12, 0.89, 1.15, 0.87, 1.13, 0.88}
	p50 := []float64{1.01, 0.99, 1.0, 1.01, 0.99, 1.0, 1.01, 0.99, 1.0, 1.01, 0.99, 1.0}
	var p Pairs
	for i := range p99 {
		b := 10 * (1 + 0.03*float64(i%3))
		p.Base = append(p.Base, result.Trial{Requests: 1000, Valid: true, Latency: result.Latency{P50: b / 2, P99: b}})
		p.Head = append(p.Head, result.Trial{Requests: 1000, Valid: true,
			Latency: result.Latency{P50: b / 2 * p50[i], P99: b * scale * p99[i]}})
	}
	return p
}

// A paired scenario under Settings.P99Equivalence: P99 whose interval
// leaves ±5% but fits ±10% is unchanged with a 10% margin (the scenario
// decided, and the margin in the metric's equivalence_pct) and
// inconclusive without one; the median keeps its own threshold as its
// margin; a head 20% slower at the tail still regresses.
func TestComparePairedTailMargin(t *testing.T) {
	tests := []struct {
		name       string
		margin     float64
		scale      float64
		wantP99    Verdict
		wantMargin float64
	}{
		{"no margin", 0, 1, Inconclusive, 0},
		{"10% margin", 0.10, 1, Unchanged, 10},
		{"a margin equal to the threshold", 0.05, 1, Inconclusive, 0},
		{"10% margin, 20% slower", 0.10, 1.20, Regressed, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			s.P99Equivalence = tt.margin
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			sc := ComparePaired("api", "service", tailPairs(tt.scale), s, 0.05, 0.05)
			var p50, p99 *Metric
			for i := range sc.Metrics {
				switch sc.Metrics[i].Metric {
				case MetricP50:
					p50 = &sc.Metrics[i]
				case MetricP99:
					p99 = &sc.Metrics[i]
				}
			}
			if p50 == nil || p99 == nil {
				t.Fatalf("metrics %+v: want p50_ms and p99_ms", sc.Metrics)
			}
			eq := *p99.EquivCIPct
			if tt.scale == 1 && !(math.Max(-eq[0], eq[1]) > 5 && math.Max(-eq[0], eq[1]) < 10) {
				t.Fatalf("P99's equivalence interval [%+.1f, %+.1f]: the test wants it past ±5%% and inside ±10%%", eq[0], eq[1])
			}
			if p99.Verdict != tt.wantP99 || p99.EquivalencePct != tt.wantMargin {
				t.Errorf("p99_ms %+.1f%% [%+.1f, %+.1f]: %s, margin %v; want %s, margin %v", p99.DeltaPct, eq[0], eq[1], p99.Verdict, p99.EquivalencePct, tt.wantP99, tt.wantMargin)
			}
			if p50.EquivalencePct != 0 || p50.Verdict != Unchanged {
				t.Errorf("p50_ms: %s, margin %v; want unchanged at its own threshold (margin 0)", p50.Verdict, p50.EquivalencePct)
			}
			if decided := Decided(sc); decided != (tt.wantP99 != Inconclusive) {
				t.Errorf("Decided = %v with p99_ms %s", decided, p99.Verdict)
			}
		})
	}
}

// The margin is validated against the threshold it widens, and applies
// to the tail quantiles only.
func TestTailMarginSettings(t *testing.T) {
	s := DefaultSettings()
	for _, v := range []float64{0.03, 1, -0.1} {
		s.P99Equivalence = v
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "p99 equivalence margin") {
			t.Errorf("Validate(p99 equivalence %v) = %v, want an error naming the margin", v, err)
		}
	}
	s.P99Equivalence = 0.10
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate(p99 equivalence 10%%) = %v", err)
	}
	for name, want := range map[string]float64{MetricP99: 10, MetricTTFTP99: 10, MetricTPOTP99: 10, MetricP999: 10,
		MetricP50: 0, MetricTPOTP50: 0, MetricServerCompute: 0, MetricMaxQPS: 0, MetricErrorRate: 0} {
		if got := s.TailMargin(name); got != want {
			t.Errorf("TailMargin(%s) = %v, want %v", name, got, want)
		}
	}
	s.P99Equivalence = s.P99Regression
	if got := s.TailMargin(MetricP99); got != 0 {
		t.Errorf("TailMargin(p99_ms) with the margin at the threshold = %v, want 0 (the threshold is the margin)", got)
	}
}
