package compare

import (
	"math"
	"testing"
)

func TestDriftPct(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"flat", []float64{0, 1, 2}, []float64{5, 5, 5}, 0},
		// ln y rises by ln 1.1 per step: 21% over two steps.
		{"steady rise", []float64{0, 1, 2}, []float64{10, 11, 12.1}, 21},
		{"one point", []float64{0}, []float64{5}, 0},
		// No spread in x: no slope to read.
		{"one instant", []float64{3, 3}, []float64{5, 6}, 0},
	}
	for _, tt := range tests {
		if got := DriftPct(tt.x, tt.y); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: DriftPct(%v, %v) = %v, want %v", tt.name, tt.x, tt.y, got, tt.want)
		}
	}
}

func TestUnpairedDeltaPct(t *testing.T) {
	tests := []struct {
		name       string
		base, head []float64
		want       float64
	}{
		{"same", []float64{10, 20}, []float64{10, 20}, 0},
		// Geometric means 10 and 20: +100%, whatever the pairing.
		{"doubled", []float64{5, 20}, []float64{20, 20}, 100},
		// A pair with a zero (no latency measured) is left out.
		{"zero left out", []float64{10, 0}, []float64{11, 30}, 10},
		{"none", nil, nil, 0},
	}
	for _, tt := range tests {
		if got := UnpairedDeltaPct(tt.base, tt.head); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: UnpairedDeltaPct(%v, %v) = %v, want %v", tt.name, tt.base, tt.head, got, tt.want)
		}
	}
}
