package stat

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMeanStdDev(t *testing.T) {
	tests := []struct {
		name       string
		x          []float64
		mean, sdev float64
	}{
		{"empty", nil, 0, 0},
		// One value has no spread: n−1 = 0 would divide by zero.
		{"one", []float64{4}, 4, 0},
		// Σ(x−5)² = 32 over 8 values: √(32/7).
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mean(tt.x); math.Abs(got-tt.mean) > 1e-12 {
				t.Errorf("Mean(%v) = %v, want %v", tt.x, got, tt.mean)
			}
			if got := StdDev(tt.x); math.Abs(got-tt.sdev) > 1e-12 {
				t.Errorf("StdDev(%v) = %v, want %v", tt.x, got, tt.sdev)
			}
		})
	}
}

func TestGeoMean(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		{"ratios", []float64{1, 4}, 2},
		{"three", []float64{2, 4, 8}, 4},
		// A value ≤ 0 has no logarithm: the figure is refused, not NaN.
		{"zero", []float64{2, 0}, 0},
		{"negative", []float64{2, -1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GeoMean(tt.x); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("GeoMean(%v) = %v, want %v", tt.x, got, tt.want)
			}
		})
	}
}

func TestTQuantile(t *testing.T) {
	// Textbook values of t_{0.975, df}.
	for df, want := range map[float64]float64{1: 12.706, 4: 2.776, 30: 2.042} {
		if got := TQuantile(0.975, df); math.Abs(got-want) > 5e-4 {
			t.Errorf("TQuantile(0.975, %v) = %v, want %v", df, got, want)
		}
	}
}

func TestGeoMeanInterval(t *testing.T) {
	type out struct {
		GM, Lo, Hi float64
		N          int
	}
	// Logs of 100 and 400 are m ± ln 2, sd = √2·ln 2, so
	// h = t_{0.975,1}·sd/√2 = 12.706·ln 2.
	h := TQuantile(0.975, 1) * math.Ln2
	tests := []struct {
		name string
		x    []float64
		want out
	}{
		{"two", []float64{100, 400}, out{200, 200 * math.Exp(-h), 200 * math.Exp(h), 2}},
		// Non-positive and infinite estimates are dropped, not averaged.
		{"drops bad", []float64{100, 0, math.Inf(1), -3, 400}, out{200, 200 * math.Exp(-h), 200 * math.Exp(h), 2}},
		{"one", []float64{50}, out{50, 50, 50, 1}},
		{"none", []float64{0}, out{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gm, lo, hi, n := GeoMeanInterval(tt.x, 0.95)
			got := out{gm, lo, hi, n}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-12, 0)); d != "" {
				t.Errorf("GeoMeanInterval(%v) (-want +got):\n%s", tt.x, d)
			}
		})
	}
}

func TestMannKendallZ(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		// S = -15 over 15 pairs, Var(S) = 6·5·17/18: z = -14/√28.33.
		{"falling", []float64{6, 5, 4, 3, 2, 1}, -14 / math.Sqrt(6*5*17/18.0)},
		{"rising", []float64{1, 2, 3, 4, 5, 6}, 14 / math.Sqrt(6*5*17/18.0)},
		{"flat", []float64{3, 3, 3, 3, 3, 3}, 0},
		// One slow second among steady ones moves S by its rank only.
		{"one outlier", []float64{2, 2.1, 50, 2.05, 2.1, 2}, 0},
		{"too short", []float64{2, 1}, 0},
		// Ties: 1,1,2,2 has S = 4, Var = (4·3·13 − 2·(2·1·9))/18 = 6.67.
		{"ties", []float64{1, 1, 2, 2}, 3 / math.Sqrt((4*3*13-2*2*1*9)/18.0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MannKendallZ(tt.x); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("MannKendallZ(%v) = %v, want %v", tt.x, got, tt.want)
			}
		})
	}
}
